"""Hostile files and names at ingestion (issue 24): each bad input costs only itself.

Every case is ingested next to good files; the good files must all be indexed and the
bad one skipped with its reason in the report (or ingested on its own), never an
exception out of `ingest`.
"""

from __future__ import annotations

import os
import sqlite3
import zlib
from pathlib import Path

import pytest

from tellmemore.state.db import StateDB
from tests.ingest.helpers import Project

GOOD = {
    "alpha.md": "# Alpha\n\nThe alpha router keeps tunnels up for 24 hours.\n",
    "beta.txt": "Beta notes\n\nBeta sites renew their certificates every 90 days.\n",
}


def _good_folder(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in GOOD.items():
        (folder / name).write_text(text)
    return folder


def _doc_ids(project: Project, tenant: str = "") -> set[str]:
    rows = project.state_rows(f"SELECT doc_id FROM documents WHERE tenant = '{tenant}'")
    return {r["doc_id"] for r in rows}


def _assert_good_kept(project: Project, report_ids: set[str] | None = None) -> None:
    ids = _doc_ids(project)
    assert set(GOOD) <= ids, ids


# -- 1. tenant document keys ---------------------------------------------------------------


def test_a_default_tenant_id_cannot_overwrite_another_tenants_row(tmp_path: Path) -> None:
    project = Project(tmp_path / "project")
    acme = tmp_path / "acme"
    acme.mkdir()
    (acme / "falcon.md").write_text("# Falcon\n\nFalcon plans cost 40 euros a month.\n")
    (acme / "kestrel.md").write_text("# Kestrel\n\nKestrel plans cost 12 euros a month.\n")
    project.run(acme, tenant="acme")

    attacker = tmp_path / "default"
    attacker.mkdir()
    (attacker / "hostile.jsonl").write_text(
        '{"id": "acme\\u001ffalcon.md", "text": "Falcon is free for everyone."}\n'
    )
    project.run(attacker)

    # acme deletes falcon.md and syncs: its chunks must leave the index.
    (acme / "falcon.md").unlink()
    report = project.run(acme, tenant="acme", sync=True)
    assert report.docs_deleted == 1
    conn = sqlite3.connect(project.root / "index.db")
    left = {r[0] for r in conn.execute("SELECT doc_id FROM chunks WHERE tenant = 'acme'")}
    conn.close()
    assert left == {"kestrel.md"}
    assert _doc_ids(project, "acme") == {"kestrel.md"}
    assert _doc_ids(project, "") == {"acme\x1ffalcon.md"}


def test_migration_0006_keeps_every_existing_row(tmp_path: Path) -> None:
    """A state.db written before the key change keeps its rows, split into (tenant, id)."""
    from tellmemore.state.migrations import MIGRATIONS

    path = tmp_path / "state.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
    for name, sql in [m for m in MIGRATIONS if m[0] < "0006"]:
        conn.executescript(sql)
        conn.execute("INSERT INTO _migrations VALUES (?, 0)", (name,))
    rows = [
        ("faq.md", "", "/d/faq.md"),
        ("acme\x1ffaq.md", "acme", "/a/faq.md"),
        ("acme\x1fsub/x.md", "acme", "/a/sub/x.md"),
    ]
    conn.executemany(
        "INSERT INTO documents (doc_id, tenant, source, content_hash, chunk_ids, updated_at) "
        "VALUES (?, ?, ?, 'h', '[]', 0)",
        rows,
    )
    conn.executemany(
        "INSERT INTO journal VALUES (?, 'run', 'h', 0)", [("faq.md",), ("acme\x1fnew.md",)]
    )
    conn.close()

    state = StateDB(path)
    got = {(r["tenant"], r["doc_id"], r["source"]) for r in state.query("SELECT * FROM documents")}
    journal = {(r["tenant"], r["doc_id"]) for r in state.query("SELECT * FROM journal")}
    state.close()
    assert got == {
        ("", "faq.md", "/d/faq.md"),
        ("acme", "faq.md", "/a/faq.md"),
        ("acme", "sub/x.md", "/a/sub/x.md"),
    }
    assert journal == {("", "faq.md"), ("acme", "new.md")}


# -- 2. one bad input must not abort the run -------------------------------------------------


def _report_paths(report) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {s.path: s.reason for s in report.skipped}


def test_a_non_utf8_file_name_is_skipped_and_the_rest_ingested(tmp_path: Path) -> None:
    docs = _good_folder(tmp_path / "docs")
    bad_dir = os.path.join(os.fsencode(docs), b"caf\xe9")
    os.mkdir(bad_dir)
    with open(os.path.join(bad_dir, b"inside.md"), "wb") as fh:
        fh.write(b"# Inside\n\nA file under a Latin-1 folder name.\n")
    with open(os.path.join(os.fsencode(docs), b"na\xefve.md"), "wb") as fh:
        fh.write(b"# Naive\n\nA Latin-1 file name.\n")
    project = Project(tmp_path / "project")
    report = project.run(docs)
    _assert_good_kept(project)
    reasons = list(_report_paths(report).values())
    assert len(reasons) == 2 and all("not valid UTF-8" in r for r in reasons), reasons
    # The reported paths are printable (no lone surrogates) and name the bytes.
    for path in _report_paths(report):
        path.encode("utf-8")
        assert "\\xe9" in path or "\\xef" in path


def test_a_deeply_nested_jsonl_line_is_one_skipped_record(tmp_path: Path) -> None:
    docs = _good_folder(tmp_path / "docs")
    depth = 100_000
    deep = '{"id": "deep", "text": "x", "metadata": ' + '{"a": ' * depth + "1" + "}" * depth + "}"
    (docs / "corpus.jsonl").write_text(
        '{"id": "ok1", "text": "First record about gateways."}\n'
        + deep
        + "\n"
        + '{"id": "ok2", "text": "Second record about tunnels."}\n'
    )
    project = Project(tmp_path / "project")
    report = project.run(docs)
    _assert_good_kept(project)
    assert {"ok1", "ok2"} <= _doc_ids(project)
    [(where, reason)] = _report_paths(report).items()
    assert where.endswith("corpus.jsonl:2") and "nested too deeply" in reason


def test_moderately_nested_metadata_is_refused_before_it_reaches_the_hash(
    tmp_path: Path,
) -> None:
    docs = _good_folder(tmp_path / "docs")
    depth = 900  # parses, but json.dumps of the document hash would recurse past the limit
    deep = '{"id": "deep", "text": "x", "metadata": ' + '{"a": ' * depth + "1" + "}" * depth + "}"
    (docs / "corpus.jsonl").write_text(deep + "\n")
    project = Project(tmp_path / "project")
    report = project.run(docs)
    _assert_good_kept(project)
    [reason] = _report_paths(report).values()
    assert "nested too deeply" in reason


def test_a_lone_surrogate_in_a_jsonl_record(tmp_path: Path) -> None:
    docs = _good_folder(tmp_path / "docs")
    (docs / "corpus.jsonl").write_text(
        '{"id": "sur", "title": "T\\udc80", "text": "Broken \\ud800 text about gateways."}\n'
        '{"id": "bad\\udfff", "text": "An id that is not Unicode."}\n'
        '{"id": "ok", "text": "A clean record."}\n'
    )
    project = Project(tmp_path / "project")
    report = project.run(docs)
    _assert_good_kept(project)
    ids = _doc_ids(project)
    assert {"ok", "sur"} <= ids  # the text keeps its words, the surrogate becomes U+FFFD
    [(where, reason)] = _report_paths(report).items()
    assert where.endswith("corpus.jsonl:2") and "surrogate" in reason
    assert any("sur" in w and "U+FFFD" in w for w in report.warnings), report.warnings


# -- 3. not a regular file -------------------------------------------------------------------


def test_a_fifo_is_skipped_not_waited_on(tmp_path: Path) -> None:
    docs = _good_folder(tmp_path / "docs")
    os.mkfifo(docs / "pipe.md")
    project = Project(tmp_path / "project")
    report = project.run(docs)  # today this blocks forever in open()
    _assert_good_kept(project)
    [(where, reason)] = _report_paths(report).items()
    assert where.endswith("pipe.md") and "not a regular file" in reason


# -- 4. PDF text bomb ------------------------------------------------------------------------


def _bomb_pdf(repeats: int, line: str = "A" * 200, lines: int = 1) -> bytes:
    """A small PDF whose one page draws a form XObject of `lines` lines `repeats` times:
    text multiplies (pypdf stops at 5,000 form invocations; 5,000 x 100 lines x 200
    characters is 100 million characters from a few KB)."""
    shown = " ".join(f"({line}) Tj" for _ in range(lines))
    form = zlib.compress(f"BT /F1 8 Tf 10 10 Td {shown} ET".encode())
    content = zlib.compress(b"q /X0 Do Q\n" * repeats)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R "
        b"/Resources << /Font << /F1 3 0 R >> /XObject << /X0 6 0 R >> >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(content)
        + content
        + b"\nendstream",
        b"<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] "
        b"/Resources << /Font << /F1 3 0 R >> >> /Length %d /Filter /FlateDecode >>\nstream\n"
        % len(form)
        + form
        + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def test_a_pdf_text_bomb_is_skipped_at_the_text_limit(tmp_path: Path) -> None:
    docs = _good_folder(tmp_path / "docs")
    bomb = _bomb_pdf(5_000, lines=100)  # 100 million characters from a few KB
    assert len(bomb) < 20_000
    (docs / "bomb.pdf").write_bytes(bomb)
    project = Project(tmp_path / "project")
    report = project.run(docs, max_text_chars=200_000)
    _assert_good_kept(project)
    [(where, reason)] = _report_paths(report).items()
    assert where.endswith("bomb.pdf")
    assert "200,000 characters" in reason and "ingest.max_text_chars" in reason


def test_a_pdf_under_the_text_limit_is_ingested(tmp_path: Path) -> None:
    docs = _good_folder(tmp_path / "docs")
    (docs / "small.pdf").write_bytes(_bomb_pdf(50, "Routers renew keys hourly. " * 4))
    project = Project(tmp_path / "project")
    report = project.run(docs, max_text_chars=200_000)
    assert report.skipped == ()
    assert "small.pdf" in _doc_ids(project)


def test_text_files_over_the_text_limit_are_skipped_too(tmp_path: Path) -> None:
    docs = _good_folder(tmp_path / "docs")
    (docs / "huge.md").write_text("# Huge\n\n" + "word " * 50_000)
    project = Project(tmp_path / "project")
    report = project.run(docs, max_text_chars=100_000)
    _assert_good_kept(project)
    [(where, reason)] = _report_paths(report).items()
    assert where.endswith("huge.md") and "ingest.max_text_chars" in reason


# -- 11. symlinks out of the tree ------------------------------------------------------------


def test_a_symlink_out_of_the_ingested_folder_is_not_followed(tmp_path: Path) -> None:
    docs = _good_folder(tmp_path / "docs")
    secret = tmp_path / "outside" / "secret.md"
    secret.parent.mkdir()
    secret.write_text("# Secret\n\nThe root password is hunter2.\n")
    (docs / "passwd.md").symlink_to(secret)
    (docs / "inside.md").symlink_to(docs / "alpha.md")  # inside the tree: fine
    project = Project(tmp_path / "project")
    report = project.run(docs)
    _assert_good_kept(project)
    assert "passwd.md" not in _doc_ids(project)
    assert "inside.md" in _doc_ids(project)
    [(where, reason)] = _report_paths(report).items()
    assert where.endswith("passwd.md") and "outside the ingested folder" in reason
    # Asked to, it follows the link.
    again = Project(tmp_path / "project2").run(docs, follow_symlinks=True)
    assert again.skipped == ()


def test_a_symlink_given_directly_is_followed(tmp_path: Path) -> None:
    secret = tmp_path / "outside.md"
    secret.write_text("# Outside\n\nGiven on the command line on purpose.\n")
    link = tmp_path / "link.md"
    link.symlink_to(secret)
    report = Project(tmp_path / "project").run(link)
    assert report.docs_added == 1 and report.skipped == ()


def test_the_settings_reach_ingestion(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, open_assistant
) -> None:  # type: ignore[no-untyped-def]
    docs = _good_folder(tmp_path / "docs")
    outside = tmp_path / "outside.md"
    outside.write_text("# Outside\n\nOutside the folder.\n")
    (docs / "link.md").symlink_to(outside)
    (docs / "long.md").write_text("# Long\n\n" + "word " * 1000)
    assistant = open_assistant(tmp_path / "p")
    report = assistant.ingest([docs])
    assert {Path(s.path).name for s in report.skipped} == {"link.md"}
    monkeypatch.setenv("TELLMEMORE_INGEST__FOLLOW_SYMLINKS", "true")
    monkeypatch.setenv("TELLMEMORE_INGEST__MAX_TEXT_CHARS", "2000")
    assistant = open_assistant(tmp_path / "q")
    report = assistant.ingest([docs])
    assert {Path(s.path).name for s in report.skipped} == {"long.md"}
    assert report.docs_added == 3


# -- 11. moving the docs folder --------------------------------------------------------------


def test_moving_the_docs_folder_re_embeds_nothing_and_sync_leaves_no_old_path(
    tmp_path: Path,
) -> None:
    import shutil

    from tests.ingest.helpers import copy_sample

    corpus = copy_sample(tmp_path / "old" / "docs")
    project = Project(tmp_path / "project")
    first = project.run(corpus)
    before = project.snapshot()
    moved = tmp_path / "new" / "docs"
    moved.parent.mkdir()
    shutil.move(str(corpus), str(moved))
    report = project.run(moved, sync=True)
    assert report.chunks_embedded == 0  # it re-embedded all 50 chunks before
    assert report.docs_deleted == 0 and report.docs_added == 0
    assert {cid: v[3] for cid, v in project.snapshot().items()} == {
        cid: v[3] for cid, v in before.items()
    }  # the same chunks, the same vectors
    sources = {r["source"] for r in project.state_rows("SELECT source FROM documents")}
    assert len(sources) == first.docs_added
    assert all(s.startswith(moved.as_posix()) for s in sources)
