"""Which passages the offline answer reads (`retrieval.read_siblings`, on by default): a section of
a document already read may take the place of the weakest of the first three hits.

The offline answer quotes from the first `READ` (3) fused hits. On the handbooks the passage
that answers is often the 4th or 5th hit (114 of 1,138 answered held-out turns), and then
mostly another section of a document the first three already come from (84 of the 114).
Each of the first `POOL` (5) hits gets a few features against the standalone query, and a
conditional logit fitted on the bundled handbooks' labelled turns (a passage is positive when
it holds the turn's expected answer; `bench/reading_set.py`) scores them. A 4th or 5th hit
that shares a document with one of the first three and scores above the weakest of them is
read in its place. Only a sibling may come in: letting any 4th or 5th hit in gained more on
the handbooks but lost on MTRAG's pooled corpora, where such a hit is mostly a hard negative
from another document (bench/results/reading_set.md).
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from importlib import resources

import numpy as np

from tellmemore.answer.answer_types import asked_type, holds
from tellmemore.answer.scoring import Embed, Scorer, content_stems
from tellmemore.answer.units import units
from tellmemore.types import Hit

READ = 3
"""Passages the answer reads (`extractive.MAX_CHUNKS`)."""
POOL = 5
"""Hits a passage read may come from."""

FEATURES = (
    "rank",
    "score_share",
    "dense_gap",
    "bm25_share",
    "unit_cosine_gap",
    "header_cosine",
    "stems",
    "header_stems",
    "same_doc",
    "asked_kind",
    "log_words",
)
"""Per passage, against the query: scores and cosines relative to the other hits', since
their raw scale differs from one index to the next."""


def _unit_texts(hit: Hit) -> list[str]:
    return [u.text for u in units(hit.chunk.text, hit.chunk.header)] or [hit.chunk.text]


def _share(part: float, best: float) -> float:
    return part / best if best > 0 else 0.0


def features(query: str, hits: Sequence[Hit], embed: Embed) -> np.ndarray:
    """One row of `FEATURES` per hit of `hits`."""
    q_stems = content_stems(query)
    kind = asked_type(query)
    dense = [h.dense if h.dense is not None else -1.0 for h in hits]
    bm25 = [h.bm25 or 0.0 for h in hits]
    unit_lists = [_unit_texts(h) for h in hits]
    flat = [u for us in unit_lists for u in us]
    headers = [h.chunk.header or h.chunk.title or "" for h in hits]
    vectors = embed([query, *flat, *headers])
    query_vector = vectors[0]
    unit_cos = vectors[1 : 1 + len(flat)] @ query_vector
    header_cos = vectors[1 + len(flat) :] @ query_vector
    best_unit, start = [], 0
    for us in unit_lists:
        best_unit.append(float(unit_cos[start : start + len(us)].max()))
        start += len(us)
    top_score = max(h.score for h in hits)
    rows = []
    for i, h in enumerate(hits):
        text_stems, head_stems = content_stems(h.chunk.text), content_stems(headers[i])
        rows.append(
            [
                float(i),
                _share(h.score, top_score),
                dense[i] - max(dense),
                _share(bm25[i], max(bm25)),
                best_unit[i] - max(best_unit),
                float(header_cos[i]),
                _share(len(q_stems & text_stems), len(q_stems)),
                _share(len(q_stems & head_stems), len(q_stems)),
                float(h.chunk.doc_id == hits[0].chunk.doc_id),
                float(kind is not None and holds(h.chunk.text, kind)),
                math.log1p(len(h.chunk.text.split())),
            ]
        )
    return np.asarray(rows, dtype=float).reshape(len(hits), len(FEATURES))


def order(query: str, hits: Sequence[Hit], embed: Embed, model: Scorer | None = None) -> list[int]:
    """Indices of `hits` in the order the answer reads them: the first `READ`, except that a
    4th or 5th hit sharing a document with one of them takes the place of the lowest-scored
    one when it scores higher (by `model`, the shipped one by default); the passages read in
    fused order, then the others in fused order."""
    n = len(hits)
    read = list(range(min(n, READ)))
    docs = {hits[i].chunk.doc_id for i in read}
    siblings = [j for j in range(READ, min(n, POOL)) if hits[j].chunk.doc_id in docs]
    if not siblings:
        return list(range(n))
    p = (model or shipped()).probabilities(features(query, hits[:POOL], embed))
    for j in sorted(siblings, key=lambda j: -p[j]):
        weakest = min(read, key=lambda i: p[i])
        if p[j] > p[weakest]:
            read[read.index(weakest)] = j
    read.sort()
    return read + [i for i in range(n) if i not in read]


def to_json(model: Scorer, **about: object) -> str:
    """The weights file of `model` (`reading_weights.json`)."""
    data = {
        "features": list(FEATURES),
        "weights": [round(w, 6) for w in model.weights],
        "bias": round(model.bias, 6),
        "mean": [round(m, 6) for m in model.mean],
        "scale": [round(s, 6) for s in model.scale],
    }
    return json.dumps({**data, **about}, indent=1) + "\n"


def from_json(text: str) -> Scorer:
    """A model written by `to_json`; one fitted on other features is refused."""
    data = json.loads(text)
    if list(data["features"]) != list(FEATURES):
        raise ValueError(
            f"reading weights are for features {data['features']}, this code computes "
            f"{list(FEATURES)}: refit with bench/reading_set.py --write"
        )
    return Scorer(
        weights=tuple(data["weights"]),
        bias=float(data["bias"]),
        threshold=0.5,
        mean=tuple(data["mean"]),
        scale=tuple(data["scale"]),
    )


@functools.cache
def shipped() -> Scorer:
    """The model fitted on the bundled handbooks' labelled turns (`reading_weights.json`)."""
    text = resources.files("tellmemore.answer").joinpath("reading_weights.json")
    return from_json(text.read_text("utf-8"))
