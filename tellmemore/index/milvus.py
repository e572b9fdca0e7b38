"""The Milvus engine: the Index protocol on Milvus Standalone, Distributed, Zilliz, milvus-lite.

One client (`pymilvus.MilvusClient(uri)`) and one schema (`index.milvus_schema`)
for every deployment; `index.uri` picks it (`index.milvus_location`).
pymilvus is imported when an index opens: without it the error says
`pip install 'tellmemore[milvus]'`.

Scores are normalised so that higher is better: BM25 is `abs(distance)`
(milvus-lite returns `-bm25`, a server `+bm25`; milvus-lite also computes
BM25 statistics per segment and over the filtered rows, a server over the
whole collection, so values differ between the two while rankings agree on
small collections); dense is the cosine similarity (COSINE metric) in
[-1, 1] on both.

Hybrid search: `fusion="rrf"` runs Milvus's `hybrid_search` with
`RRFRanker(rrf_k)`; `fusion="convex"` runs the two searches and fuses them
with `index.fusion.convex`, as SQLite does. Term statistics live in a side
table (`index.terms.TermStore`) updated at every write and rebuilt from the
collection when it does not match it.

Reads and writes use Strong consistency: a search sees every write that
returned before it (a server then waits for its latest timestamp, a few
milliseconds when idle).
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, ClassVar

import numpy as np

from tellmemore.config import Settings
from tellmemore.errors import ConfigError, IndexError_, InputError
from tellmemore.index import fusion
from tellmemore.index.base import SearchRequest, Vector, prepare_upsert, query_vector
from tellmemore.index.lexical import query_terms, searchable_text
from tellmemore.index.milvus_location import (
    MilvusLocation,
    import_pymilvus,
    lite_acquire,
    lite_release,
    parse_uri,
)
from tellmemore.index.milvus_schema import (
    FIELDS,
    SCHEMA_VERSION,
    and_,
    filter_expr,
    in_list,
    quote,
    schema_and_indexes,
    stored_dimension,
    stored_embedder,
    to_chunk,
    to_row,
)
from tellmemore.index.sqlite import MAX_DF_FRACTION, PRUNE_MIN_CHUNKS
from tellmemore.index.terms import Stemmer, TermStore
from tellmemore.types import Chunk, Hit, SearchFilter, SearchMode, TermStats, header_line

__all__ = ["MilvusIndex", "filter_expr", "in_list", "open_milvus", "parse_uri", "quote"]

logger = logging.getLogger(__name__)

DEFAULT_COLLECTION = "tellmemore_chunks"
MAX_TOPK = 16_384  # Milvus's limit on `limit` (and on offset + limit)
_WRITE_BATCH = 256
_READ_BATCH = 1_000
_IN_BATCH = 1_000  # ids per `id in [...]` filter
_COLLECTION_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,254}$")

# (id, score, entity) as one search returns it
_Scored = tuple[str, float, dict[str, Any]]


def open_milvus(
    settings: Settings, *, dimension: int | None, embedder: str | None = None
) -> MilvusIndex:
    """The Milvus index that `settings.index` names (`index.open_index` routes here)."""
    collection = settings.index.collection
    location = parse_uri(
        settings.index.uri or "", project_dir=settings.project_dir, collection=collection
    )
    return MilvusIndex(
        location,
        dimension=dimension,
        collection=collection,
        token=settings.index.token,
        embedder=embedder,
    )


class MilvusIndex:
    """The Index protocol on Milvus: BM25 (server-side function) + HNSW dense + RRF hybrid.

    Example:
        >>> from tellmemore.testing.fakes import FakeEmbedder
        >>> emb = FakeEmbedder()
        >>> where = parse_uri("milvus-lite:idx.db", project_dir=Path("."), collection="chunks")
        >>> index = MilvusIndex(where, dimension=emb.dimension, collection="chunks")
        >>> chunk = Chunk(id="c1", doc_id="d1", text="Weekend support is included.")
        >>> index.upsert([chunk], emb.embed_documents([chunk.text]))
        >>> index.search(SearchRequest("weekend", emb.embed_query("weekend")))[0].chunk.id
        'c1'

    `dimension=None` opens an existing collection at its own dimension (for
    `tellmemore index copy`). Opening with another dimension or another
    embedder than the collection was built with raises `IndexError_`.
    `ef` is HNSW's search breadth (at least the number of candidates asked).
    """

    engine: ClassVar[str] = "milvus"
    supports_hybrid: ClassVar[bool] = True

    def __init__(
        self,
        location: MilvusLocation,
        *,
        dimension: int | None,
        collection: str = DEFAULT_COLLECTION,
        token: str | None = None,
        embedder: str | None = None,
        ef: int = 128,
    ) -> None:
        if dimension is not None and dimension < 1:
            raise IndexError_(f"index dimension must be >= 1, got {dimension}")
        if not _COLLECTION_NAME.match(collection):
            raise ConfigError(
                f"Milvus collection name {collection!r} is invalid: letters, digits and "
                "underscores, starting with a letter or underscore, at most 255 characters"
            )
        self.location = location
        self.collection = collection
        self.ef = ef
        self._lock = threading.RLock()
        self._headings: tuple[int, tuple[str, ...]] | None = None
        self._closed = False
        self._pm = import_pymilvus(lite=location.is_lite)
        self._error: type[Exception] = self._pm.MilvusException
        if location.lite_path is not None:
            location.lite_path.parent.mkdir(parents=True, exist_ok=True)
            lite_acquire(location.lite_path)
        try:
            self._client = self._pm.MilvusClient(uri=location.client_uri, token=token or "")
        except Exception as exc:  # any connection failure is one error here
            if location.lite_path is not None:
                lite_release(location.lite_path)
            self._closed = True
            hint = (
                "milvus-lite allows one process per .db path; is another process using it?"
                if location.is_lite
                else "is the server running? (docker compose -f deploy/milvus/docker-compose.yml "
                "up -d) Or switch back to SQLite: unset index.uri"
            )
            raise IndexError_(
                f"cannot connect to Milvus at {location.client_uri}: {exc}; {hint}"
            ) from exc
        try:
            self._terms = TermStore(location.terms_path, stemmer=Stemmer())
            self.dimension = self._open_collection(dimension, embedder)
            self._check_terms()
        except BaseException:
            self.close()
            raise

    # -- setup ------------------------------------------------------------------------

    def _call(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except self._error as exc:
            raise IndexError_(
                f"Milvus {what} failed on {self.location.client_uri} collection "
                f"{self.collection!r}: {exc}"
            ) from exc

    def _open_collection(self, dimension: int | None, embedder: str | None) -> int:
        client = self._client
        if not self._call("has_collection", client.has_collection, self.collection):
            if dimension is None:
                raise IndexError_(
                    f"Milvus collection {self.collection!r} does not exist at "
                    f"{self.location.client_uri}; ingest into it first or check index.uri"
                )
            self._create(dimension, embedder)
            return dimension
        info = self._call("describe_collection", client.describe_collection, self.collection)
        stored_dim = stored_dimension(info, self.collection)
        if dimension is not None and stored_dim != dimension:
            raise IndexError_(
                f"Milvus collection {self.collection!r} holds vectors of dimension {stored_dim} "
                f"but the embedder gives dimension {dimension}; use another collection "
                "(index.collection) or configure the embedder it was built with"
            )
        stored = self._terms.get_meta("embedder") or stored_embedder(info)
        if embedder and stored and embedder != stored:
            raise IndexError_(
                f"Milvus collection {self.collection!r} was built with embedder {stored!r}, not "
                f"{embedder!r}; configure embedder {stored!r} or ingest into another collection"
            )
        if embedder or stored:
            self._terms.set_meta("embedder", embedder or stored)
        self._call("load_collection", client.load_collection, self.collection)
        return stored_dim

    def _create(self, dimension: int, embedder: str | None) -> None:
        client = self._client
        schema, params = schema_and_indexes(
            self._pm, client, dimension, embedder, lite=self.location.is_lite
        )
        self._call(
            "create_collection",
            client.create_collection,
            self.collection,
            schema=schema,
            consistency_level="Strong",
        )
        # sync=False: the collection is empty, there is nothing to wait for
        # (pymilvus would otherwise poll every 0.5 s per index).
        self._call("create_index", client.create_index, self.collection, params, sync=False)
        self._call("load_collection", client.load_collection, self.collection)
        self._terms.reset()
        self._terms.set_meta("schema_version", SCHEMA_VERSION)
        self._terms.set_meta("embedder", embedder or "")

    def _check_terms(self) -> None:
        """Rebuild the side table when it does not match the collection (new machine, crash)."""
        count = self.count()
        if self._terms.n_chunks != count:
            logger.info(
                "term statistics %s hold %d chunks, collection %r holds %d: rebuilding",
                self.location.terms_path,
                self._terms.n_chunks,
                self.collection,
                count,
            )
            self.rebuild_term_stats()

    def rebuild_term_stats(self) -> int:
        """Recount document frequencies from the collection's `lexical` field; returns chunks."""
        with self._lock:
            self._terms.reset()
            n = 0
            for rows in self._pages(["id", "lexical"], ""):
                self._terms.apply(added=[r["lexical"].split() for r in rows], removed=[])
                n += len(rows)
            return n

    @property
    def embedder_name(self) -> str:
        """The embedder that wrote the vectors ("" when unknown)."""
        return self._terms.get_meta("embedder") or ""

    def get_meta(self, key: str) -> str | None:
        """A fact recorded about the collection (kept beside it, like the embedder name)."""
        return self._terms.get_meta(key)

    def set_meta(self, key: str, value: str) -> None:
        self._terms.set_meta(key, value)

    # -- writes -----------------------------------------------------------------------

    def upsert(self, chunks: Sequence[Chunk], vectors: Vector) -> None:
        if len(chunks) == 0:
            return
        unique, matrix = prepare_upsert(chunks, vectors, self.dimension)
        for start in range(0, len(unique), _WRITE_BATCH):
            self._upsert_batch(
                unique[start : start + _WRITE_BATCH], matrix[start : start + _WRITE_BATCH]
            )

    def _upsert_batch(self, chunks: list[Chunk], matrix: Vector) -> None:
        stems = self._terms.stemmer.tokens(
            [searchable_text(c.title, c.section, c.text) for c in chunks]
        )
        rows = [to_row(c, " ".join(s), v) for c, s, v in zip(chunks, stems, matrix, strict=True)]
        with self._lock:
            old = self._fetch([c.id for c in chunks], ["id", "lexical"])
            self._call("upsert", self._client.upsert, self.collection, rows)
            self._headings = None
            self._terms.apply(added=stems, removed=[r["lexical"].split() for r in old.values()])

    def delete(self, ids: Iterable[str]) -> int:
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return 0
        with self._lock:
            old = self._fetch(wanted, ["id", "lexical"])
            found = list(old)
            for start in range(0, len(found), _IN_BATCH):
                expr = in_list("id", found[start : start + _IN_BATCH])
                self._call("delete", self._client.delete, self.collection, filter=expr)
            self._headings = None
            self._terms.apply(added=[], removed=[r["lexical"].split() for r in old.values()])
            return len(found)

    # -- reads ------------------------------------------------------------------------

    def _fetch(self, ids: Sequence[str], fields: Sequence[str]) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        for start in range(0, len(ids), _IN_BATCH):
            batch = list(ids[start : start + _IN_BATCH])
            rows = self._call(
                "query",
                self._client.query,
                self.collection,
                filter=in_list("id", batch),
                output_fields=list(fields),
                limit=len(batch),
            )
            found.update((row["id"], dict(row)) for row in rows)
        return found

    def _pages(
        self, fields: Sequence[str], expr: str, batch_size: int = _READ_BATCH
    ) -> Iterator[list[dict[str, Any]]]:
        """Every row matching `expr`, in primary-key order, `batch_size` rows at a time.

        Keyset pages as pymilvus's `query_iterator` makes them (`iterator=True`
        asks the server for primary-key order), but with the last id escaped:
        the iterator's own `id > "..."` breaks on an id holding a quote.
        `reduce_stop_for_best=False` keeps each page exact, so a short page is
        the last one.
        """
        limit = min(max(batch_size, 1), MAX_TOPK)
        last: str | None = None
        while True:
            page_expr = and_(f"id > {quote(last)}" if last is not None else "", expr)
            rows = self._call(
                "query",
                self._client.query,
                self.collection,
                filter=page_expr,
                output_fields=list({"id", *fields}),
                limit=limit,
                iterator="True",
                reduce_stop_for_best="False",
            )
            if not rows:
                return
            page = sorted((dict(r) for r in rows), key=lambda r: r["id"])
            yield page
            if len(page) < limit:
                return
            last = page[-1]["id"]

    def ids(self, doc_id: str | None = None, *, tenant: str | None = None) -> dict[str, str]:
        expr = filter_expr(doc_id=doc_id, tenant=tenant)
        out: dict[str, str] = {}
        for rows in self._pages(["id", "content_hash"], expr):
            out.update((r["id"], r["content_hash"]) for r in rows)
        return out

    def count(self) -> int:
        rows = self._call(
            "count", self._client.query, self.collection, filter="", output_fields=["count(*)"]
        )
        return int(rows[0]["count(*)"]) if rows else 0

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        """The stored chunks for these ids, in the given order; unknown ids are skipped."""
        found = self._fetch(list(ids), FIELDS)
        return [to_chunk(found[i]) for i in ids if i in found]

    def export(self, batch_size: int = _READ_BATCH) -> Iterator[list[tuple[Chunk, Vector]]]:
        """Every chunk with its stored vector, in id order (for `tellmemore index copy`)."""
        for rows in self._pages([*FIELDS, "dense"], "", batch_size):
            yield [(to_chunk(r), np.asarray(r["dense"], dtype=np.float32)) for r in rows]

    def headings(self, *, tenant: str | None = None) -> tuple[str, ...]:
        """Distinct "Title > Section" headings, read from the collection once and again
        after this process writes, or when the chunk count moves (another writer). With
        `tenant`, that tenant's only (read each time: a filtered query)."""
        if tenant is not None:
            expr = filter_expr(SearchFilter(tenant=tenant))
            pages = self._pages(["title", "section"], expr)
            return tuple(
                sorted({header_line(r["title"], r.get("section") or ()) for p in pages for r in p})
            )
        with self._lock:
            count = self.count()
            if self._headings is None or self._headings[0] != count:
                pages = self._pages(["title", "section"], "")
                found = {header_line(r["title"], r.get("section") or ()) for p in pages for r in p}
                self._headings = (count, tuple(sorted(found)))
            return self._headings[1]

    def term_stats(self, terms: Iterable[str], *, tenant: str | None = None) -> TermStats:
        """Chunks containing each term after Porter stemming, from the side table. The side
        table counts every tenant's chunks (`tenant` is accepted, not applied: a limit
        listed in docs/reliability.md)."""
        return self._terms.term_stats(terms)

    # -- search -----------------------------------------------------------------------

    def search(self, request: SearchRequest) -> list[Hit]:
        if request.k <= 0 or not request.text.strip():
            return []
        flt = request.filter
        if flt.doc_ids is not None and not flt.doc_ids:
            return []
        k = min(request.k, MAX_TOPK)
        expr = filter_expr(flt)
        lexical = self._lexical_query(request.text, prune=flt.doc_ids is None)
        mode = request.mode
        if mode is SearchMode.BM25:
            bm25 = self._bm25(lexical, expr, k)
            return _hits(bm25, k, bm25=_scores(bm25))
        vector = query_vector(request.vector, mode, self.dimension)
        if mode is SearchMode.DENSE:
            dense = self._dense(vector, expr, k)
            return _hits(dense, k, dense=_scores(dense))
        if request.fusion not in ("convex", "rrf"):
            raise InputError(f"unknown fusion {request.fusion!r}; valid: convex, rrf")
        n = min(max(request.candidates, k), MAX_TOPK)
        if request.fusion == "rrf" and lexical:
            return self._hybrid_rrf(lexical, vector, expr, k, n, request.rrf_k)
        bm25 = self._bm25(lexical, expr, n)
        dense = self._dense(vector, expr, n)
        if request.fusion == "rrf":
            fused = fusion.rrf([_ranked(bm25), _ranked(dense)], k=request.rrf_k)
        else:
            fused = fusion.convex(
                _ranked(bm25), _ranked(dense), request.bm25_weight, dense_floor=request.dense_floor
            )
        entities = {cid: e for cid, _, e in [*dense, *bm25]}
        ranked = [(cid, score, entities[cid]) for cid, score in fused]
        return _hits(ranked, k, bm25=_scores(bm25), dense=_scores(dense))

    def _lexical_query(self, text: str, *, prune: bool) -> str:
        """The stems BM25 searches: SQLite's query terms, minus the same too-common ones.

        As in `SQLiteIndex`: from `PRUNE_MIN_CHUNKS` chunks on, with more than
        two terms and no doc_ids filter, a one-word term found in more than
        `MAX_DF_FRACTION` of the chunks is dropped unless it is among the two
        rarest; codes and phrases are always kept.
        """
        terms = query_terms(text)
        tokens = self._terms.stemmer.tokens(terms)
        n = self._terms.n_chunks
        if prune and len(terms) > 2 and n >= PRUNE_MIN_CHUNKS:
            stored = self._terms.df(t[0] for t in tokens if len(t) == 1)
            df = [stored.get(t[0], 0) if len(t) == 1 else 0 for t in tokens]
            rarest = set(sorted(range(len(terms)), key=lambda i: df[i])[:2])
            tokens = [
                t for i, t in enumerate(tokens) if i in rarest or df[i] <= MAX_DF_FRACTION * n
            ]
        return " ".join(dict.fromkeys(s for t in tokens for s in t))

    def _dense_params(self, limit: int) -> dict[str, Any]:
        return {"metric_type": "COSINE", "params": {"ef": max(self.ef, limit)}}

    def _bm25(
        self, lexical: str, expr: str, limit: int, fields: Sequence[str] = FIELDS
    ) -> list[_Scored]:
        if not lexical:
            return []
        result = self._call(
            "BM25 search",
            self._client.search,
            self.collection,
            data=[lexical],
            anns_field="sparse",
            limit=limit,
            filter=expr,
            search_params={"metric_type": "BM25"},
            output_fields=list(fields),
        )
        return [(h["id"], abs(float(h["distance"])), h["entity"]) for h in result[0]]

    def _dense(self, vector: Vector, expr: str, limit: int) -> list[_Scored]:
        result = self._call(
            "dense search",
            self._client.search,
            self.collection,
            data=[vector.tolist()],
            anns_field="dense",
            limit=limit,
            filter=expr,
            search_params=self._dense_params(limit),
            output_fields=list(FIELDS),
        )
        return [(h["id"], float(h["distance"]), h["entity"]) for h in result[0]]

    def _hybrid_rrf(
        self, lexical: str, vector: Vector, expr: str, k: int, n: int, rrf_k: int
    ) -> list[Hit]:
        """Milvus's `hybrid_search` with `RRFRanker`, and each hit's per-signal scores.

        The fused list comes from the server. The BM25 score of a hit is the
        one the BM25 candidates list gave it (None when BM25 did not retrieve
        it, as in SQLite); its cosine is computed from the returned vector.
        """
        pm = self._pm
        requests = [
            pm.AnnSearchRequest(
                data=[lexical],
                anns_field="sparse",
                param={"metric_type": "BM25"},
                limit=n,
                expr=expr,
            ),
            pm.AnnSearchRequest(
                data=[vector.tolist()],
                anns_field="dense",
                param=self._dense_params(n),
                limit=n,
                expr=expr,
            ),
        ]
        result = self._call(
            "hybrid search",
            self._client.hybrid_search,
            self.collection,
            requests,
            ranker=pm.RRFRanker(rrf_k),
            limit=k,
            output_fields=[*FIELDS, "dense"],
        )
        fused = [(h["id"], float(h["distance"]), h["entity"]) for h in result[0]]
        if not fused:
            return []
        bm25 = self._bm25(lexical, expr, n, fields=("id",))
        dense = {
            cid: float(np.dot(vector, np.asarray(e["dense"], dtype=np.float32)))
            for cid, _, e in fused
        }
        return _hits(fused, k, bm25=_scores(bm25), dense=dense)

    # -- lifecycle --------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            client = getattr(self, "_client", None)
            if client is not None:
                client.close()
            terms = getattr(self, "_terms", None)
            if terms is not None:
                terms.close()
            if self.location.lite_path is not None:
                lite_release(self.location.lite_path)

    def __enter__(self) -> MilvusIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (
            f"MilvusIndex({self.location.client_uri!r}, collection={self.collection!r}, "
            f"dimension={getattr(self, 'dimension', None)})"
        )


def _ranked(hits: Sequence[_Scored]) -> list[tuple[str, float]]:
    return [(cid, score) for cid, score, _ in hits]


def _scores(hits: Sequence[_Scored]) -> dict[str, float]:
    return {cid: score for cid, score, _ in hits}


def _hits(
    ranked: Sequence[_Scored],
    k: int,
    *,
    bm25: dict[str, float] | None = None,
    dense: dict[str, float] | None = None,
) -> list[Hit]:
    return [
        Hit(
            chunk=to_chunk(entity),
            score=float(score),
            rank=rank,
            bm25=None if bm25 is None else bm25.get(cid),
            dense=None if dense is None else dense.get(cid),
        )
        for rank, (cid, score, entity) in enumerate(ranked[:k], start=1)
    ]
