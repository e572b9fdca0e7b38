"""Retrieval: embed the query texts, search the index, fuse the lists.

A turn may search with more than one phrasing (the message as typed and its
resolved standalone query: design.md measured this as the largest and
steadiest gain, and it protects turns that need no resolution). Each phrasing
is searched on its own and the ranked lists are fused by weighted reciprocal
rank, then cut to `k`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from tellmemore.answer.calibration import Calibration, Calibrator
from tellmemore.config import ConversationSettings, RetrievalSettings
from tellmemore.index.base import Embedder, Index, SearchRequest, Vector
from tellmemore.types import Hit, SearchFilter, SearchMode

MULTI_QUERY_RRF_K = 60
"""RRF constant for fusing the lists of several phrasings (the usual 60). Chosen over 10
and 20 by fitting on all three MTRAG domains (bench/results/resolver_cross_domain.md:
mean follow-up nDCG@5 0.423 vs 0.420 / 0.422; govt and clapnq alone preferred 10-20,
cloud preferred 60, and the fit-on-two rule picked 60 in two of three splits)."""
MULTI_QUERY_QPP = 1.0
"""Each phrasing's fusion weight is scaled by (its best cosine / the best phrasing's best
cosine) ** this: a phrasing that finds nothing close counts less (query performance
prediction from the dense scores, which are comparable across phrasings; 0: off)."""


@dataclass(frozen=True)
class RetrievalResult:
    hits: list[Hit]
    queries: tuple[str, ...]
    embed_ms: float = 0.0
    search_ms: float = 0.0
    per_query: dict[str, list[Hit]] = field(default_factory=dict)


class Retriever:
    """Searches one index with one embedder under the retrieval settings.

    >>> retriever = Retriever(index, embedder, settings.retrieval)  # doctest: +SKIP
    >>> retriever.search(["does enterprise escalation cover weekends?"]).hits[0].chunk.title
    """

    def __init__(self, index: Index, embedder: Embedder, settings: RetrievalSettings) -> None:
        self.index = index
        self.embedder = embedder
        self.settings = settings
        self.calibrator = Calibrator(index, embedder)
        """What scores mean in this index (answer.calibration), shared with the turn."""

    def search(
        self,
        queries: Sequence[str],
        *,
        k: int | None = None,
        mode: SearchMode | None = None,
        filter: SearchFilter | None = None,
        weights: Sequence[float] | None = None,
    ) -> RetrievalResult:
        """Hits for one or more phrasings of the same need, best first.

        Duplicate phrasings are searched once. `weights` (one per query, default
        1.0) scale each list's contribution to the fusion.
        """
        k = k or self.settings.k
        mode = mode or self.settings.mode
        filter = filter or SearchFilter()
        unique: list[str] = []
        unique_weights: list[float] = []
        for i, q in enumerate(queries):
            q = q.strip()
            if q and q not in unique:
                unique.append(q)
                unique_weights.append(1.0 if weights is None else float(weights[i]))
        if not unique:
            return RetrievalResult(hits=[], queries=())

        t0 = time.perf_counter()
        vectors: list[Vector | None] = [None] * len(unique)
        if mode is not SearchMode.BM25:
            if len(unique) == 1:
                vectors = [self.embedder.embed_query(unique[0])]
            else:  # a follow-up's phrasings are queries: the query runtime, as one batch
                embed_queries = getattr(self.embedder, "embed_queries", None)
                encode = embed_queries or self.embedder.embed_documents
                vectors = list(encode(unique))
        embed_ms = (time.perf_counter() - t0) * 1000

        t1 = time.perf_counter()
        depth = k if len(unique) == 1 else max(k * 4, self.settings.candidates // 2)
        floor = None
        if mode is SearchMode.HYBRID and self.settings.calibrated_fusion:
            floor = self.calibrator.get().fusion_floor
        per_query: dict[str, list[Hit]] = {}
        for q, vector in zip(unique, vectors, strict=True):
            request = SearchRequest(
                text=q,
                vector=vector,
                k=depth,
                mode=mode,
                filter=filter,
                fusion=self.settings.fusion,
                bm25_weight=self.settings.bm25_weight,
                rrf_k=self.settings.rrf_k,
                candidates=self.settings.candidates,
                dense_floor=floor,
            )
            per_query[q] = self.index.search(request)
        search_ms = (time.perf_counter() - t1) * 1000

        if len(unique) == 1:
            hits = per_query[unique[0]][:k]
        else:
            hits = fuse_lists([per_query[q] for q in unique], unique_weights, k=k)
        return RetrievalResult(
            hits=hits,
            queries=tuple(unique),
            embed_ms=embed_ms,
            search_ms=search_ms,
            per_query=per_query,
        )


def fuse_lists(lists: Sequence[list[Hit]], weights: Sequence[float], *, k: int) -> list[Hit]:
    """Weighted reciprocal-rank fusion of several ranked hit lists, cut to k; each weight
    scaled by how close its list's best hit is (MULTI_QUERY_QPP).

    The fused hit keeps the best per-signal scores seen for the chunk, so the
    abstention threshold still reads a real cosine similarity.
    """
    scores: dict[str, float] = {}
    best: dict[str, Hit] = {}
    tops = [max((h.dense for h in hits if h.dense is not None), default=0.0) for hits in lists]
    if MULTI_QUERY_QPP > 0 and all(t > 0 for t in tops):  # BM25 alone: nothing to compare
        ref = max(tops)
        weights = [w * (t / ref) ** MULTI_QUERY_QPP for w, t in zip(weights, tops, strict=True)]
    for hits, weight in zip(lists, weights, strict=True):
        for rank, hit in enumerate(hits, start=1):
            cid = hit.chunk.id
            scores[cid] = scores.get(cid, 0.0) + weight / (MULTI_QUERY_RRF_K + rank)
            prior = best.get(cid)
            if prior is None:
                best[cid] = hit
            else:
                best[cid] = replace(
                    prior,
                    bm25=_max_opt(prior.bm25, hit.bm25),
                    dense=_max_opt(prior.dense, hit.dense),
                )
    order = sorted(scores, key=lambda cid: (-scores[cid], cid))[:k]
    return [replace(best[cid], score=scores[cid], rank=i) for i, cid in enumerate(order, 1)]


def _max_opt(a: float | None, b: float | None) -> float | None:
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


def passage_fit(
    index: Index,
    embed: Callable[[Sequence[str]], Any],
    filter: SearchFilter | None = None,
) -> Callable[[Sequence[str]], list[float]]:
    """How well each text matches its best passage: the cosine of its first dense hit (0.0
    when the index has none). The resolver reads it to choose a pronoun's antecedent
    (`conversation.passes.fit`), so a follow-up becomes a question the documents answer.
    `embed` embeds a batch of texts (a turn's cached query runtime)."""
    where = filter or SearchFilter()

    def fit(texts: Sequence[str]) -> list[float]:
        vectors = list(embed(list(texts)))
        out: list[float] = []
        for text, vector in zip(texts, vectors, strict=True):
            request = SearchRequest(text, vector, k=1, mode=SearchMode.DENSE, filter=where)
            hits = index.search(request)
            out.append(float(hits[0].dense) if hits and hits[0].dense is not None else 0.0)
        return out

    return fit


def index_reads(
    settings: ConversationSettings,
    index: Index,
    embed: Callable[[Sequence[str]], Any] | None,
    calibration: Calibration,
    filter: SearchFilter | None = None,
) -> dict[str, Any]:
    """What the resolver reads from the index's vectors, as `ResolveContext.of` keywords: the
    passage fit (`passage_fit_for`) and the typed floor of its calibration. The turn,
    `tellmemore eval` and the benches all build their context with it, so they resolve alike
    (a bench that built its own once left the floor out, session 44)."""
    return {
        "passage_fit": passage_fit_for(settings, index, embed, filter),
        "typed_floor": calibration.typed_floor,
    }


def passage_fit_for(
    settings: ConversationSettings,
    index: Index,
    embed: Callable[[Sequence[str]], Any] | None,
    filter: SearchFilter | None = None,
) -> Callable[[Sequence[str]], list[float]] | None:
    """`passage_fit` when `conversation.antecedent_fit` is on and there is an encoder, else
    None (the salience alone decides): the turn, `tellmemore eval` and the benches resolve
    alike."""
    if embed is None or not settings.antecedent_fit:
        return None
    return passage_fit(index, embed, filter)
