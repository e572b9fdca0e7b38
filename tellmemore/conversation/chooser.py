"""A learned choice among a pronoun's likeliest antecedents (issue 20: learned parts).

`passes.fit` puts each of the first few candidates in the referent's place and asks the
index how well the question then fits. The hand-set rule added salience and twice that fit.
Here one feature row per candidate describes it against the others of the same decision:
- its salience and fit, each as the gap below the decision's best;
- its salience rank;
- who said it and how many turns back;
- its length and how often it was mentioned.

A conditional logit scores the rows: which candidate of this decision is the one meant.
Its weights (`antecedent_weights.json`) are fitted on the labelled bindings of the bundled
handbook and help-site conversations (`bench/antecedent_chooser.py --write`), never on
MTRAG. Leave one corpus out it picks the labelled antecedent in 181 of 464 held-out
decisions, the hand-set rule in 153; end to end it moved nothing on two fresh corpora and
lost 0.006 on MTRAG-UN clapnq, so it is opt-in (bench/results/antecedent_chooser.md).
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

import numpy as np

from tellmemore.conversation.binding import Candidate

FEATURES = (
    "salience_gap",
    "fit_gap",
    "salience_rank",
    "user",
    "turns_back",
    "words",
    "mentions",
)


@dataclass(frozen=True)
class Chooser:
    """A fitted conditional logit: the candidate with the highest standardised score wins."""

    weights: tuple[float, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]

    def best(self, x: np.ndarray) -> int:
        """The index of the best row of `x` (one row per candidate, columns `FEATURES`)."""
        z = (x - np.asarray(self.mean)) / np.asarray(self.scale)
        return int(np.argmax(z @ np.asarray(self.weights)))


def features(
    head: Sequence[tuple[Candidate, float]], fits: Sequence[float], n_turns: int
) -> np.ndarray:
    """One row per candidate of `head` (candidate, salience), columns `FEATURES`."""
    sal = np.array([s for _, s in head], dtype=float)
    fit = np.asarray(fits, dtype=float)
    rows = []
    for i, (c, _) in enumerate(head):
        rows.append(
            [
                sal[i] - sal.max(),
                fit[i] - fit.max(),
                float(i),
                float(c.role == "user"),
                float(n_turns - c.turn),
                float(len(c.phrase.text.split())),
                math.log1p(c.mentions),
            ]
        )
    return np.array(rows, dtype=float)


@functools.cache
def shipped() -> Chooser | None:
    """The bundled weights, or None when the file is absent or was fitted on other features."""
    path = resources.files("tellmemore.conversation").joinpath("antecedent_weights.json")
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    if tuple(data["features"]) != FEATURES:
        return None
    return Chooser(tuple(data["weights"]), tuple(data["mean"]), tuple(data["scale"]))
