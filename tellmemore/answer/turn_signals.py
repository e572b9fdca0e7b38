"""Signals of a turn read from its message and its hits, for the learned gates.

The learned gates (`answer.ask_gate`, `answer.abstain_gate`, `answer.abstain_override`)
each weigh some of these with a logistic scorer fitted on labelled conversations. Plain
values in, so that the replay of recorded trials (`bench/learned_gate.py`) reads exactly
what a turn reads; no word list of their own:

- `top_cosine`: how close the best passage comes, on the index's own scale (0 at the foreign
  median, 1 at the own median: `answer.calibration`); `top_gap`: how far the fifth falls
  below it, on the same scale;
- `documents`: how many documents the top five come from;
- `words`: the message's content words (log); `first_turn`; `resolved`: the resolver changed
  the message; `pointer`: it points at nothing (`vague.points_at_nothing`); `asks_value`: it
  asks a value (`stated.asked_value`);
- `coverage`: the share of the searched query's content words that the first three passages
  hold; `absent_word`: one of them is in none of the top five;
- `rival_gap`: how far the best passage of the second document falls below the best one (own
  scale); `rival_coverage`: the share of the searched words the second best covering document
  holds in one passage. Both read "another document fits nearly as well": the question may
  be about either (an ask back), not about one the documents lack;
- `value_absent`: the searched query asks a quantity and none of the first three passages
  states one (`stated.states_quantity`): the answer's type is missing from the evidence.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from tellmemore.answer import stated, vague
from tellmemore.answer.calibration import MIN_SPAN, Calibration
from tellmemore.conversation.text import content_words, stem
from tellmemore.types import Hit, Resolution, Turn

TOP = 5
"""Hits read."""
CORE = ("top_cosine", "top_gap", "documents", "words", "first_turn", "resolved")
"""The signals every learned gate reads; each adds its own (`FEATURES` of each gate)."""
COVERED = 3
"""Hits whose words `coverage` reads: the passages the answer quotes from."""


def _stems(text: str) -> set[str]:
    return {stem(w) for w in content_words(text)}


def signals(
    message: str,
    query: str,
    first_turn: bool,
    dense: Sequence[float | None],
    docs: Sequence[str],
    texts: Sequence[str],
    calibration: Calibration,
) -> dict[str, float]:
    """Every signal of a turn whose top hits have these `dense` scores, `docs` and `texts`,
    searched as `query`."""
    known = [d for d in dense[:TOP] if d is not None]
    span = max(calibration.own_p50 - calibration.foreign_p50, MIN_SPAN)  # as Calibration.normalised
    top = max(known) if known else calibration.foreign_p50
    asked = _stems(query)
    held = [_stems(t) for t in texts[:TOP]]
    best: dict[str, float] = {}
    covered: dict[str, float] = {}
    for doc, cosine, words in zip(docs[:TOP], dense[:TOP], held, strict=False):
        if cosine is not None:
            best[doc] = max(best.get(doc, cosine), cosine)
        share = len(asked & words) / len(asked) if asked else 1.0
        covered[doc] = max(covered.get(doc, share), share)
    cosines = sorted(best.values(), reverse=True)
    shares = sorted(covered.values(), reverse=True)
    return {
        "top_cosine": (top - calibration.foreign_p50) / span,
        "top_gap": (top - min(known)) / span if known else 0.0,
        "documents": float(len(set(docs[:TOP]))),
        "words": math.log1p(len(content_words(message))),
        "first_turn": float(first_turn),
        "resolved": float(query.strip() != message.strip()),
        "pointer": float(vague.points_at_nothing(message)),
        "asks_value": float(stated.asked_value(message) is not None),
        "coverage": len(asked & set().union(*held[:COVERED])) / len(asked) if asked else 1.0,
        "absent_word": float(bool(asked - set().union(*held))),
        "rival_gap": (cosines[0] - cosines[1]) / span if len(cosines) >= 2 else 1.0,
        "rival_coverage": shares[1] if len(shares) >= 2 else 0.0,
        "value_absent": float(_value_absent(query, texts[:COVERED])),
    }


def _value_absent(query: str, texts: Sequence[str]) -> bool:
    kind = stated.asked_value(query)
    return kind is not None and not any(stated.states_quantity(t, kind) for t in texts)


def of_turn(
    message: str,
    history: Sequence[Turn],
    resolution: Resolution,
    hits: Sequence[Hit],
    calibration: Calibration,
) -> dict[str, float]:
    """`signals` of a turn as the turn runner holds it."""
    top = list(hits[:TOP])
    return signals(
        message,
        resolution.query,
        not history,
        [h.dense for h in top],
        [h.chunk.doc_id for h in top],
        [h.chunk.text for h in top],
        calibration,
    )
