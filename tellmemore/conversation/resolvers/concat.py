"""Seed 000's method: the last two user turns glued onto the message. Kept as a baseline;
it loses to the raw message on every measured domain (issue 7)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import ClassVar

from tellmemore.conversation.resolvers.base import ResolveContext
from tellmemore.types import Resolution, Turn

USER_TURNS = 2


class ConcatResolver:
    """Only user turns (assistant text drags the query toward what the model said), only
    the last two (older topics fade)."""

    name: ClassVar[str] = "concat"

    def resolve(self, message: str, history: Sequence[Turn], context: ResolveContext) -> Resolution:
        start = time.perf_counter()
        recent = [t.content for t in history if t.role == "user" and t.content.strip()]
        query = "\n".join([*recent[-USER_TURNS:], message])
        return Resolution(
            query=query,
            resolver=self.name,
            latency_ms=(time.perf_counter() - start) * 1000.0,
        )
