"""A learned gate for asking back, behind the hand-written ones (`retrieval.learned_ask`,
on by default since session 48).

The hand-written gates of `answer.clarify.ask_back` ask on a description nothing picks out
or on a first question of at most two content words; on 25 held-out handbooks they ask on
27% of the underspecified turns ("What's the cap?", "How much notice do I need to give?")
and on 1% of the answerable ones. This gate weighs ten signals read from the message and
its hits (`answer.turn_signals`: the best match on the index's own scale and how far the
fifth falls, how many documents, the message's content words, first turn, resolved, points
at nothing, asks a value, and how close a second document comes in cosine and in the
searched words it holds), no word list of its own, with a logistic scorer fitted on the
labelled conversations of 41 handbook and help-site corpora (`bench/learned_gate.py ask
off48 --exclude ultralytics docker --write`).

A short first question that no passage matches closely, and that a second document fits
nearly as well as the first, is the underspecified one (bench/results/first_turn_askback.md,
bench/results/ask_gate.md). When the scorer says ask, the question and its options are
`answer.clarify`'s: the top passages' subjects the conversation has not named, two at
least, none picked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache

from tellmemore.answer import clarify, turn_signals
from tellmemore.answer.scorer import Scorer, load_scorer
from tellmemore.types import Hit, Turn

FEATURES = (*turn_signals.CORE, "pointer", "asks_value", "rival_gap", "rival_coverage")
"""The `turn_signals` this gate reads."""
MODEL = "ask_gate_model"


def reachable(values: Mapping[str, float]) -> bool:
    """The top five come from two documents or more: there is something to offer."""
    return values["documents"] >= 2


@cache
def shipped() -> Scorer:
    """The gate fitted on the bundled corpora (`ask_gate_model.json`)."""
    return load_scorer(MODEL)


def ask(
    message: str,
    history: Sequence[Turn],
    hits: Sequence[Hit],
    values: Mapping[str, float],
    scorer: Scorer | None = None,
) -> tuple[str, tuple[str, ...]] | None:
    """The clarifying question and its options when the gate says ask on a turn with these
    `turn_signals` and the top passages offer two subjects or more that the conversation has
    not named; else None (and never right after a clarifying question)."""
    if not reachable(values) or not (scorer or shipped()).decide(values):
        return None
    if clarify.just_asked(history) or clarify.picked(message, history, hits):
        return None
    choices = clarify.options(message, history, hits)
    return (clarify.question(choices), tuple(choices)) if len(choices) >= 2 else None
