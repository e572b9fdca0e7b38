"""Does one sentence state what the question asks? A detector that reads the vectors.

The cosine of a question and a sentence says they are about the same subject; it cannot
say whether the sentence states the asked property ("how many were arrested?" against a
sentence on the same protests). This detector reads the two MiniLM vectors themselves:
a regularised logistic model over their elementwise product and absolute difference
(`[q * s, |q - s|]`, 2 x 384 values), plus a few scalars (the cosine, the share of the
question's words the sentence holds, whether it states the kind of value the question
asks for; not its length: the training labels, word overlap with a long reference
answer, favour long sentences, and a detector reading length picks a turn's longest
sentence). It was fitted on MTRAG by gold removal (`bench/answer_detector.py`):
positives are the sentences of the gold passages that carry the reference answer,
negatives the sentences of the top passages left once the gold ones are removed (about
the subject, not answering).

The turn's feature (`answer_detected`) is the detector's best logit over the sentences of
its top passages; an abstain scorer reads it only when its model names it
(`retrieval.abstain_model = "answer_detector"`), so the default pays nothing. Held out,
the vectors did not carry from one MTRAG domain to another (bench/results/
answer_detector.md): the shipped weights are strongly regularised and lean on the cosine
and the words held.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np
import numpy.typing as npt

from tellmemore.answer import answer_types
from tellmemore.answer.units import sentences
from tellmemore.conversation.text import content_words, stem
from tellmemore.index.base import Vector
from tellmemore.types import Hit

FEATURE = "answer_detected"
"""The turn feature's name, as an abstain scorer lists it."""
SHIPPED = "answer_detector"
"""The shipped weights (`answer_detector.json` beside this module)."""
HITS = 5
"""Top passages whose sentences are read."""
MAX_SENTENCES = 96
"""Sentences embedded per turn at most (about 0.2-0.5 s with MiniLM on a CPU)."""
SCALARS = ("cos", "held", "states_kind")
"""The scalars after the vector pair, in order."""
FLOOR = -12.0
"""The feature when no sentence can be read (nothing states anything)."""

Matrix = npt.NDArray[np.float64]


def scalars(question: str, texts: Sequence[str], cos: npt.ArrayLike) -> Matrix:
    """Per sentence: its cosine to the question, the share of the question's content
    words (stemmed) it holds, and 1.0 when the question asks for a value (a number,
    price, duration, time) that the sentence states."""
    wanted = {stem(w) for w in content_words(question)}
    kind = answer_types.asked_type(question)
    if kind not in answer_types.VALUE_KINDS:
        kind = None
    rows = []
    for t, c in zip(texts, np.asarray(cos, dtype=float), strict=True):
        held = {stem(w) for w in content_words(t)}
        share = len(wanted & held) / len(wanted) if wanted else 0.0
        states = 1.0 if kind is not None and answer_types.holds(t, kind) else 0.0
        rows.append([float(c), share, states])
    return np.asarray(rows, dtype=float).reshape(len(rows), len(SCALARS))


def pair_features(
    question: str, q: npt.ArrayLike, texts: Sequence[str], s: npt.ArrayLike
) -> Matrix:
    """One row per sentence: `[q * s, |q - s|, scalars]` (vectors L2-normalised first)."""
    qv = _unit(np.asarray(q, dtype=float).reshape(1, -1))[0]
    sv = _unit(np.asarray(s, dtype=float).reshape(len(texts), -1))
    return np.hstack([sv * qv, np.abs(sv - qv), scalars(question, texts, sv @ qv)])


def _unit(m: Matrix) -> Matrix:
    n = np.linalg.norm(m, axis=1, keepdims=True)
    return np.asarray(m / np.where(n > 0, n, 1.0), dtype=float)


@dataclass(frozen=True)
class Detector:
    """`logit = bias + features @ weights` (standardisation folded into the weights)."""

    weights: npt.NDArray[np.float64]
    bias: float
    fitted_on: str = ""

    def logits(self, features: Matrix) -> npt.NDArray[np.float64]:
        return np.asarray(features @ self.weights + self.bias, dtype=float)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": SHIPPED,
            "scalars": list(SCALARS),
            "weights": [float(f"{w:.5g}") for w in self.weights],
            "bias": round(self.bias, 6),
            "fitted_on": self.fitted_on,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Detector:
        if list(data.get("scalars", [])) != list(SCALARS):
            raise ValueError(f"answer detector scalars {data.get('scalars')} != {SCALARS}")
        return cls(np.asarray(data["weights"], dtype=float), float(data["bias"]),
                   str(data.get("fitted_on", "")))  # fmt: skip


@lru_cache(maxsize=1)
def shipped() -> Detector:
    text = resources.files("tellmemore.answer").joinpath(f"{SHIPPED}.json").read_text()
    return Detector.from_json(json.loads(text))


def turn_sentences(hits: Sequence[Hit], n_hits: int = HITS) -> list[str]:
    """The sentences (with words) of the top distinct passages, at most `MAX_SENTENCES`."""
    seen: set[str] = set()
    texts: list[str] = []
    for h in hits:
        if h.chunk.id in seen:
            continue
        seen.add(h.chunk.id)
        texts += [t for t in sentences(h.chunk.text, h.chunk.header) if content_words(t)]
        if len(seen) == n_hits:
            break
    return list(dict.fromkeys(texts))[:MAX_SENTENCES]


def best_logit(
    question: str,
    hits: Sequence[Hit],
    embed: Callable[[list[str]], Vector] | None,
    detector: Detector | None = None,
) -> float:
    """The detector's best logit over the sentences of the top passages (`FLOOR` when
    there is no question, sentence or embedder). ValueError when the embedder is not the
    one it was fitted on (its vectors are another size)."""
    texts = turn_sentences(hits)
    if embed is None or not question.strip() or not texts:
        return FLOOR
    vectors = np.asarray(embed([question, *texts]), dtype=float)
    d = detector or shipped()
    if 2 * vectors.shape[1] + len(SCALARS) != len(d.weights):
        raise ValueError(
            f"the answer detector reads {(len(d.weights) - len(SCALARS)) // 2}-dimensional "
            f"vectors (all-MiniLM-L6-v2); this embedder gives {vectors.shape[1]}"
        )
    return float(d.logits(pair_features(question, vectors[0], texts, vectors[1:])).max())
