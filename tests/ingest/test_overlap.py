"""Sentence overlap between consecutive chunks of a section (`chunking.overlap_sentences`).

A fact cut at a chunk boundary must stay whole in one chunk; the window is never
exceeded; prose only, never across sections; and at 0 nothing changes, so indexes
built before the setting existed are not re-embedded.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from tellmemore.assistant import Assistant
from tellmemore.config import ChunkingSettings, Settings
from tellmemore.errors import ConfigError
from tellmemore.eval.corpus import index_key
from tellmemore.eval.datasets import Dataset
from tellmemore.ingest import sample_corpus_path
from tellmemore.ingest.chunking import chunk_document, sentences
from tellmemore.ingest.loaders import load_sources
from tellmemore.ingest.pipeline import document_hash
from tellmemore.testing.fakes import FakeEmbedder
from tellmemore.types import Chunk

from .helpers import Project
from .test_chunking import ESCALATION, doc, newline_heavy, words


def body(chunk: Chunk) -> str:
    return chunk.text.split("\n\n", 1)[1]


def facts(n: int, start: int = 0) -> list[str]:
    """Paragraphs of three sentences, 20 `words` tokens: two fill a 60-token chunk, leaving
    room for two more sentences but not three."""
    return [
        f"Region {i} routes through Frankfurt. Region {i} fails over to Paris. "
        f"Region {i} is audited in May."
        for i in range(start, start + n)
    ]


def test_a_chunk_starts_with_the_last_sentence_of_the_previous_one() -> None:
    text = "## Regions\n\n" + "\n\n".join(facts(8))
    plain = chunk_document(doc(text), max_tokens=60, count_tokens=words)
    chunks = chunk_document(doc(text), max_tokens=60, count_tokens=words, overlap_sentences=1)
    assert len(chunks) == len(plain) == 4
    assert [c.id for c in chunks] == [c.id for c in plain]  # ids do not depend on the overlap
    assert all(words(c.text) <= 60 for c in chunks)
    assert chunks[0].text == plain[0].text  # the first chunk of a section has nothing before it
    for prev, cur, own in zip(chunks, chunks[1:], plain[1:], strict=False):
        last = sentences(body(prev))[-1]
        assert last.startswith("Region ") and last.endswith("is audited in May.")
        assert body(cur) == f"{last}\n\n{body(own)}"  # the overlap, then the chunk's own text
        assert cur.content_hash != own.content_hash


def test_overlap_drops_sentences_from_the_front_until_it_fits() -> None:
    text = "## Regions\n\n" + "\n\n".join(facts(6))
    plain = chunk_document(doc(text), max_tokens=60, count_tokens=words)
    for n in (2, 3, 5):
        chunks = chunk_document(doc(text), max_tokens=60, count_tokens=words, overlap_sentences=n)
        for prev, cur, own in zip(plain, chunks[1:], plain[1:], strict=False):
            assert words(cur.text) <= 60
            head = cur.text.split("\n\n", 1)[0]
            wanted = sentences(body(prev))[-n:]
            while wanted and words(f"{head}\n\n{' '.join(wanted)}\n\n{body(own)}") > 60:
                wanted = wanted[1:]
            assert len(wanted) == 2  # the room left holds two sentences, never three
            assert body(cur) == f"{' '.join(wanted)}\n\n{body(own)}"


def test_overlap_zero_is_exactly_the_chunking_without_the_argument() -> None:
    rng = random.Random(3)
    texts = [ESCALATION, "## Regions\n\n" + "\n\n".join(facts(8))]
    texts += [" ".join(rng.choices(facts(20), k=12)) for _ in range(5)]
    for text in texts:
        for max_tokens in (32, 60, 128):
            default = chunk_document(doc(text), max_tokens=max_tokens, count_tokens=words)
            zero = chunk_document(
                doc(text), max_tokens=max_tokens, count_tokens=words, overlap_sentences=0
            )
            assert zero == default


def test_no_overlap_across_sections() -> None:
    text = "## Paris\n\n" + "\n\n".join(facts(4)) + "\n\n## Berlin\n\n" + "\n\n".join(facts(4, 10))
    plain = chunk_document(doc(text), max_tokens=60, count_tokens=words)
    chunks = chunk_document(doc(text), max_tokens=60, count_tokens=words, overlap_sentences=2)
    first_berlin = next(i for i, c in enumerate(chunks) if c.section == ("Berlin",))
    assert first_berlin > 1 and chunks[first_berlin - 1].section == ("Paris",)
    assert chunks[first_berlin].text == plain[first_berlin].text
    # ... while within each section the overlap does happen.
    assert chunks[first_berlin + 1].text != plain[first_berlin + 1].text
    assert chunks[1].text != plain[1].text


@pytest.mark.parametrize(
    "block",
    [
        "| Plan | Price |\n| --- | --- |\n| Pro. | 299. |",
        "```\nroute add 10.0.0.0/8. Then save.\n```",
        "- Call the hotline. Ask for the duty manager.\n- Write it down.",
    ],
    ids=["table", "code", "list"],
)
def test_no_overlap_after_a_table_code_or_list(block: str) -> None:
    """A chunk ending with a table row, code or a list is followed by no repeated text."""
    text = f"## Plans\n\n{facts(1)[0]}\n\n{block}\n\nShort closing note. It has room to spare."
    plain = chunk_document(doc(text), max_tokens=52, count_tokens=words)
    chunks = chunk_document(doc(text), max_tokens=52, count_tokens=words, overlap_sentences=1)
    assert [body(c).endswith(block) for c in plain] == [True, False]  # the block ends chunk 1
    assert [c.text for c in chunks] == [c.text for c in plain]
    # A paragraph of the same size in place of the block is repeated: there was room.
    filler = "Filler " * (words(block) - 8) + "here. It ends with this sentence."
    assert words(filler) == words(block)
    prose = chunk_document(
        doc(text.replace(block, filler)), max_tokens=52, count_tokens=words, overlap_sentences=1
    )
    assert body(prose[1]).startswith("It ends with this sentence.\n\nShort closing note.")


@pytest.mark.parametrize("count", [words, newline_heavy])
def test_random_documents_fit_and_overlap_only_repeats_previous_prose(count) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(11)
    vocab = ["tunnel", "route", "Frankfurt", "CC-PRO-2026", "weekend", "holiday", "a", "the"]
    for trial in range(25):
        parts = []
        for _ in range(rng.randint(2, 10)):
            kind = rng.choice(["h", "p", "p", "p", "list", "table", "code"])
            if kind == "h":
                parts.append("## " + " ".join(rng.choices(vocab, k=rng.randint(1, 4))))
            elif kind == "p":
                parts.append(
                    " ".join(
                        " ".join(rng.choices(vocab, k=rng.randint(2, 14))) + rng.choice(".!?")
                        for _ in range(rng.randint(1, 8))
                    )
                )
            elif kind == "list":
                parts.append("\n".join(f"- {rng.choice(vocab)}." for _ in range(rng.randint(1, 5))))
            elif kind == "table":
                parts.append("| a | b |\n| --- | --- |\n| x. | y. |")
            else:
                parts.append("```\nx = 1. y = 2.\n```")
        text = "\n\n".join(parts)
        max_tokens = rng.choice([32, 48, 64, 96])
        n = rng.randint(1, 5)
        plain = chunk_document(doc(text), max_tokens=max_tokens, count_tokens=count)
        chunks = chunk_document(
            doc(text), max_tokens=max_tokens, count_tokens=count, overlap_sentences=n
        )
        assert [c.id for c in chunks] == [c.id for c in plain], trial
        for i, (cur, own) in enumerate(zip(chunks, plain, strict=True)):
            assert count(cur.text) <= max_tokens, (trial, cur.text)
            if cur.text == own.text:
                continue
            prev = plain[i - 1]
            assert i > 0 and prev.section == own.section, trial
            assert body(cur).endswith("\n\n" + body(own)), trial
            repeated = body(cur)[: -len(body(own)) - 2]
            tail = body(prev).rsplit("\n\n", 1)[-1]
            assert not re.match(r"\s*[|`-]", tail.splitlines()[-1]), (trial, tail)
            got = sentences(repeated)
            assert 1 <= len(got) <= n and sentences(tail)[-len(got) :] == got, trial


# ---------------------------------------------------------------- hashes and ingestion


def test_document_hash_changes_with_the_overlap_and_not_by_default() -> None:
    document = doc(ESCALATION)
    base = document_hash(document, chunk_tokens=96, embedder="fake", tenant="")
    # Pinned: this default hash must never change, or every existing index re-embeds
    # (intended only with a CHUNKER_VERSION bump, which changes it anyway: 4 since the
    # markdown-it parse, 5 since a table's delimiter row is written short).
    assert base == "d7bcdf5bc30b603362a8f59ba2078bca38f050a89d8e6133b8847d9a1926a45b"
    assert base == document_hash(
        document, chunk_tokens=96, embedder="fake", tenant="", overlap_sentences=0
    )
    with_overlap = {
        n: document_hash(document, chunk_tokens=96, embedder="fake", tenant="", overlap_sentences=n)
        for n in (1, 2)
    }
    assert len({base, *with_overlap.values()}) == 3


def test_eval_index_key_keeps_existing_cache_keys_and_changes_with_the_overlap() -> None:
    dataset = Dataset(
        name="cloud",
        path=Path("/data/cloud"),
        turns=(),
        skipped=(),
        corpus_hash="c0ffee",
        conversations_hash="beef",
        n_passages=0,
    )
    embedder = FakeEmbedder()
    key = index_key(dataset, embedder, 192)
    assert key == "1bb2016709fbf7e5"  # pinned: cached evaluation indexes stay valid
    assert index_key(dataset, embedder, 192, 0) == key
    assert (
        len({key, index_key(dataset, embedder, 192, 1), index_key(dataset, embedder, 192, 2)}) == 3
    )


def test_changing_the_overlap_rechunks_to_what_a_clean_run_gives(
    tmp_path: Path,
) -> None:
    project = Project(tmp_path / "project")
    first = project.run(sample_corpus_path())
    before = project.snapshot()

    zero = project.run(sample_corpus_path(), overlap_sentences=0)
    assert zero.chunks_embedded == 0 and zero.docs_updated == 0  # 0 is the old default

    one = project.run(sample_corpus_path(), overlap_sentences=1)
    after = project.snapshot()
    changed = {cid for cid in after if after[cid] != before[cid]}
    assert set(after) == set(before)  # same ids: only the texts of some chunks changed
    assert one.docs_updated > 0 and one.chunks_embedded == one.chunks_updated == len(changed) > 0
    assert one.chunks_unchanged == first.chunks_added - len(changed)
    assert one.chunks_added == one.chunks_deleted == 0
    clean = Project(tmp_path / "clean")
    clean.run(sample_corpus_path(), overlap_sentences=1)
    assert after == clean.snapshot()

    again = project.run(sample_corpus_path(), overlap_sentences=1)
    assert again.chunks_embedded == 0 and again.docs_updated == 0

    back = project.run(sample_corpus_path())
    assert back.chunks_embedded == len(changed)
    assert project.snapshot() == before


def test_negative_overlap_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"overlap_sentences=-1 is negative"):
        Project(tmp_path / "p").run(sample_corpus_path(), overlap_sentences=-1)
    with pytest.raises(ValueError, match=r"overlap_sentences must be >= 0, got -1"):
        chunk_document(doc(ESCALATION), max_tokens=60, count_tokens=words, overlap_sentences=-1)


def test_the_assistant_ingests_with_the_overlap_setting(tmp_path: Path) -> None:
    embedder = FakeEmbedder()
    n_docs = len(load_sources([sample_corpus_path()]).documents)

    def ingest(overlap: int) -> tuple[int, int]:
        settings = Settings(
            project_dir=tmp_path / "p",
            chunking=ChunkingSettings(max_tokens=96, overlap_sentences=overlap),
        )
        assistant = Assistant(settings, embedder=embedder)
        try:
            report = assistant.ingest([sample_corpus_path()])
        finally:
            assistant.close()
        return report.docs_updated, report.chunks_embedded

    first = ingest(0)
    assert first[0] == 0 and first[1] > 0
    updated, embedded = ingest(2)
    assert 0 < updated <= n_docs and 0 < embedded < first[1]
    assert ingest(2) == (0, 0)
