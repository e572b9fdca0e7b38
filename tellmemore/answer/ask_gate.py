"""A learned gate for asking back, behind the hand-written ones (`retrieval.learned_ask`).

The hand-written gates of `answer.clarify.ask_back` ask on a description nothing picks out
or on a first question of at most two content words; on 25 held-out handbooks they ask on
27% of the underspecified turns ("What's the cap?", "How much notice do I need to give?")
and on 1% of the answerable ones. This gate weighs eight signals read from the message and
its hits, no word list of its own, with a logistic scorer fitted on the labelled
conversations of 27 handbook and help-site corpora (`bench/ask_gate_replay.py --write`):

- how close the best passage comes, on the index's own scale (0 at the foreign median, 1
  at the own median: `answer.calibration`), and how far the fifth falls below it;
- how many documents the top five come from;
- the message's content words (log), whether it is the first turn, whether the resolver
  changed it, whether it points at nothing (`vague.points_at_nothing`) and whether it asks
  a value (`stated.asked_value`).

A short first question that no passage matches closely and whose hits spread over several
documents is the underspecified one (bench/results/first_turn_askback.md). When the
scorer says ask, the question and its options are `answer.clarify`'s: the top passages'
subjects the conversation has not named, two at least, none picked.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache

from tellmemore.answer import clarify, stated, vague
from tellmemore.answer.calibration import Calibration
from tellmemore.answer.scorer import Scorer, load_scorer
from tellmemore.conversation.text import content_words
from tellmemore.types import Hit, Resolution, Turn

FEATURES = (
    "top_cosine",
    "top_gap",
    "documents",
    "words",
    "first_turn",
    "resolved",
    "pointer",
    "asks_value",
)
TOP = 5
"""Hits read: the passages whose subjects would be offered."""
MODEL = "ask_gate_model"


def signals(
    message: str,
    query: str,
    first_turn: bool,
    dense: Sequence[float | None],
    docs: Sequence[str],
    calibration: Calibration,
) -> dict[str, float] | None:
    """The gate's features for a turn whose top hits have these `dense` scores and `docs`,
    or None when they come from fewer than two documents (nothing to offer).

    Plain values, so the replay of recorded trials reads exactly what a turn reads."""
    docs = list(docs[:TOP])
    if len(set(docs)) < 2:
        return None
    known = [d for d in dense[:TOP] if d is not None]
    span = max(calibration.own_p50 - calibration.foreign_p50, 1e-3)
    top = max(known) if known else calibration.foreign_p50
    return {
        "top_cosine": (top - calibration.foreign_p50) / span,
        "top_gap": (top - min(known)) / span if known else 0.0,
        "documents": float(len(set(docs))),
        "words": math.log1p(len(content_words(message))),
        "first_turn": float(first_turn),
        "resolved": float(query.strip() != message.strip()),
        "pointer": float(vague.points_at_nothing(message)),
        "asks_value": float(stated.asked_value(message) is not None),
    }


@cache
def shipped() -> Scorer:
    """The gate fitted on the bundled corpora (`ask_gate_model.json`)."""
    return load_scorer(MODEL)


def ask(
    message: str,
    history: Sequence[Turn],
    resolution: Resolution,
    hits: Sequence[Hit],
    calibration: Calibration,
    scorer: Scorer | None = None,
) -> tuple[str, tuple[str, ...]] | None:
    """The clarifying question and its options when the gate says ask and the top
    passages offer two subjects or more that the conversation has not named; else None
    (and never right after a clarifying question)."""
    top = list(hits[:TOP])
    values = signals(
        message,
        resolution.query,
        not history,
        [h.dense for h in top],
        [h.chunk.doc_id for h in top],
        calibration,
    )
    if values is None or not (scorer or shipped()).decide(values):
        return None
    if clarify.just_asked(history) or clarify.picked(message, history, hits):
        return None
    choices = clarify.options(message, history, hits)
    return (clarify.question(choices), tuple(choices)) if len(choices) >= 2 else None
