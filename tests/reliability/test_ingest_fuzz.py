"""Fuzzing tier for ingestion: generated file names, encodings and JSONL shapes, each
ingested next to good files. Properties: no exception leaves `ingest`, every good file is
indexed, and every generated file is either indexed or named in the report's skipped list.

The default run draws a few derandomised examples per test (seconds); the `fuzz` profile
draws many new ones: `pytest tests/reliability/test_ingest_fuzz.py --hypothesis-profile=fuzz`.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tellmemore.ingest.loaders.base import shown_path
from tests.ingest.helpers import Project

LONG = settings.default.max_examples >= 200  # the `fuzz` profile (tests/conftest.py)
FUZZ = settings(
    max_examples=settings.default.max_examples if LONG else 10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

GOOD = {
    "alpha.md": "# Alpha\n\nThe alpha router keeps tunnels up for 24 hours.\n",
    "beta.txt": "Beta notes\n\nBeta sites renew their certificates every 90 days.\n",
    "gamma.jsonl": '{"id": "gamma-1", "text": "Gamma gateways restart at midnight."}\n',
}
EXTENSIONS = [".md", ".txt", ".html", ".htm", ".jsonl", ".pdf", ".MD", "", ".bin"]

name_bytes = st.binary(min_size=1, max_size=40).map(
    lambda b: b.replace(b"/", b"_").replace(b"\x00", b"_").lstrip(b".") or b"x"
)
readable_names = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"),
    min_size=1,
    max_size=30,
).map(lambda s: s.lstrip(".").encode("utf-8") or b"x")
file_names = st.tuples(st.one_of(name_bytes, readable_names), st.sampled_from(EXTENSIONS)).map(
    lambda t: (t[0] + t[1].encode())[:200]
)

text = st.text(max_size=300)
encoded = st.one_of(
    st.tuples(text, st.sampled_from(["utf-8", "utf-16", "utf-32", "latin-1", "cp1252"])).map(
        lambda t: t[0].encode(t[1], errors="replace")
    ),
    text.map(lambda s: "\ufeff".encode() + s.encode("utf-8", errors="surrogatepass")),
    st.binary(max_size=400),
    st.just(b"%PDF-1.4\n" + b"garbage" * 20),
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
record = st.fixed_dictionaries(
    {},
    optional={
        "id": st.one_of(st.text(max_size=12), st.integers(), json_values),
        "_id": st.text(max_size=12),
        "text": st.one_of(st.text(max_size=80), json_values),
        "title": st.one_of(st.text(max_size=20), json_values),
        "url": st.one_of(st.text(max_size=20), st.just("javascript:alert(1)")),
        "version": json_values,
        "metadata": json_values,
    },
)


def _deep(n: int) -> str:
    return '{"id": "deep", "text": "x", "metadata": ' + "[" * n + "]" * n + "}"


jsonl_line = st.one_of(
    record.map(lambda r: json.dumps(r, ensure_ascii=False)),
    record.map(json.dumps),  # ASCII escapes, so surrogates can appear as \\udXXX
    json_values.map(json.dumps),
    st.integers(min_value=1, max_value=200_000).map(_deep),
    st.sampled_from(
        [
            '{"id": "s", "text": "lone \\ud800 surrogate"}',
            '{"id": "\\udfff", "text": "bad id"}',
            '{"id": "acme\\u001ffalcon.md", "text": "a tenant-looking id"}',
            "{not json",
            "",
            "   ",
        ]
    ),
    st.text(max_size=60),
)
jsonl_body = st.lists(jsonl_line, max_size=6).map(
    lambda lines: "\n".join(lines).encode("utf-8", errors="surrogatepass")
)

bad_files = st.lists(
    st.one_of(
        st.tuples(file_names, encoded),
        st.tuples(file_names.map(lambda n: n + b".jsonl"), jsonl_body),
    ),
    min_size=1,
    max_size=4,
    unique_by=lambda t: t[0],
)


def _ingest_next_to_good_files(files: list[tuple[bytes, bytes]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        docs = root / "docs"
        docs.mkdir()
        for name, body in GOOD.items():
            (docs / name).write_text(body)
        bad = os.path.join(os.fsencode(docs), b"zz-generated")
        os.mkdir(bad)
        written: list[str] = []
        for name, body in files:
            path = os.path.join(bad, name)
            with open(path, "wb") as fh:
                fh.write(body)
            written.append(shown_path(os.fsdecode(path)))
        project = Project(root / "project")
        report = project.run(docs)  # must not raise
        project.run(docs, sync=True)  # a second run with --sync must not raise either

        rows = project.state_rows("SELECT doc_id, source FROM documents")
        ids = {r["doc_id"] for r in rows}
        assert {"alpha.md", "beta.txt", "gamma-1"} <= ids, report.skipped
        sources = {r["source"] for r in rows}
        skipped = {
            s.path.rsplit(":", 1)[0] if s.path.rsplit(":", 1)[-1].isdigit() else s.path
            for s in report.skipped
        }
        for path in written:
            assert path in sources or path in skipped, (path, report)
        for reason in (s.reason for s in report.skipped):
            assert reason.strip()
            reason.encode("utf-8")  # printable: no lone surrogate reaches the report


@FUZZ
@given(bad_files)
@example([(b"caf\xe9.md", b"# Cafe\n\nLatin-1 name.\n")])
@example([(b"deep.jsonl", _deep(100_000).encode())])
@example([(b"s.jsonl", b'{"id": "s", "text": "lone \\ud800"}\n')])
@example([(b"x.txt", "caf\xe9 in latin-1 only".encode("latin-1"))])
def test_generated_files_never_cost_a_good_file(files: list[tuple[bytes, bytes]]) -> None:
    _ingest_next_to_good_files(files)


@FUZZ
@given(
    st.lists(
        st.tuples(file_names.map(lambda n: n + b".jsonl"), jsonl_body),
        min_size=1,
        max_size=3,
        unique_by=lambda t: t[0],
    )
)
def test_generated_jsonl_never_costs_a_good_file(files: list[tuple[bytes, bytes]]) -> None:
    _ingest_next_to_good_files(files)
