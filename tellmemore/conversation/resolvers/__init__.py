"""Resolvers: one interface, several strategies, all kept for evaluation.

get_resolver("embedded")                      # the default, no model call
get_resolver("llm", llm=client)               # falls back to embedded on any fault
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tellmemore.conversation.resolvers.base import ResolveContext, Resolver, TermStatsLookup
from tellmemore.conversation.resolvers.concat import ConcatResolver
from tellmemore.conversation.resolvers.embedded import EmbeddedResolver
from tellmemore.conversation.resolvers.llm import LLMResolver
from tellmemore.conversation.resolvers.raw import RawResolver
from tellmemore.errors import ConfigError

if TYPE_CHECKING:
    from tellmemore.llm import LLMClient

RESOLVERS: dict[str, type] = {
    RawResolver.name: RawResolver,
    ConcatResolver.name: ConcatResolver,
    EmbeddedResolver.name: EmbeddedResolver,
    LLMResolver.name: LLMResolver,
}


def get_resolver(
    name: str, *, llm: LLMClient | None = None, fallback: Resolver | None = None
) -> Resolver:
    """The resolver registered under `name`; `llm` is required for "llm"."""
    key = name.strip().lower()
    cls = RESOLVERS.get(key)
    if cls is None:
        valid = ", ".join(sorted(RESOLVERS))
        raise ConfigError(f"unknown resolver {name!r}; valid resolvers: {valid}")
    if cls is LLMResolver:
        if llm is None:
            raise ConfigError(
                "resolver 'llm' needs an LLM endpoint; set llm.base_url "
                "(TELLMEMORE_LLM__BASE_URL) or choose resolver 'embedded'"
            )
        return LLMResolver(llm, fallback=fallback)
    resolver: Resolver = cls()
    return resolver


__all__ = [
    "RESOLVERS",
    "ConcatResolver",
    "EmbeddedResolver",
    "LLMResolver",
    "RawResolver",
    "ResolveContext",
    "Resolver",
    "TermStatsLookup",
    "get_resolver",
]
