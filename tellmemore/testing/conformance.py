"""Conformance tests every `Index` engine must pass (SQLite, Milvus, ...).

Use as a mixin in a test module that provides two fixtures: `index` (an
empty index of dimension 64, closed by the fixture) and `fake_embedder`
(a `FakeEmbedder(64)`):

    class TestSQLiteIndex(IndexConformance):
        @pytest.fixture
        def index(self, tmp_path):
            idx = SQLiteIndex(tmp_path / "index.db", dimension=64)
            yield idx
            idx.close()

The corpus is tiny and written so that each assertion follows from the
protocol's semantics (index.base), not from one engine's scoring details.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from tellmemore.errors import TellMeMoreError
from tellmemore.index.base import Index, SearchRequest
from tellmemore.types import Chunk, Hit, SearchFilter, SearchMode

MODES = tuple(SearchMode)

TEXTS = {
    "weekend": "Weekend support is included in the Enterprise tier, around the clock.",
    "standard": "The Standard tier answers email on weekdays, from nine to five.",
    "refund": "Refunds are issued within 14 days of a cancelled booking.",
    "code": "Error ERR-4032 means the access token expired; sign in again.",
    "running": "Running jobs are listed on the dashboard while the runner runs.",
    "holiday": "On public holidays the office is closed and bookings move by one day.",
}

AWKWARD_QUERIES = (
    "",
    "   ",
    "the of and to",
    "?!.,;:",
    "AND OR NOT * ( ^ ",
    '"unbalanced quote',
    "NEAR(weekend support)",
    "body:weekend",
    "-refund +holiday",
    "weekend*",
    "ünïcödé 東京 ✓",
)


def make_chunk(key: str, text: str | None = None, **fields: Any) -> Chunk:
    """A chunk with id "c-KEY" in document "d-KEY" unless the fields say otherwise."""
    values: dict[str, Any] = {"id": f"c-{key}", "doc_id": f"d-{key}", "text": text or TEXTS[key]}
    values.update(fields)
    return Chunk(**values)


class IndexConformance:
    """Mixin of pytest tests over the `index` and `fake_embedder` fixtures."""

    # -- helpers ----------------------------------------------------------------------

    def put(self, index: Index, embedder: Any, chunks: Sequence[Chunk]) -> None:
        index.upsert(chunks, embedder.embed_documents([c.text for c in chunks]))

    def find(
        self,
        index: Index,
        embedder: Any,
        text: str,
        *,
        mode: SearchMode = SearchMode.HYBRID,
        k: int = 5,
        **request: Any,
    ) -> list[Hit]:
        return index.search(
            SearchRequest(text=text, vector=embedder.embed_query(text), k=k, mode=mode, **request)
        )

    def corpus(self, index: Index, embedder: Any) -> list[Chunk]:
        chunks = [
            make_chunk(key, tenant="acme" if i % 2 == 0 else "globex")
            for i, key in enumerate(TEXTS)
        ]
        self.put(index, embedder, chunks)
        return chunks

    def assert_valid(self, hits: list[Hit], k: int) -> None:
        assert len(hits) <= k
        assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True)
        assert len({h.chunk.id for h in hits}) == len(hits)

    # -- protocol surface -------------------------------------------------------------

    def test_is_an_index(self, index: Index) -> None:
        assert isinstance(index, Index)
        assert isinstance(index.engine, str) and index.engine
        assert isinstance(index.supports_hybrid, bool)

    @pytest.mark.parametrize("mode", MODES)
    def test_empty_index_returns_nothing(
        self, index: Index, fake_embedder: Any, mode: SearchMode
    ) -> None:
        assert index.count() == 0
        assert index.ids() == {}
        assert self.find(index, fake_embedder, "weekend support", mode=mode) == []

    # -- writes -----------------------------------------------------------------------

    def test_upsert_is_idempotent(self, index: Index, fake_embedder: Any) -> None:
        chunks = self.corpus(index, fake_embedder)
        before = index.ids()
        self.put(index, fake_embedder, chunks)
        assert index.count() == len(chunks)
        assert index.ids() == before
        hits = self.find(index, fake_embedder, "weekend support", mode=SearchMode.BM25, k=10)
        assert [h.chunk.id for h in hits].count("c-weekend") == 1

    def test_upsert_replaces_text_and_hash(self, index: Index, fake_embedder: Any) -> None:
        self.put(index, fake_embedder, [make_chunk("a", "alpha bravo", content_hash="h1")])
        self.put(index, fake_embedder, [make_chunk("a", "charlie delta", content_hash="h2")])
        assert index.count() == 1
        assert index.ids() == {"c-a": "h2"}
        assert self.find(index, fake_embedder, "alpha", mode=SearchMode.BM25) == []
        hits = self.find(index, fake_embedder, "charlie", mode=SearchMode.BM25)
        assert [h.chunk.text for h in hits] == ["charlie delta"]
        dense = self.find(index, fake_embedder, "charlie delta", mode=SearchMode.DENSE)
        assert dense[0].chunk.id == "c-a"
        assert dense[0].score == pytest.approx(1.0, abs=1e-4)

    def test_duplicate_ids_in_one_batch_keep_the_last(
        self, index: Index, fake_embedder: Any
    ) -> None:
        self.put(index, fake_embedder, [make_chunk("a", "first text"), make_chunk("a", "second")])
        assert index.count() == 1
        hits = self.find(index, fake_embedder, "second", mode=SearchMode.BM25)
        assert [h.chunk.text for h in hits] == ["second"]
        assert self.find(index, fake_embedder, "first", mode=SearchMode.BM25) == []

    def test_chunk_fields_round_trip(self, index: Index, fake_embedder: Any) -> None:
        chunk = make_chunk(
            "weekend",
            title="Cloud Connect",
            section=("Escalation", "Enterprise tier"),
            version="2024-05",
            url="https://example.com/cc#enterprise",
            tenant="acme",
            content_hash="abc123",
            metadata={"source": "docs/cc.md", "acl": ["support"], "n": 3},
        )
        self.put(index, fake_embedder, [chunk])
        hits = self.find(index, fake_embedder, "weekend support")
        assert hits[0].chunk == chunk

    def test_delete(self, index: Index, fake_embedder: Any) -> None:
        self.corpus(index, fake_embedder)
        assert index.delete(["c-weekend", "c-refund", "no-such-id"]) == 2
        assert index.delete(["c-weekend"]) == 0
        assert index.delete([]) == 0
        assert index.count() == len(TEXTS) - 2
        assert "c-weekend" not in index.ids()
        for mode in MODES:
            ids = {h.chunk.id for h in self.find(index, fake_embedder, "weekend", mode=mode, k=10)}
            assert "c-weekend" not in ids

    def test_ids_per_document_and_tenant(self, index: Index, fake_embedder: Any) -> None:
        self.put(
            index,
            fake_embedder,
            [
                make_chunk("a", "one", doc_id="doc1", tenant="t1", content_hash="h-a"),
                make_chunk("b", "two", doc_id="doc1", tenant="t1", content_hash="h-b"),
                make_chunk("c", "three", doc_id="doc2", tenant="t2", content_hash="h-c"),
            ],
        )
        assert index.ids() == {"c-a": "h-a", "c-b": "h-b", "c-c": "h-c"}
        assert index.ids("doc1") == {"c-a": "h-a", "c-b": "h-b"}
        assert index.ids(tenant="t2") == {"c-c": "h-c"}
        assert index.ids("doc1", tenant="t2") == {}
        assert index.ids("nope") == {}

    # -- search -----------------------------------------------------------------------

    @pytest.mark.parametrize("mode", MODES)
    def test_tenant_filter_isolates(
        self, index: Index, fake_embedder: Any, mode: SearchMode
    ) -> None:
        chunks = self.corpus(index, fake_embedder)
        for tenant in ("acme", "globex"):
            allowed = {c.id for c in chunks if c.tenant == tenant}
            hits = self.find(
                index, fake_embedder, "weekend support tier", mode=mode, k=10,
                filter=SearchFilter(tenant=tenant),
            )  # fmt: skip
            assert {h.chunk.id for h in hits} <= allowed
            assert all(h.chunk.tenant == tenant for h in hits)
        none = self.find(
            index, fake_embedder, "weekend", mode=mode, filter=SearchFilter(tenant="initech")
        )
        assert none == []

    @pytest.mark.parametrize("mode", MODES)
    def test_doc_filter(self, index: Index, fake_embedder: Any, mode: SearchMode) -> None:
        self.corpus(index, fake_embedder)
        wanted = ("d-standard", "d-holiday")
        hits = self.find(
            index, fake_embedder, "weekend support tier", mode=mode, k=10,
            filter=SearchFilter(doc_ids=wanted),
        )  # fmt: skip
        assert hits
        assert {h.chunk.doc_id for h in hits} <= set(wanted)
        both = self.find(
            index, fake_embedder, "weekend support tier", mode=mode, k=10,
            filter=SearchFilter(tenant="acme", doc_ids=("d-weekend", "d-standard")),
        )  # fmt: skip
        assert {h.chunk.id for h in both} <= {"c-weekend"}
        nothing = self.find(
            index, fake_embedder, "weekend", mode=mode, filter=SearchFilter(doc_ids=())
        )
        assert nothing == []

    @pytest.mark.parametrize("mode", MODES)
    @pytest.mark.parametrize("k", [1, 3, 50])
    def test_ranks_and_k(self, index: Index, fake_embedder: Any, mode: SearchMode, k: int) -> None:
        self.corpus(index, fake_embedder)
        hits = self.find(index, fake_embedder, "weekend support tier bookings", mode=mode, k=k)
        assert hits
        self.assert_valid(hits, k)

    def test_bm25_finds_stemmed_words_and_codes(self, index: Index, fake_embedder: Any) -> None:
        self.corpus(index, fake_embedder)
        hits = self.find(index, fake_embedder, "run", mode=SearchMode.BM25)
        assert [h.chunk.id for h in hits] == ["c-running"]
        assert hits[0].bm25 is not None and hits[0].bm25 > 0
        hits = self.find(index, fake_embedder, "what does ERR-4032 mean?", mode=SearchMode.BM25)
        assert hits[0].chunk.id == "c-code"

    def test_dense_ranks_by_cosine(self, index: Index, fake_embedder: Any) -> None:
        self.corpus(index, fake_embedder)
        hits = self.find(index, fake_embedder, TEXTS["refund"], mode=SearchMode.DENSE)
        assert hits[0].chunk.id == "c-refund"
        assert hits[0].dense == pytest.approx(1.0, abs=1e-4)
        assert all(-1.0 - 1e-5 <= (h.dense or 0.0) <= 1.0 + 1e-5 for h in hits)

    @pytest.mark.parametrize("fusion", ["convex", "rrf"])
    def test_hybrid_puts_the_chunk_matching_both_signals_first(
        self, index: Index, fake_embedder: Any, fusion: str
    ) -> None:
        self.corpus(index, fake_embedder)
        # Shares words with "weekend" (lexical and, for the hashing embedder, dense);
        # "standard" shares only "tier" and "support"-free words.
        hits = self.find(
            index, fake_embedder, "weekend support enterprise tier", fusion=fusion, k=3
        )
        assert hits[0].chunk.id == "c-weekend"
        assert hits[0].bm25 is not None and hits[0].dense is not None
        self.assert_valid(hits, 3)

    @pytest.mark.parametrize("mode", MODES)
    @pytest.mark.parametrize("query", AWKWARD_QUERIES)
    def test_awkward_queries_never_raise(
        self, index: Index, fake_embedder: Any, mode: SearchMode, query: str
    ) -> None:
        self.corpus(index, fake_embedder)
        hits = self.find(index, fake_embedder, query, mode=mode)
        self.assert_valid(hits, 5)
        if not query.strip():
            assert hits == []

    def test_wrong_vector_size_is_an_error(self, index: Index, fake_embedder: Any) -> None:
        chunk = make_chunk("weekend")
        with pytest.raises(TellMeMoreError):
            index.upsert([chunk], fake_embedder.embed_documents([chunk.text, "extra row"]))
        assert index.count() == 0

    # -- term statistics --------------------------------------------------------------

    def test_term_stats(self, index: Index, fake_embedder: Any) -> None:
        self.corpus(index, fake_embedder)
        stats = index.term_stats(["tier", "Tiers", "run", "Running", "zyzzyva", "the"])
        assert stats.n_chunks == len(TEXTS)
        assert stats.df["tier"] == 2
        assert stats.df["Tiers"] == 2  # stemmed like the index
        assert stats.df["run"] == 1
        assert stats.df["Running"] == 1
        assert stats.df["zyzzyva"] == 0
        assert stats.df["the"] >= 4
        assert stats.idf("zyzzyva") > stats.idf("tier") > stats.idf("the")

    def test_headings_are_the_distinct_title_and_section_paths(
        self, index: Index, fake_embedder: Any
    ) -> None:
        pricing = [
            make_chunk(k, title="Pricing", section=s, doc_id="pricing")
            for k, s in (("weekend", ("Pro",)), ("standard", ("Pro",)), ("refund", ()))
        ]
        self.put(index, fake_embedder, pricing)
        assert sorted(index.headings()) == ["Pricing", "Pricing > Pro"]
        assert index.headings() is index.headings(), "unchanged: the same sequence"
        index.delete([c.id for c in pricing[2:]])
        faq = make_chunk("code", title="FAQ", section=("Refunds",))
        self.put(index, fake_embedder, [faq])
        assert sorted(index.headings()) == ["FAQ > Refunds", "Pricing > Pro"]

    def test_term_stats_follow_writes(self, index: Index, fake_embedder: Any) -> None:
        self.corpus(index, fake_embedder)
        index.delete(["c-running"])
        stats = index.term_stats(["run"])
        assert stats.df == {"run": 0}
        assert stats.n_chunks == len(TEXTS) - 1
