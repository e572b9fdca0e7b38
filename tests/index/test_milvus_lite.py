"""MilvusIndex behaviour beyond the conformance suite, on milvus-lite in tmp_path (`-m milvus`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tellmemore.config import Settings
from tellmemore.errors import IndexError_, InputError
from tellmemore.index import open_index
from tellmemore.index.base import SearchRequest
from tellmemore.index.milvus import MilvusIndex, parse_uri
from tellmemore.testing.conformance import TEXTS, make_chunk
from tellmemore.testing.fakes import FakeEmbedder
from tellmemore.types import SearchFilter, SearchMode

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")


pytestmark = pytest.mark.milvus


def lite(tmp_path: Path, *, dimension: int | None = 64, **kwargs: object) -> MilvusIndex:
    where = parse_uri(f"milvus-lite:{tmp_path / 'm.db'}", project_dir=tmp_path, collection="c")
    return MilvusIndex(where, dimension=dimension, collection="c", **kwargs)  # type: ignore[arg-type]


@pytest.fixture
def index(tmp_path: Path) -> Iterator[MilvusIndex]:
    idx = lite(tmp_path)
    yield idx
    idx.close()


def put(index: MilvusIndex, emb: FakeEmbedder, chunks: list) -> None:  # type: ignore[type-arg]
    index.upsert(chunks, emb.embed_documents([c.text for c in chunks]))


def corpus(index: MilvusIndex, emb: FakeEmbedder) -> None:
    put(index, emb, [make_chunk(key, content_hash=f"h-{key}") for key in TEXTS])


def test_reopen_keeps_chunks_and_term_stats(tmp_path: Path, fake_embedder: FakeEmbedder) -> None:
    first = lite(tmp_path, embedder="fake")
    corpus(first, fake_embedder)
    before = first.term_stats(["tier", "run", "weekend"])
    first.close()
    again = lite(tmp_path, embedder="fake")
    try:
        assert again.count() == len(TEXTS)
        assert again.term_stats(["tier", "run", "weekend"]) == before
        assert again.embedder_name == "fake"
        hits = again.search(
            SearchRequest("refund", fake_embedder.embed_query("refund"), mode=SearchMode.BM25)
        )
        assert hits[0].chunk.id == "c-refund"
    finally:
        again.close()


def test_lost_side_table_is_rebuilt_from_the_collection(
    tmp_path: Path, fake_embedder: FakeEmbedder
) -> None:
    first = lite(tmp_path)
    corpus(first, fake_embedder)
    before = first.term_stats(["tier", "the", "run", "err-4032"])
    terms_path = first.location.terms_path
    first.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{terms_path}{suffix}").unlink(missing_ok=True)
    again = lite(tmp_path)
    try:
        assert again.term_stats(["tier", "the", "run", "err-4032"]) == before
        assert before.df["tier"] == 2 and before.df["err-4032"] == 1
    finally:
        again.close()


def test_other_dimension_or_embedder_is_refused(tmp_path: Path) -> None:
    lite(tmp_path, embedder="minilm").close()
    with pytest.raises(IndexError_, match=r"dimension 64 but the embedder gives dimension 32"):
        lite(tmp_path, dimension=32)
    with pytest.raises(IndexError_, match=r"built with embedder 'minilm', not 'other'"):
        lite(tmp_path, embedder="other")
    opened = lite(tmp_path, dimension=None)  # an existing collection at its own dimension
    assert opened.dimension == 64
    opened.close()


def test_missing_collection_without_dimension(tmp_path: Path) -> None:
    with pytest.raises(IndexError_, match="does not exist"):
        lite(tmp_path, dimension=None)


def test_hostile_values_are_escaped_in_filters(
    index: MilvusIndex, fake_embedder: FakeEmbedder
) -> None:
    odd = ['q"uote', "back\\slash", "new\nline", "' or 1==1 or '", "東京"]
    chunks = [
        make_chunk(str(i), f"weekend support {i}", id=v, doc_id=v, tenant=v)
        for i, v in enumerate(odd)
    ]
    put(index, fake_embedder, chunks)
    for value in odd:
        assert list(index.ids(value)) == [value]
        assert list(index.ids(tenant=value)) == [value]
        for mode in SearchMode:
            hits = index.search(
                SearchRequest(
                    "weekend support",
                    fake_embedder.embed_query("weekend support"),
                    k=10,
                    mode=mode,
                    filter=SearchFilter(tenant=value, doc_ids=(value,)),
                )
            )
            assert [h.chunk.id for h in hits] == [value]
    assert index.delete(odd[:2]) == 2
    assert sorted(index.ids()) == sorted(odd[2:])


def test_scores_are_normalised(index: MilvusIndex, fake_embedder: FakeEmbedder) -> None:
    corpus(index, fake_embedder)
    query = "weekend support enterprise tier"
    vec = fake_embedder.embed_query(query)
    bm25 = index.search(SearchRequest(query, vec, k=6, mode=SearchMode.BM25))
    assert bm25 and all(h.score > 0 and h.bm25 == h.score for h in bm25)
    dense = index.search(SearchRequest(query, vec, k=6, mode=SearchMode.DENSE))
    assert all(-1.0 <= h.score <= 1.0 and h.dense == h.score for h in dense)
    rrf = index.search(SearchRequest(query, vec, k=3, fusion="rrf"))
    assert rrf[0].score == pytest.approx(2 / 61)  # first in both lists, RRF k=60
    assert rrf[0].bm25 == pytest.approx(bm25[0].score)
    assert rrf[0].dense == pytest.approx(dense[0].score, abs=1e-5)
    convex = index.search(SearchRequest(query, vec, k=3, fusion="convex", bm25_weight=0.35))
    assert convex[0].score == pytest.approx(1.0)  # best on both normalised signals


def test_many_chunks_in_batches(index: MilvusIndex, fake_embedder: FakeEmbedder) -> None:
    chunks = [make_chunk(f"n{i:04d}", f"note {i} about topic{i % 7}") for i in range(700)]
    put(index, fake_embedder, chunks)
    assert index.count() == 700
    assert len(index.ids()) == 700
    assert index.term_stats(["topic3", "note"]).df == {"topic3": 100, "note": 700}
    assert index.delete([c.id for c in chunks[:650]]) == 650
    assert index.count() == 50
    assert index.term_stats(["note"]).df == {"note": 50}


def test_oversized_field_is_an_input_error(index: MilvusIndex, fake_embedder: FakeEmbedder) -> None:
    chunk = make_chunk("big", "x" * 70_000)
    with pytest.raises(InputError, match=r"chunk 'c-big': field text is 70000 bytes"):
        put(index, fake_embedder, [chunk])
    assert index.count() == 0
    assert index.term_stats(["x"]).n_chunks == 0


def test_two_handles_on_one_lite_path(tmp_path: Path, fake_embedder: FakeEmbedder) -> None:
    a = lite(tmp_path)
    b = lite(tmp_path)
    corpus(a, fake_embedder)
    a.close()
    assert b.count() == len(TEXTS)  # the shared in-process server outlives the first handle
    b.close()


def test_unreachable_server_names_the_uri_and_the_way_back(tmp_path: Path) -> None:
    where = parse_uri("milvus://127.0.0.1:1", project_dir=tmp_path, collection="c")
    with pytest.raises(IndexError_, match=r"127\.0\.0\.1:1.*docker compose.*unset index.uri"):
        MilvusIndex(where, dimension=8, collection="c")


def test_open_index_routes_milvus_lite(project_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TELLMEMORE_INDEX__URI", f"milvus-lite:{project_dir / 'lite.db'}")
    monkeypatch.setenv("TELLMEMORE_INDEX__COLLECTION", "proj_a")
    index = open_index(Settings.load(project_dir), dimension=16, embedder="e")
    try:
        assert isinstance(index, MilvusIndex)
        assert (index.collection, index.dimension, index.embedder_name) == ("proj_a", 16, "e")
        index.upsert([make_chunk("weekend")], np.ones((1, 16), dtype=np.float32))
        assert index.count() == 1
    finally:
        index.close()


def test_common_terms_are_pruned_like_sqlite(
    tmp_path: Path, index: MilvusIndex, fake_embedder: FakeEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tellmemore.index.milvus as milvus_module
    import tellmemore.index.sqlite as sqlite_module
    from tellmemore.index.sqlite import SQLiteIndex

    monkeypatch.setattr(milvus_module, "PRUNE_MIN_CHUNKS", 1)
    monkeypatch.setattr(sqlite_module, "PRUNE_MIN_CHUNKS", 1)
    sqlite = SQLiteIndex(tmp_path / "index.db", dimension=64)
    chunks = [make_chunk(key) for key in TEXTS]
    for engine in (index, sqlite):
        put(engine, fake_embedder, chunks)  # type: ignore[arg-type]
    try:
        # "tier" is in 2 of 6 chunks (> 20%) and not among the two rarest terms: dropped.
        for flt in (SearchFilter(), SearchFilter(doc_ids=("d-standard",))):
            request = SearchRequest(
                "weekend support tier", None, k=10, mode=SearchMode.BM25, filter=flt
            )
            got = sorted(h.chunk.id for h in index.search(request))
            assert got == sorted(h.chunk.id for h in sqlite.search(request))
            assert got == (["c-weekend"] if flt.doc_ids is None else ["c-standard"])
    finally:
        sqlite.close()


def test_bm25_uses_fts5_constants(index: MilvusIndex, fake_embedder: FakeEmbedder) -> None:
    texts = {"x": "zeta zeta zeta beta", "y": "zeta gamma", "z": "gamma delta"}
    put(index, fake_embedder, [make_chunk(k, t) for k, t in texts.items()])
    hits = index.search(SearchRequest("zeta", None, k=3, mode=SearchMode.BM25))
    # idf = ln(1 + (3 - 2 + .5) / (2 + .5)); x: tf 3, length 4, average length 8/3
    idf = np.log(1 + 1.5 / 2.5)
    k1, b = 1.2, 0.75  # FTS5's; Milvus's default k1=1.5 would give 0.696
    expected = idf * 3 * (k1 + 1) / (3 + k1 * (1 - b + b * 4 / (8 / 3)))
    assert hits[0].chunk.id == "c-x"
    assert hits[0].score == pytest.approx(expected, rel=1e-4)
