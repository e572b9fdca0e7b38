"""Sentence selection as a scored component: features of each candidate sentence, and a
linear scorer whose weights are fitted on reference answers.

Each sentence (or list item, or table row) of the retrieved passages gets a feature
vector against the standalone query:

- `cosine`, `cosine_gap`: the embedder's (MiniLM's) similarity of sentence and query,
  and its distance below the best sentence of the turn ("quit" reaches "resign");
  `centrality`: its similarity to the mean of all candidates (what the passages are
  mostly about);
- `stems`, `header`: the share of the query's content-word stems the sentence holds
  ("cap" meets "capped"), and the share only its chunk's heading holds;
- `idf`: rarity-weighted word overlap within the retrieved set, relative to the turn's
  best (the hand-set score of the first extractive answer);
- `answer_type`: the question asks for a kind of answer (`answer_types`) and the
  sentence states one; `typed_question`: it asks for one at all;
- `first`, `position`, `rank`, `words`, `short`, `item`: where the sentence stands in its
  passage and the passage in the ranking, its length, whether it is a list item;
- `prev_cosine`, `next_cosine`, `passage_centrality`, `passage_gap`, `cosine_rank`,
  `passage_share`: its neighbourhood. A reference answer retells a stretch of one passage,
  so a sentence next to one that meets the query, close to its own passage's centre, or
  from the passage most candidates come from, is more likely in it.

`Scorer` is a logistic model over them. Its weights are a plain JSON artifact
(`sentence_weights.json`) fitted on the MTRAG reference answers (a sentence is positive when
the extractive oracle quotes it), on each turn's top 3 retrieved passages, the passages the
answer reads (`bench/extractive_fit_retrieved.py --write`, leave-one-domain-out there).
Fitted on the gold passages (`bench/extractive_answers.py --fit`), where every candidate is
on topic, the weights paid a sentence's place and length (0.65, 0.63 per standardised unit)
far more than its similarity to the question (0.09); fitted on retrieved ones, 0.33, 0.41
and 0.32 + 0.42 for the cosine and its gap (bench/results/retrieved_fit.md). The scorer
ranks; `threshold` decides how many of the best sentences after the first one are worth
quoting.

A scorer that also read the MiniLM vectors themselves (query * sentence and
|query - sentence|, 768 more weights) was tried in session 24 and removed in session 26:
held out it moved F1 by less than the noise on MTRAG's retrieved passages and lost on its
gold ones (bench/results/extractive_vectors.md).
"""

from __future__ import annotations

import functools
import json
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources

import numpy as np
import Stemmer

from tellmemore.answer.answer_types import AnswerType, holds
from tellmemore.answer.words import STOP, WORD

FEATURES = (
    "cosine",
    "cosine_gap",
    "centrality",
    "stems",
    "header",
    "idf",
    "answer_type",
    "typed_question",
    "first",
    "position",
    "rank",
    "words",
    "short",
    "item",
    "prev_cosine",
    "next_cosine",
    "passage_centrality",
    "passage_gap",
    "cosine_rank",
    "passage_share",
)

RANK_BY = ("fused", "dense", "none")
"""What the `rank` feature reads (`Scorer.rank_by`): the passage's place in the fused order,
its place among the read passages by its own dense cosine to the query (`passage_ranks`), or
nothing (every passage rank 0)."""

Embed = Callable[[Sequence[str]], np.ndarray]
"""Texts -> unit-length vectors, one row each (an embedder's `embed_documents`)."""

_STEMMER = Stemmer.Stemmer("porter")


@functools.lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return word if len(word) <= 2 or not word.isalpha() else _STEMMER.stemWord(word)


def content_stems(text: str) -> set[str]:
    """Porter stems of `text`'s content words ("capped" -> "cap")."""
    return {_stem(w) for w in WORD.findall(text.lower()) if w not in STOP and len(w) > 1}


@dataclass(frozen=True)
class Candidate:
    """One quotable unit: chunk `hit_index`, unit `position` in it."""

    text: str
    hit_index: int
    position: int
    item: bool = False


def passage_ranks(dense: Sequence[float | None], rank_by: str = "fused") -> list[int]:
    """The rank (0 = best) the `rank` feature reads for each read passage, given in fused
    order with its dense cosine (None: BM25 alone found it).

    "fused" is the fused order itself. "dense" orders the passages by their own cosine to
    the query (a BM25-only passage last, ties kept in fused order): fusion's weights over
    the phrasings reorder near-tied passages (fused scores 0.0234, 0.0234, 0.0234), their
    cosines do not move. "none" gives every passage rank 0 (the feature is constant)."""
    if rank_by not in RANK_BY:
        raise ValueError(f"rank_by must be one of {RANK_BY}, got {rank_by!r}")
    n = len(dense)
    if rank_by == "fused":
        return list(range(n))
    if rank_by == "none":
        return [0] * n
    order = sorted(range(n), key=lambda i: (dense[i] is None, -(dense[i] or 0.0), i))
    out = [0] * n
    for place, i in enumerate(order):
        out[i] = place
    return out


