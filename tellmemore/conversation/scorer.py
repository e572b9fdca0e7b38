"""One learned scorer for the history's candidate phrases: the antecedent a follow-up points
back to and the terms it carries are decided from one feature vector.

Term classification in the manner of QuReTeC (Voskarides et al. 2020), with the cheap
features of `selector.candidates` instead of a transformer: every candidate phrase of the
recent history gets one vector (its salience, where and how recently it was said, what
the message brings), and a standardised logistic regression gives the probability that a
person would carry it into the message. Binding ranks its antecedent candidates by that
probability; the selector's carry veto reads the best one. The model is trained by
`scripts/train_scorer.py` on human rewrites and, where no rewrite exists, on distant
labels from the gold passages (a phrase whose new terms the answer's passage holds is
one the search needed), fitted leave-one-domain-out before it ships as `scorer.json`.
Without a model file, the hand-set salience (`binding.Candidate.score`) decides.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from tellmemore.conversation.binding import Candidate, Salience
from tellmemore.conversation.gate import GateResult
from tellmemore.conversation.selector import FEATURES, Scored, SelectorModel, candidates
from tellmemore.types import Turn

__all__ = [
    "FEATURES",
    "Scored",
    "Scorer",
    "default_scorer",
    "features",
    "rank_candidates",
]

LABELS = ("rewrite", "gold", "rewrite+gold")
"""What a model was trained on: human rewrites, distant labels from gold passages, or both."""


@dataclass(frozen=True)
class Scorer:
    """A trained model over `FEATURES` and what it was trained on."""

    model: SelectorModel
    labels: str = "rewrite"

    def score(self, scored: Sequence[Scored]) -> list[Scored]:
        """The candidates with their probabilities, most probable first (ties: given order)."""
        out = [Scored(s.phrase, s.features, self.model.probability(s.features)) for s in scored]
        return sorted(out, key=lambda s: -s.probability)

    def to_json(self, **extra: Any) -> dict[str, Any]:
        return self.model.to_json(labels=self.labels, **extra)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Scorer:
        labels = str(data.get("labels", "rewrite"))
        if labels not in LABELS:
            raise ValueError(f"scorer labels {labels!r}: one of {', '.join(LABELS)}")
        return cls(SelectorModel.from_json(data), labels)


def features(
    message: str, history: Sequence[Turn], salience: Salience, verdict: GateResult
) -> list[Scored]:
    """One feature vector per candidate phrase of the history (unscored): the vector the
    selector and binding share."""
    return candidates(message, history, salience, verdict)


@lru_cache(maxsize=1)
def default_scorer() -> Scorer | None:
    """The shipped scorer (`scorer.json` beside this module), or the file named by
    TELLMEMORE_SCORER_WEIGHTS (a leave-one-domain-out model, or one trained on your own
    conversations); None when absent, and the hand-set salience decides."""
    override = os.environ.get("TELLMEMORE_SCORER_WEIGHTS")
    try:
        if override:
            text = Path(override).read_text(encoding="utf-8")
        else:
            text = resources.files("tellmemore.conversation").joinpath("scorer.json").read_text()
    except (FileNotFoundError, OSError):
        if override:
            raise
        return None
    return Scorer.from_json(json.loads(text))


def rank_candidates(
    cands: Sequence[Candidate],
    scored: Sequence[Scored],
    scorer: Scorer | None,
) -> list[tuple[Candidate, float | None]]:
    """Antecedent candidates best first by the learned probability of the phrase with the
    same stems; a candidate the features do not cover (or every one, without a scorer)
    keeps its hand-set order after the scored ones. Probability None: not scored."""
    if scorer is None:
        return [(c, None) for c in cands]
    prob = {s.phrase.stems: s.probability for s in scorer.score(scored)}
    known = [(c, prob[c.stems]) for c in cands if c.stems in prob]
    rest: list[tuple[Candidate, float | None]] = [(c, None) for c in cands if c.stems not in prob]
    known.sort(key=lambda cp: -cp[1])
    return [*known, *rest]
