"""The ingestion pipeline on milvus-lite: the same chunks as on SQLite, idempotent reruns."""

from __future__ import annotations

from pathlib import Path

import pytest

from tellmemore.assistant import Assistant
from tellmemore.config import Settings
from tellmemore.ingest import sample_corpus_path
from tellmemore.testing.fakes import FakeEmbedder

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")

pytestmark = pytest.mark.milvus


def open_project(path: Path, uri: str | None) -> Assistant:
    index = {"uri": uri} if uri else {}
    return Assistant(Settings.load(path, index=index), embedder=FakeEmbedder(64))


def test_ingest_into_milvus_matches_sqlite_and_reruns_are_free(tmp_path: Path) -> None:
    sqlite = open_project(tmp_path / "sqlite", None)
    milvus = open_project(tmp_path / "milvus", f"milvus-lite:{tmp_path / 'milvus' / 'm.db'}")
    try:
        first = [a.ingest([sample_corpus_path()]) for a in (sqlite, milvus)]
        assert first[0].chunks_added == first[1].chunks_added > 0
        assert milvus.index.engine == "milvus"
        assert milvus.index.ids() == sqlite.index.ids()
        rerun = milvus.ingest([sample_corpus_path()])
        assert (rerun.chunks_embedded, rerun.chunks_added) == (0, 0)
        assert rerun.docs_unchanged == first[1].docs_added
        words = ["weekend", "escalation", "router", "refund", "pass"]
        assert milvus.index.term_stats(words) == sqlite.index.term_stats(words)
        hits = milvus.search("monthly pass price", mode="bm25")
        assert (
            hits[0].chunk.doc_id == sqlite.search("monthly pass price", mode="bm25")[0].chunk.doc_id
        )
    finally:
        sqlite.close()
        milvus.close()


def test_tenants_are_kept_apart_on_milvus(tmp_path: Path) -> None:
    milvus = open_project(tmp_path, f"milvus-lite:{tmp_path / 'm.db'}")
    try:
        milvus.ingest([sample_corpus_path() / "bike-rental"], tenant="acme")
        milvus.ingest([sample_corpus_path() / "status-page"], tenant="globex")
        acme = milvus.search("incident", tenant="acme", mode="bm25")
        globex = milvus.search("incident", tenant="globex", mode="bm25")
        assert globex and all(h.chunk.tenant == "globex" for h in globex)
        assert all(h.chunk.tenant == "acme" for h in acme)
        assert set(milvus.index.ids(tenant="acme")).isdisjoint(milvus.index.ids(tenant="globex"))
    finally:
        milvus.close()
