"""A small logistic scorer over a few named features, shipped as plain JSON.

The decisions of `answer.judge` (abstain, ask back) are each made by one of these: a
handful of features, standardised, weighted, and compared with a threshold chosen on a
labelled domain the scorer is then reported on the other of (`scripts/fit_behaviour.py`).
Plain JSON, so a user can refit on their own labelled conversations and point
`TELLMEMORE_BEHAVIOUR_DIR` (read at the edge, passed down) at the files.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class Scorer:
    """`probability(x) = sigmoid(bias + sum w_i (x_i - mean_i) / scale_i)`; decide above
    `threshold`."""

    name: str
    features: tuple[str, ...]
    weights: tuple[float, ...]
    bias: float
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    threshold: float
    fitted_on: str = ""

    def __post_init__(self) -> None:
        n = len(self.features)
        if not (len(self.weights) == len(self.mean) == len(self.scale) == n):
            raise ValueError(f"scorer {self.name!r}: {n} features but mismatched parameters")

    def probability(self, values: Mapping[str, float]) -> float:
        missing = [f for f in self.features if f not in values]
        if missing:
            raise ValueError(f"scorer {self.name!r} needs features {missing}; got {sorted(values)}")
        z = self.bias
        for f, w, m, s in zip(self.features, self.weights, self.mean, self.scale, strict=True):
            z += w * (float(values[f]) - m) / s
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def decide(self, values: Mapping[str, float]) -> bool:
        return self.probability(values) >= self.threshold

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "features": list(self.features),
            "weights": [round(w, 6) for w in self.weights],
            "bias": round(self.bias, 6),
            "mean": [round(m, 6) for m in self.mean],
            "scale": [round(s, 6) for s in self.scale],
            "threshold": round(self.threshold, 6),
            "fitted_on": self.fitted_on,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Scorer:
        return cls(
            name=str(data["name"]),
            features=tuple(str(f) for f in data["features"]),
            weights=tuple(float(w) for w in data["weights"]),
            bias=float(data["bias"]),
            mean=tuple(float(m) for m in data["mean"]),
            scale=tuple(float(s) for s in data["scale"]),
            threshold=float(data["threshold"]),
            fitted_on=str(data.get("fitted_on", "")),
        )


def load_scorer(name: str, directory: Path | None = None) -> Scorer:
    """`<name>.json` from `directory`, or the one shipped beside this module."""
    if directory is not None:
        text = (directory / f"{name}.json").read_text(encoding="utf-8")
    else:
        text = resources.files("tellmemore.answer").joinpath(f"{name}.json").read_text()
    return Scorer.from_json(json.loads(text))


def fit(
    name: str,
    features: Sequence[str],
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    *,
    l2: float = 1.0,
    max_positive_rate: float = 0.05,
    fitted_on: str = "",
) -> Scorer:
    """L2-regularised logistic regression by Newton steps (a few features, a few hundred
    rows), then the lowest threshold that says yes on at most `max_positive_rate` of the
    negatives: a wrong abstention or question costs more than a missed one."""
    xs = np.asarray(x, dtype=float)
    ys = np.asarray(y, dtype=float)
    mean = xs.mean(axis=0)
    scale = xs.std(axis=0)
    scale[scale < 1e-9] = 1.0
    z = np.hstack([np.ones((len(xs), 1)), (xs - mean) / scale])
    w = np.zeros(z.shape[1])
    reg = np.eye(z.shape[1]) * l2
    reg[0, 0] = 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ w, -30, 30)))
        grad = z.T @ (p - ys) + reg @ w
        hess = (z.T * (p * (1 - p))) @ z + reg + np.eye(len(w)) * 1e-9
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    p = 1.0 / (1.0 + np.exp(-np.clip(z @ w, -30, 30)))
    negatives = np.sort(p[ys == 0])[::-1]
    allowed = math.floor(max_positive_rate * len(negatives))
    # above the (allowed+1)-th highest negative: at most `allowed` negatives pass
    threshold = float(negatives[allowed]) + 1e-6 if len(negatives) > allowed else 0.5
    return Scorer(
        name=name,
        features=tuple(features),
        weights=tuple(float(v) for v in w[1:]),
        bias=float(w[0]),
        mean=tuple(float(v) for v in mean),
        scale=tuple(float(v) for v in scale),
        threshold=min(max(threshold, 0.0), 1.0),
        fitted_on=fitted_on,
    )