def features(
    query: str,
    candidates: Sequence[Candidate],
    headers: Sequence[str],
    kind: AnswerType | None,
    embed: Embed | None,
    passage_rank: Sequence[int] | None = None,
) -> np.ndarray:
    """The feature matrix (len(candidates) x len(FEATURES)) of `candidates` for `query`.

    `headers[i]` is chunk i's heading line; `embed` None (no embedder) leaves the two
    cosine features at 0, which the fitted weights read as "no evidence"."""
    return features_and_vectors(query, candidates, headers, kind, embed, passage_rank)[0]


def features_and_vectors(
    query: str,
    candidates: Sequence[Candidate],
    headers: Sequence[str],
    kind: AnswerType | None,
    embed: Embed | None,
    passage_rank: Sequence[int] | None = None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """`features`, and the embedder's vectors they were computed from (the query's first,
    then each candidate's; None without `embed`): for benches that wrap it to add columns.

    `passage_rank[i]` is chunk i's rank for the `rank` feature (`passage_ranks`; None: its
    fused rank, i)."""
    n = len(candidates)
    out = np.zeros((n, len(FEATURES)), dtype=np.float64)
    vectors: np.ndarray | None = None
    if n == 0:
        return out, vectors
    col = {name: i for i, name in enumerate(FEATURES)}
    q_stems = content_stems(query)
    stems = [content_stems(c.text) for c in candidates]
    head_stems = [content_stems(h) for h in headers]
    df: Counter[str] = Counter()
    for s in stems:
        df.update(s)
    idf = np.array(
        [sum(math.log(1 + n / df[t]) for t in sorted(q_stems & s)) for s in stems], dtype=float
    )
    if idf.max() > 0:
        idf = idf / idf.max()
    if embed is not None:
        vectors = embed([query, *(c.text for c in candidates)])
        cos = vectors[1:] @ vectors[0]
        out[:, col["cosine"]] = cos
        out[:, col["cosine_gap"]] = cos - cos.max()
        centre = vectors[1:].mean(axis=0)
        norm = float(np.linalg.norm(centre))
        if norm > 0:
            out[:, col["centrality"]] = vectors[1:] @ (centre / norm)
        _neighbourhood(out, col, candidates, vectors[1:], cos)
    out[:, col["idf"]] = idf
    for i, (c, s) in enumerate(zip(candidates, stems, strict=True)):
        shared = q_stems & s
        inherited = (
            (q_stems & head_stems[c.hit_index]) - shared if c.hit_index < len(head_stems) else set()
        )
        out[i, col["stems"]] = len(shared) / len(q_stems) if q_stems else 0.0
        out[i, col["header"]] = len(inherited) / len(q_stems) if q_stems else 0.0
        typed = kind is not None and bool(shared) and holds(c.text, kind)
        out[i, col["answer_type"]] = float(typed)
        out[i, col["typed_question"]] = float(kind is not None)
        out[i, col["first"]] = float(c.position == 0)
        out[i, col["position"]] = 1.0 / (1 + c.position)
        place = c.hit_index if passage_rank is None else passage_rank[c.hit_index]
        out[i, col["rank"]] = 1.0 / (1 + place)
        length = len(WORD.findall(c.text))
        out[i, col["words"]] = math.log1p(length) / 4.0
        out[i, col["short"]] = float(length < 4)
        out[i, col["item"]] = float(c.item)
    return out, vectors


def _neighbourhood(
    out: np.ndarray,
    col: dict[str, int],
    candidates: Sequence[Candidate],
    vectors: np.ndarray,
    cos: np.ndarray,
) -> None:
    """The neighbourhood features (see the module docstring), written into `out`."""
    n = len(candidates)
    at = {(c.hit_index, c.position): i for i, c in enumerate(candidates)}
    passages: dict[int, list[int]] = {}
    for i, c in enumerate(candidates):
        passages.setdefault(c.hit_index, []).append(i)
    rank = np.empty(n)
    rank[np.argsort(-cos, kind="stable")] = np.arange(n)
    out[:, col["cosine_rank"]] = rank / n
    for members in passages.values():
        centre = vectors[members].mean(axis=0)
        norm = float(np.linalg.norm(centre))
        if norm > 0:
            out[members, col["passage_centrality"]] = vectors[members] @ (centre / norm)
        out[members, col["passage_gap"]] = cos[members] - cos[members].max()
        out[members, col["passage_share"]] = len(members) / n
    for i, c in enumerate(candidates):
        prev = at.get((c.hit_index, c.position - 1))
        nxt = at.get((c.hit_index, c.position + 1))
        out[i, col["prev_cosine"]] = cos[prev] if prev is not None else 0.0
        out[i, col["next_cosine"]] = cos[nxt] if nxt is not None else 0.0


@dataclass(frozen=True)
class Scorer:
    """A fitted logistic scorer: probability = sigmoid(terms @ weights + bias).

    With `interactions` (`first_mean`, `first_scale` set), the terms are the standardised
    features and every product of two of them (squares too): whether a high similarity
    matters depends on the passage it sits in, its length and the question's kind, which a
    sum of separate weights cannot say. Held out, F1 of the best 3 units 0.440 / 0.416 /
    0.369 on clapnq / cloud / govt against the linear model's 0.416 / 0.422 / 0.341
    (bench/results/extractive_selection.md), but in the whole answer it lost on MTRAG-UN
    cloud and quoted wrong sentences on the bundled sample documents, so the shipped
    weights are linear (bench/results/extractive_answers_pairs.md)."""

    weights: tuple[float, ...]
    bias: float
    threshold: float
    """A sentence after the best one is quoted when its probability reaches this."""
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    """Standardisation of the scored terms in the fit: (t - mean) / scale."""
    first_mean: tuple[float, ...] = ()
    first_scale: tuple[float, ...] = ()
    """Standardisation of the raw features before their products (empty: linear)."""
    rank_by: str = "fused"
    """What the `rank` feature was fitted on (`RANK_BY`, `passage_ranks`); the answer computes
    it the same way."""

    @property
    def interactions(self) -> bool:
        return bool(self.first_mean)

    def terms(self, x: np.ndarray) -> np.ndarray:
        """The scored terms of feature rows `x`: `x` itself, or with their products."""
        if not self.interactions:
            return x
        return expand(x, np.asarray(self.first_mean), np.asarray(self.first_scale))

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """Each feature row's probability."""
        z = (self.terms(x) - np.asarray(self.mean)) / np.asarray(self.scale)
        logits = z @ np.asarray(self.weights) + self.bias
        return np.asarray(1.0 / (1.0 + np.exp(-np.clip(logits, -30, 30))))

    def to_json(self, **about: object) -> str:
        data: dict[str, object] = {
            "version": 2,
            "features": list(FEATURES),
            "interactions": self.interactions,
            "weights": [round(w, 6) for w in self.weights],
            "bias": round(self.bias, 6),
            "threshold": self.threshold,
            "mean": [round(m, 6) for m in self.mean],
            "scale": [round(s, 6) for s in self.scale],
        }
        if self.interactions:
            data["first_mean"] = [round(m, 6) for m in self.first_mean]
            data["first_scale"] = [round(s, 6) for s in self.first_scale]
        if self.rank_by != "fused":
            data["rank_by"] = self.rank_by
        return json.dumps({**data, **about}, indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Scorer:
        data = json.loads(text)
        if list(data["features"]) != list(FEATURES):
            raise ValueError(
                f"sentence weights are for features {data['features']}, this code computes "
                f"{list(FEATURES)}: refit with bench/extractive_answers.py --fit"
            )
        scorer = cls(
            weights=tuple(data["weights"]),
            bias=float(data["bias"]),
            threshold=float(data["threshold"]),
            mean=tuple(data["mean"]),
            scale=tuple(data["scale"]),
            first_mean=tuple(data.get("first_mean", ())),
            first_scale=tuple(data.get("first_scale", ())),
            rank_by=str(data.get("rank_by", "fused")),
        )
        if scorer.rank_by not in RANK_BY:
            raise ValueError(
                f"sentence weights: rank_by {scorer.rank_by!r} is not one of {RANK_BY}"
            )
        n = len(FEATURES)
        terms = n + n * (n + 1) // 2 if scorer.interactions else n
        if not len(scorer.weights) == len(scorer.mean) == len(scorer.scale) == terms:
            raise ValueError(
                f"sentence weights hold {len(scorer.weights)} weights, {len(scorer.mean)} "
                f"means and {len(scorer.scale)} scales for {terms} terms: refit with "
                "bench/extractive_answers.py --fit"
            )
        return scorer


def expand(x: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """The standardised features of rows `x` followed by every product of two of them
    (i <= j, so squares too): the terms of a scorer with interactions."""
    z = (x - mean) / scale
    i, j = np.triu_indices(z.shape[1])
    return np.hstack([z, z[:, i] * z[:, j]])


@functools.cache
def shipped() -> Scorer:
    """The scorer fitted on all three MTRAG domains' retrieved passages
    (`sentence_weights.json`)."""
    text = resources.files("tellmemore.answer").joinpath("sentence_weights.json")
    return Scorer.from_json(text.read_text("utf-8"))


def fit(
    x: np.ndarray,
    y: np.ndarray,
    *,
    l2: float = 1.0,
    steps: int = 300,
    interactions: bool = False,
) -> Scorer:
    """A logistic fit (Newton's method, L2 penalty) of labels `y` (0/1) on features `x`,
    or on their standardised values and pairwise products with `interactions` (then a
    strong `l2`, ~100: 230 terms from a few thousand sentences)."""
    first_mean: tuple[float, ...] = ()
    first_scale: tuple[float, ...] = ()
    if interactions:
        m0, s0 = x.mean(axis=0), x.std(axis=0)
        s0[s0 == 0] = 1.0
        first_mean = tuple(float(v) for v in m0)
        first_scale = tuple(float(v) for v in s0)
        x = expand(x, m0, s0)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    w = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], l2)
    penalty[-1] = 0.0  # the bias is not shrunk
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ w, -30, 30)))
        grad = z.T @ (p - y) + penalty * w
        hess = (z * (p * (1 - p))[:, None]).T @ z + np.diag(penalty)
        delta = np.linalg.solve(hess, grad)
        w -= delta
        if np.abs(delta).max() < 1e-8:
            break
    return Scorer(
        weights=tuple(float(v) for v in w[:-1]),
        bias=float(w[-1]),
        threshold=0.5,
        mean=tuple(float(v) for v in mean),
        scale=tuple(float(v) for v in scale),
        first_mean=first_mean,
        first_scale=first_scale,
    )


