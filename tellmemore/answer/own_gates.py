"""The learned gates fitted on a user's own labelled conversations (`retrieval.gate_models`).

The shipped gates (`answer.ask_gate`, `answer.abstain_gate`, `answer.abstain_override`) are
fitted on the bundled handbooks and help sites. A user whose documents and questions are
unlike those (an encyclopedia, a product's cloud docs) can label a few hundred turns in
the MTRAG-UN format (`behaviour.jsonl`: ANSWERABLE, PARTIAL, UNANSWERABLE, UNDERSPECIFIED)
and run `tellmemore eval DATA --fit-gates DIR`: every labelled turn runs as a real turn,
its `turn_signals` are kept with the floor's own verdict, and each gate is refitted on the
turns it decides, with the same features, penalty and false rates as the shipped fit
(`bench/learned_gate.py`). `retrieval.gate_models = DIR` then reads those weights in place
of the shipped ones; a gate with too few labelled turns to fit keeps the shipped weights.
`cross_check` tells the user whether to switch: each gate judged fold by fold on turns it
was not fitted on, beside the bundled gate on the same turns (a few dozen turns of one's own
usually lose to the bundled corpora).

Fitted on one MTRAG-UN domain and run on the other: bench/results/own_gates.md.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from tellmemore.answer import abstain_gate, abstain_override, ask_gate
from tellmemore.answer.scorer import Scorer, fit, load_scorer
from tellmemore.errors import ConfigError

L2 = 1.0
"""The shipped gates' penalty."""
MIN_POSITIVES = 5
MIN_NEGATIVES = 20
"""Fewer labelled turns than this on either side: the gate keeps the shipped weights."""
FOLDS = 5
"""`cross_check`'s folds."""


@dataclass(frozen=True)
class GateSpec:
    name: str
    model: str
    """The weights file's name, the shipped one's too."""
    features: tuple[str, ...]
    decides: str
    """The floor verdict of the turns it decides (`TurnRequest.floor`)."""
    positive: tuple[str, ...]
    """The labels it should act on."""
    max_false: float
    """The share of the other labels it may act on in the fit: the shipped gate's."""
    shipped: Callable[[], Scorer]
    """The bundled gate."""


GATES = (
    GateSpec(
        "ask",
        ask_gate.MODEL,
        ask_gate.FEATURES,
        "answer",
        ("UNDERSPECIFIED",),
        0.01,
        ask_gate.shipped,
    ),
    GateSpec(
        "abstain",
        abstain_gate.MODEL,
        abstain_gate.FEATURES,
        "answer",
        ("UNANSWERABLE",),
        0.01,
        abstain_gate.shipped,
    ),
    GateSpec(
        "override",
        abstain_override.MODEL,
        abstain_override.FEATURES,
        "abstain",
        ("ANSWERABLE", "PARTIAL"),
        0.05,
        abstain_override.shipped,
    ),
)


@dataclass(frozen=True)
class GateRow:
    """One labelled turn as a gate reads it."""

    label: str
    floor: str
    signals: Mapping[str, float]


def _decides(spec: GateSpec, row: GateRow) -> bool:
    if row.floor != spec.decides or not row.signals:
        return False
    return spec.name != "ask" or ask_gate.reachable(row.signals)


def fit_gates(rows: Sequence[GateRow], source: str) -> dict[str, Scorer | str]:
    """Each gate fitted on the rows it decides, or why it was not (too few turns)."""
    out: dict[str, Scorer | str] = {}
    for spec in GATES:
        mine = [r for r in rows if _decides(spec, r)]
        positives = sum(r.label in spec.positive for r in mine)
        negatives = len(mine) - positives
        if positives < MIN_POSITIVES or negatives < MIN_NEGATIVES:
            out[spec.name] = (
                f"not fitted: {positives} {'/'.join(spec.positive)} and {negatives} other "
                f"turns it decides (needs {MIN_POSITIVES} and {MIN_NEGATIVES}); the shipped "
                "gate stays"
            )
            continue
        enough = math.ceil(1 / spec.max_false)
        caveat = (
            f"; only {negatives} other turns, fewer than the {enough} that measure a "
            f"{spec.max_false:g} false rate: check it on labelled turns it was not fitted on"
            if negatives < enough
            else ""
        )
        out[spec.name] = _fit(
            spec,
            mine,
            f"{len(mine)} labelled turns of {source} ({positives} {'/'.join(spec.positive)}); "
            f"L2 {L2:g}, threshold at {spec.max_false:g} of the others (tellmemore eval "
            f"--fit-gates){caveat}",
        )
    return out


