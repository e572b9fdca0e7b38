"""The default resolver: no model call, about a millisecond.

It binds referents ("that one", "it", "the second") to phrases of the recent
history chosen by salience (IDF from the index's term statistics x recency, user
turns over assistant turns, list items of the last answer for ordinals), rebuilds
ellipses ("and on holidays?") from the previous question, carries the
conversation's topic into messages with too little signal of their own, and
carries nothing when the message brings its own distinctive subject. When two
alternatives are a coin flip it asks instead of guessing (seed 003).

The query is human-readable ("does Enterprise escalation on Cloud Connect cover
weekends?") because it is shown to the user; the message's own words, codes,
numbers and dates are never altered, only supplemented.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import ClassVar

from tellmemore.conversation import constants as C
from tellmemore.conversation.gating import confirmed
from tellmemore.conversation.named import with_heading
from tellmemore.conversation.passes.state import RunState
from tellmemore.conversation.preamble import split_preamble
from tellmemore.conversation.realize import keep_protected
from tellmemore.conversation.resolvers.base import ResolveContext
from tellmemore.conversation.terms import with_terms
from tellmemore.conversation.text import missing_protected
from tellmemore.types import Resolution, Turn

logger = logging.getLogger(__name__)


class EmbeddedResolver:
    """Resolve a follow-up from the history and term statistics, without a model.

    >>> history = [Turn("user", "What does the monthly pass cost?"),
    ...            Turn("assistant", "The monthly pass costs 30 dollars.")]
    >>> EmbeddedResolver().resolve("Does it include e-bikes?", history, ResolveContext()).query
    'Does the monthly pass include e-bikes?'
    """

    name: ClassVar[str] = "embedded"

    def resolve(self, message: str, history: Sequence[Turn], context: ResolveContext) -> Resolution:
        start = time.perf_counter()
        preamble = split_preamble(message)
        asked = preamble.rest if preamble is not None else message
        try:
            res = RunState(list(history), context).resolve(asked, depth=0)
            carried_only = set(res.passes) <= {"carry", "subject"} and "carry" in res.passes
            if preamble is not None and preamble.switches and carried_only:
                res = Resolution(query=asked)  # "by the way, ...": the topic is left behind
        except Exception as exc:
            logger.exception("embedded resolver failed on %r", message[:200])
            res = Resolution(query=message, degraded=f"embedded resolver error: {exc!r}")
        if C.TERM_CARRY and not res.degraded:
            res = with_terms(asked, res, history, context)
        if context.name_by_heading and not res.degraded:
            res = with_heading(res, asked, history)
        missing = missing_protected(message, res.query)
        if missing:  # the contract: codes, numbers and dates of the message reach the index
            res = replace(res, query=keep_protected(res.query, missing))
        if not res.degraded:
            res = confirmed(res, asked, context)
        return replace(res, resolver=self.name, latency_ms=(time.perf_counter() - start) * 1000.0)
