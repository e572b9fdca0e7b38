"""The sample corpus through the real MiniLM: chunks fit its window, and retrieval finds them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tellmemore.index.base import SearchRequest
from tellmemore.index.sqlite import SQLiteIndex
from tellmemore.ingest import sample_corpus_path
from tellmemore.ingest.chunking import SPECIAL_TOKENS, default_chunk_tokens
from tellmemore.types import SearchMode

from .helpers import Project

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory, minilm):  # type: ignore[no-untyped-def]
    project = Project(
        tmp_path_factory.mktemp("model") / "project",
        embedder=minilm,
        chunk_tokens=default_chunk_tokens(5, minilm.max_tokens),
    )
    first = project.run(sample_corpus_path())
    return project, first


def test_every_chunk_fits_the_model_window_with_its_header(ingested, minilm) -> None:  # type: ignore[no-untyped-def]
    project, first = ingested
    assert first.skipped == () and first.chunks_embedded > 0
    index = SQLiteIndex(project.root / "index.db", dimension=minilm.dimension)
    try:
        chunks = index.get(list(index.ids()))
    finally:
        index.close()
    assert len(chunks) == first.chunks_added
    for chunk in chunks:
        assert minilm.count_tokens(chunk.text) <= project.chunk_tokens
        assert minilm.count_tokens(chunk.text) + SPECIAL_TOKENS <= minilm.max_tokens
        assert chunk.text.startswith(chunk.header + "\n\n")


def test_a_rerun_with_the_real_model_embeds_nothing(ingested) -> None:  # type: ignore[no-untyped-def]
    project, first = ingested
    again = project.run(sample_corpus_path())
    assert again.chunks_embedded == 0
    assert again.chunks_unchanged == first.chunks_added


@pytest.mark.parametrize(
    ("query", "doc_id", "section"),
    [
        (
            "Do Enterprise escalations cover weekends?",
            "cloud-connect/escalation.md",
            ("Enterprise tier",),
        ),
        ("How much is the late fee for a bike?", "bike-rental/policy.md", ("Late returns",)),
        (
            "What does plan code CC-PRO-2026 cost per month?",
            "cloud-connect/plans-and-pricing.md",
            None,
        ),
        (
            "Which firmware does the Norrland NR-500 need?",
            "cloud-connect/supported-routers.pdf",
            None,
        ),
    ],
)
def test_hybrid_search_finds_the_right_passage(  # type: ignore[no-untyped-def]
    ingested, minilm, query: str, doc_id: str, section: tuple[str, ...] | None
) -> None:
    project, _ = ingested
    index = SQLiteIndex(Path(project.root / "index.db"), dimension=minilm.dimension)
    try:
        hits = index.search(
            SearchRequest(query, minilm.embed_query(query), k=3, mode=SearchMode.HYBRID)
        )
    finally:
        index.close()
    top = hits[0].chunk
    assert top.doc_id == doc_id, [h.chunk.header for h in hits]
    if section is not None:
        assert top.section == section