def _fit(spec: GateSpec, rows: Sequence[GateRow], fitted_on: str = "") -> Scorer:
    x = np.array([[r.signals[f] for f in spec.features] for r in rows])
    y = np.array([r.label in spec.positive for r in rows], dtype=float)
    return fit(
        f"{spec.name}_gate",
        spec.features,
        x,
        y,
        l2=L2,
        max_positive_rate=spec.max_false,
        fitted_on=fitted_on,
    )


def cross_check(
    rows: Sequence[GateRow], fitted: Mapping[str, Scorer | str], folds: int = FOLDS
) -> dict[str, str]:
    """For each fitted gate, whether to switch: on the user's own turns, each fold decided
    by the gate fitted on the other folds, beside the bundled gate on the same turns. A gate
    fitted and judged on the same turns always looks right; this one is judged on turns it
    was not fitted on."""
    out = {}
    for spec in GATES:
        if not isinstance(fitted.get(spec.name), Scorer):
            continue
        mine = [r for r in rows if _decides(spec, r)]
        own = [False] * len(mine)
        for k in range(folds):
            rest = [r for i, r in enumerate(mine) if i % folds != k]
            if len({r.label in spec.positive for r in rest}) < 2:
                continue  # a fold with one kind of turn left to fit on: it acts on nothing
            gate = _fit(spec, rest)
            for i in range(k, len(mine), folds):
                own[i] = gate.decide(mine[i].signals)
        bundled = [spec.shipped().decide(r.signals) for r in mine]
        out[spec.name] = (
            f"{folds}-fold on your turns: acts on {_counts(spec, mine, own)}; the bundled gate "
            f"on the same turns: {_counts(spec, mine, bundled)}"
        )
    return out


def _counts(spec: GateSpec, rows: Sequence[GateRow], acts: Sequence[bool]) -> str:
    hit = sum(a and r.label in spec.positive for r, a in zip(rows, acts, strict=True))
    false = sum(a and r.label not in spec.positive for r, a in zip(rows, acts, strict=True))
    positives = sum(r.label in spec.positive for r in rows)
    return f"{hit}/{positives} {'/'.join(spec.positive)} and {false}/{len(rows) - positives} others"


def write_gates(fitted: Mapping[str, Scorer | str], folder: Path) -> dict[str, str]:
    """The fitted gates' weights files written in `folder` (created): per gate, the file
    written or why it was not fitted. A gate not fitted this time loses an older file, so
    the folder holds this fit only."""
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for spec in GATES:
        scorer = fitted[spec.name]
        path = folder / f"{spec.model}.json"
        if isinstance(scorer, Scorer):
            path.write_text(json.dumps(scorer.to_json(), indent=1) + "\n", encoding="utf-8")
            out[spec.name] = f"{path}: fitted on {scorer.fitted_on}"
        else:
            path.unlink(missing_ok=True)
            out[spec.name] = scorer
    return out


def own_gate(folder: str, name: str) -> Scorer | None:
    """The gate `name` ("ask", "abstain", "override") fitted into `folder`, or None for the
    shipped one ("" or a gate the fit left out). A missing folder is a `ConfigError`."""
    if not folder:
        return None
    spec = next(s for s in GATES if s.name == name)
    path = Path(folder).expanduser()
    if not path.is_dir():
        raise ConfigError(
            f"retrieval.gate_models: {folder!r} is not a folder; give the --fit-gates folder "
            "of `tellmemore eval`, or leave it empty for the shipped gates"
        )
    file = path / f"{spec.model}.json"
    if not file.is_file():
        return None
    scorer = _load(str(file), file.stat().st_mtime_ns)
    if scorer.features != spec.features:
        raise ConfigError(
            f"retrieval.gate_models: {file} weighs {list(scorer.features)}, but the {name} "
            f"gate reads {list(spec.features)}: fit it again with this version"
        )
    return scorer


@cache
def _load(file: str, mtime_ns: int) -> Scorer:
    """Read once per version of the file (`mtime_ns` is the cache key's part)."""
    path = Path(file)
    try:
        return load_scorer(path.stem, path.parent)
    except (ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"retrieval.gate_models: {file} is not a gate's weights: {exc}") from None
