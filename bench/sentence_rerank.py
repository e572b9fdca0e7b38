"""Rerank the top fused hits by their best sentence's MiniLM cosine, and run a bench with it.

A measurement, not a product setting (bench/results/sentence_rerank.md: it gains on MTRAG's
follow-ups held out and loses end to end on the held-out handbooks). all-MiniLM-L6-v2 was
trained on sentence pairs; a chunk's pooled vector averages its sentences, so a chunk whose
one sentence answers can rank below a chunk that is about the subject throughout. Here the
first `depth` hits of `Retriever.search` are re-scored by the query's cosine to each chunk's
best sentence (`answer.units.sentences`, of three words or more), and that order is fused
with the retrieved order by reciprocal rank (`weight` for the sentence order, 1 for the
retrieved one). `--mode mean` scores a chunk by the mean of its own cosine and its best
sentence's, `max` by the larger, `sentence` by the best sentence alone. The sentence vectors
are cached by text in `--cache` (the query runtime encodes them, as a turn's answer does).

    .venv/bin/python bench/sentence_rerank.py --weight 1 --depth 10 --mode mean -- \
        bench/loo_eval.py --cache /work/cache/bench_md --no-grid --out /tmp/loo_mean
    .venv/bin/python bench/sentence_rerank.py --weight 1 --depth 10 --mode mean -- \
        bench/handbook_trial.py --corpus clef --modes "floor (default)" --out /tmp/trial_clef

The patched `search` returns exactly what the experiment's in-place version did: the
multi-phrasing list is re-fused from the per-phrasing lists (already 25 deep) to `depth`,
and a single phrasing is searched again `depth` deep.
"""

from __future__ import annotations

import argparse
import runpy
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from tellmemore import retrieval  # noqa: E402
from tellmemore.answer.units import sentences  # noqa: E402
from tellmemore.eval.cache import QueryVectors  # noqa: E402
from tellmemore.index.fusion import rrf  # noqa: E402
from tellmemore.types import Hit  # noqa: E402

MODES = ("sentence", "mean", "max")


def chunk_sentences(hit: Hit, *, headed: bool = False, min_words: int = 3) -> list[str]:
    """The chunk's sentences, list items and rows worth comparing (at most 40)."""
    header = hit.chunk.header
    out = [s for s in sentences(hit.chunk.text, header) if len(s.split()) >= min_words][:40]
    return [f"{header}: {s}" if headed and header else s for s in out]


def sentence_scores(
    hits: Sequence[Hit], query: np.ndarray, vectors: QueryVectors, *, mode: str, headed: bool
) -> list[float]:
    """Per hit: its best sentence's cosine to `query`, combined with its own by `mode`."""
    per = [chunk_sentences(h, headed=headed) for h in hits]
    vectors.encode(t for ts in per for t in ts)
    q = query / (np.linalg.norm(query) or 1.0)
    scores = []
    for hit, texts in zip(hits, per, strict=True):
        own = hit.dense if hit.dense is not None else 0.0
        if not texts:
            scores.append(own)
            continue
        v = vectors.get(texts)
        best = float((v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-9) @ q).max())
        scores.append({"sentence": best, "mean": (best + own) / 2, "max": max(best, own)}[mode])
    return scores


def rerank(hits: Sequence[Hit], scores: Sequence[float], *, weight: float, k: int) -> list[Hit]:
    """`hits` fused by reciprocal rank with their order by `scores`, cut to k."""
    by_score = sorted(range(len(hits)), key=lambda i: -scores[i])
    fused = rrf(
        [[(h.chunk.id, 0.0) for h in hits], [(hits[i].chunk.id, 0.0) for i in by_score]],
        60,
        [1.0, weight],
    )
    at = {h.chunk.id: h for h in hits}
    return [replace(at[cid], rank=i) for i, (cid, _) in enumerate(fused[:k], 1)]


def patch(*, weight: float, depth: int, mode: str, headed: bool, cache: Path) -> None:
    """Replace `retrieval.Retriever.search` with the reranking one, in this process."""
    original = retrieval.Retriever.search
    store: dict[str, QueryVectors] = {}

    def search(self: Any, queries: Sequence[str], **kw: Any) -> retrieval.RetrievalResult:
        result = original(self, queries, **kw)
        k = kw.get("k") or self.settings.k
        if weight <= 0 or not result.hits or result.hits[0].dense is None:
            return result
        if len(result.queries) == 1:
            deep = original(self, queries, **{**kw, "k": max(k, depth)}).hits
        else:
            weights = kw.get("weights")
            seen: dict[str, float] = {}
            for i, q in enumerate(queries):
                if q.strip() and q.strip() not in seen:
                    seen[q.strip()] = 1.0 if weights is None else float(weights[i])
            lists = [result.per_query[q] for q in result.queries]
            deep = retrieval.fuse_lists(lists, [seen[q] for q in result.queries], k=max(k, depth))
        inner = getattr(getattr(self.embedder, "_cache", None), "inner", self.embedder)
        if "v" not in store:
            store["v"] = QueryVectors(cache, inner)
        vectors = store["v"]
        query = np.asarray(self.embedder.embed_query(result.queries[0]), dtype=np.float32)
        top = deep[:depth]
        scores = sentence_scores(top, query, vectors, mode=mode, headed=headed)
        hits = (rerank(top, scores, weight=weight, k=len(top)) + list(deep[depth:]))[:k]
        return replace(result, hits=[replace(h, rank=i) for i, h in enumerate(hits, 1)])

    retrieval.Retriever.search = search  # type: ignore[method-assign]


def main(argv: Sequence[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--" not in argv:
        raise SystemExit("usage: sentence_rerank.py [options] -- SCRIPT.py [script args]")
    split = argv.index("--")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--weight", type=float, default=1.0, help="RRF weight of the sentence order")
    ap.add_argument("--depth", type=int, default=10, help="how many top hits are reranked")
    ap.add_argument("--mode", choices=MODES, default="sentence")
    ap.add_argument("--headed", action="store_true", help="embed 'header: sentence'")
    ap.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache" / "sentences")
    args = ap.parse_args(argv[:split])
    script, *rest = argv[split + 1 :]
    patch(
        weight=args.weight, depth=args.depth, mode=args.mode, headed=args.headed, cache=args.cache
    )
    sys.argv = [script, *rest]
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
