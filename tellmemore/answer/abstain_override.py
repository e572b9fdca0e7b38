"""A second look at an abstention: answer when a learned gate reads the turn as answerable
(`retrieval.learned_answer`).

The default abstains by rules and floors (a missing focus, an unstated phrase or value, the
cosine floor and lexical coverage). On 25 held-out corpora 184 of its 252 abstentions on
labelled turns were on answerable questions, and only 68 on unanswerable ones. This gate
reads the turns the default abstained on: nine `answer.turn_signals` (the best match on the
index's own scale and how far the fifth falls, how many documents, the message's content
words, first turn, resolved, asks a value, the share of the searched words the first three
passages hold, a searched word none of the top five holds), weighed by a logistic scorer
fitted on the labelled conversations of 29 handbook and help-site corpora
(`bench/learned_gate.py override --write`). Its threshold lets through at most 5% of the
right abstentions it was fitted on.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from tellmemore.answer import turn_signals
from tellmemore.answer.scorer import Scorer, load_scorer

FEATURES = (*turn_signals.CORE, "asks_value", "coverage", "absent_word")
"""The `turn_signals` this gate reads."""
MODEL = "abstain_override_model"


@cache
def shipped() -> Scorer:
    """The gate fitted on the bundled corpora (`abstain_override_model.json`)."""
    return load_scorer(MODEL)


def answers(values: Mapping[str, float], scorer: Scorer | None = None) -> bool:
    """Whether a turn the default abstained on, with these `turn_signals`, reads as one the
    documents answer."""
    return (scorer or shipped()).decide(values)