def fit_listwise(
    groups: Sequence[np.ndarray],
    gains: Sequence[np.ndarray],
    members: Sequence[np.ndarray],
    *,
    l2: float | np.ndarray = 0.3,
    tau: float = 0.1,
    steps: int = 100,
) -> Scorer:
    """A linear ranking fitted turn by turn, then calibrated into a probability.

    `groups[t]` holds turn t's feature rows, `gains[t]` each candidate's worth against the
    reference (its content-word F1), `members[t]` 1 for the candidates the oracle quotes.
    The ranking minimises the cross-entropy between softmax(gains / `tau`) and the softmax
    of the scores within each turn (a listwise loss, Newton's method, L2 `l2`, one for all
    standardised features or one each): it learns
    which sentence of *this* turn is best, which a logistic fit over all sentences at
    once mixes with how many good sentences a turn has. Held out it ranks better at one to
    three sentences (bench/results/extractive_selection.md). The scores are then mapped to
    the oracle's quoting probability by a one-feature logistic fit, so `threshold` keeps
    its meaning and the JSON its shape."""
    x = np.vstack(groups)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    zs = [(g - mean) / scale for g in groups]
    targets = []
    for g in gains:
        e = np.exp((g - g.max()) / tau)
        targets.append(e / e.sum())
    w = np.zeros(x.shape[1])
    penalty = np.broadcast_to(np.asarray(l2, dtype=float), w.shape) * 2
    for _ in range(steps):
        grad = penalty * w
        hess = np.diag(penalty)
        for z, t in zip(zs, targets, strict=True):
            s = z @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            grad += z.T @ (p - t)
            zp = z.T @ p
            hess += (z * p[:, None]).T @ z - np.outer(zp, zp)
        delta = np.linalg.solve(hess, grad)
        w -= delta
        if np.abs(delta).max() < 1e-8:
            break
    # calibration: P(oracle quotes it) = sigmoid(a * score + b)
    score = np.concatenate([z @ w for z in zs])
    label = np.concatenate(members).astype(float)
    ab = np.zeros(2)
    design = np.column_stack([score, np.ones_like(score)])
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-np.clip(design @ ab, -30, 30)))
        grad2 = design.T @ (p - label)
        hess2 = (design * (p * (1 - p))[:, None]).T @ design + np.eye(2) * 1e-9
        step = np.linalg.solve(hess2, grad2)
        ab -= step
        if np.abs(step).max() < 1e-10:
            break
    return Scorer(
        weights=tuple(float(v) for v in w * ab[0]),
        bias=float(ab[1]),
        threshold=0.5,
        mean=tuple(float(v) for v in mean),
        scale=tuple(float(v) for v in scale),
    )
