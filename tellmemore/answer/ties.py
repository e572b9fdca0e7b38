"""Near-tied passages read in the order of their own similarity, not of the fusion's weights.

A follow-up's passages are fused by weighted reciprocal rank over several phrasings, so
the best few often differ by a percent of their fused score (0.0289 and 0.0286): changing
the phrasings' weights (`retrieval.MULTI_QUERY_QPP`) swaps them, and with them the passages
the answer reads and the sentences it quotes (bench/results/rank_robust.md: 43 of the 47
MTRAG answers a QPP of 2 changed read another top 3, mostly the 4th passage for the 3rd,
32 of them with as many gold passages as before). Within a group of near-tied passages
the dense cosine to the query (the best over the phrasings, which no fusion weight moves)
decides their order instead.

Off by default (`extractive.TIE_GAP` 0): at 0.02 the answer lost F1 on MTRAG clapnq and govt
(-0.008, -0.014) with the shipped QPP, and a QPP of 2 still changed as many answers.
"""

from __future__ import annotations

from collections.abc import Sequence

from tellmemore.types import Hit

TIED_DEPTH = 5
"""Only the best few hits are regrouped: the answer reads the top 3, a 4th or 5th
near-tied with the 3rd may take its place."""


def tied_order(hits: Sequence[Hit], gap: float, depth: int = TIED_DEPTH) -> list[int]:
    """The indices of `hits` with each group of near ties (fused score within `gap`, a
    share, of the group's best) among the first `depth` ordered by dense cosine (a hit
    BM25 alone found last, ties in fused order); the rest as they were. `gap` 0: as given."""
    n = min(depth, len(hits))
    if gap <= 0 or n < 2:
        return list(range(len(hits)))
    out: list[int] = []
    group: list[int] = [0]
    for i in range(1, n):
        head = hits[group[0]].score
        if head > 0 and hits[i].score >= head * (1 - gap):
            group.append(i)
            continue
        out += _by_dense(hits, group)
        group = [i]
    out += _by_dense(hits, group)
    return out + list(range(n, len(hits)))


def _by_dense(hits: Sequence[Hit], group: list[int]) -> list[int]:
    def key(i: int) -> tuple[bool, float, int]:
        dense = hits[i].dense
        return (dense is None, -(dense or 0.0), i)

    return sorted(group, key=key)
