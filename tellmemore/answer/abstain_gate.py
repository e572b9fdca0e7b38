"""A learned gate for abstaining, behind the rules and floors (`retrieval.learned_abstain`).

The default abstains by rules and floors; on 25 held-out handbooks and help sites they
caught 68 of 350 unanswerable questions. This gate reads the turns the default answered:
the nine `answer.turn_signals` the second look at an abstention reads
(`answer.abstain_override`: the best match on the index's own scale and how far the fifth
falls, how many documents, the message's content words, first turn, resolved, asks a value,
the share of the searched words the first three passages hold, a searched word none of the
top five holds), and since session 48 a tenth, `value_absent` (the question asks a quantity
and none of the first three passages states one: the answer's type is missing), weighed by
a logistic scorer fitted on the labelled conversations of 29 handbook and help-site corpora
(`bench/learned_gate.py abstain base45 --exclude ultralytics docker --write`). Its
threshold lets through at most 1% of the answerable turns it was fitted on.

The two gates decide disjoint turns (this one the answered, the other the abstained on), so
together they re-sort the default's abstentions rather than add to them.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from tellmemore.answer import abstain_override
from tellmemore.answer.scorer import Scorer, load_scorer

__all__ = ["FEATURES", "MODEL", "abstains", "shipped"]

FEATURES = (*abstain_override.FEATURES, "value_absent")
"""The second look's signals, and whether the asked quantity is missing from the evidence."""
MODEL = "abstain_gate_model"


@cache
def shipped() -> Scorer:
    """The gate fitted on the bundled corpora (`abstain_gate_model.json`)."""
    return load_scorer(MODEL)


def abstains(values: Mapping[str, float], scorer: Scorer | None = None) -> bool:
    """Whether a turn the default answered, with these `turn_signals`, reads as one the
    documents do not answer."""
    return (scorer or shipped()).decide(values)
