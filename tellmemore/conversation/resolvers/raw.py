"""The message as typed: the baseline every other resolver is measured against."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import ClassVar

from tellmemore.conversation.resolvers.base import ResolveContext
from tellmemore.types import Resolution, Turn


class RawResolver:
    """`RawResolver().resolve("How much is it?", history, ResolveContext()).query`
    is "How much is it?"."""

    name: ClassVar[str] = "raw"

    def resolve(self, message: str, history: Sequence[Turn], context: ResolveContext) -> Resolution:
        start = time.perf_counter()
        return Resolution(
            query=message,
            resolver=self.name,
            latency_ms=(time.perf_counter() - start) * 1000.0,
        )
