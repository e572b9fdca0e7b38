"""The LLM resolver: seed 003's standalone-query prompt over an OpenAI-compatible endpoint.

The model reads a window of 3 exchanges (or the rolling summary + 2 exchanges) and
returns JSON {query, resolved, ambiguous}, validated against a schema. One retry
on malformed output; then, and on every other fault (timeout, 429, 5xx, a
"rewrite" that answers the question instead, a dropped code, number or date), it
falls back to `embedded` and records why in `Resolution.degraded`, so a turn
never fails because the model did.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, ClassVar

import pydantic

from tellmemore.analysis import lexicon
from tellmemore.conversation.history import recent
from tellmemore.conversation.referents import find_referents
from tellmemore.conversation.resolvers.base import ResolveContext, Resolver
from tellmemore.conversation.resolvers.embedded import EmbeddedResolver
from tellmemore.conversation.text import missing_protected
from tellmemore.errors import LLMError
from tellmemore.types import Resolution, Turn

if TYPE_CHECKING:
    from tellmemore.llm import LLMClient

logger = logging.getLogger(__name__)

STANDALONE = """Rewrite the user's latest message as a standalone search query.

Replace pronouns and demonstratives ("that one", "it", "the second") with
the entity they refer to, taken from the conversation. Carry forward the
product, version and other scoping details that the user is still talking
about. If the latest message introduces a new subject, do not carry
anything forward. Keep every code, number and date of the latest message
exactly as written. Do not answer the message; only rewrite it. If the
message could refer to two or more things equally well, set "ambiguous"
to true and put the question to ask the user in "clarification".

Return JSON: {"query": str, "resolved": {referent: antecedent},
"ambiguous": bool, "clarification": str | null}"""

MAX_TURN_CHARS = 800
"""Each turn shown to the model is cut to this many characters (answers run long)."""
SUMMARY_WINDOW = 2
"""Exchanges kept verbatim next to the rolling summary."""
MAX_GROWTH_RATIO = 3.0
MAX_GROWTH_CHARS = 120
"""A rewrite longer than ratio x message + chars is an answer, not a query."""
_ANSWER_OPENERS = lexicon.pattern("answer_openers")


class StandaloneOut(pydantic.BaseModel):
    """The JSON the model must return."""

    model_config = pydantic.ConfigDict(extra="ignore")

    query: str
    resolved: dict[str, str] = pydantic.Field(default_factory=dict)
    ambiguous: bool = False
    clarification: str | None = None


class LLMResolver:
    """Resolve with a model, fall back to `embedded` on any fault.

    >>> resolver = LLMResolver(LLMClient(settings.llm))  # doctest: +SKIP
    >>> resolver.resolve("does that one cover weekends?", history, ResolveContext()).query
    'Does Enterprise escalation on Cloud Connect cover weekends?'
    """

    name: ClassVar[str] = "llm"
    attempts: ClassVar[int] = 2
    """One retry on malformed output."""

    def __init__(self, llm: LLMClient, *, fallback: Resolver | None = None) -> None:
        self.llm = llm
        self.fallback: Resolver = fallback if fallback is not None else EmbeddedResolver()

    def resolve(self, message: str, history: Sequence[Turn], context: ResolveContext) -> Resolution:
        start = time.perf_counter()
        if not any(t.content.strip() for t in history):
            return Resolution(query=message, resolver=self.name, latency_ms=_ms(start))
        messages = build_messages(message, history, context)
        reason = "no attempt"
        for attempt in range(self.attempts):
            try:
                out = self.llm.complete_json(messages, StandaloneOut, deadline=context.deadline)
            except LLMError as exc:
                reason = f"{exc.kind}: {exc}"
                if exc.kind == "malformed" and attempt + 1 < self.attempts:
                    logger.info("standalone rewrite malformed, retrying once: %s", exc)
                    continue
                return self._fall_back(message, history, context, reason, start)
            problem = rewrite_problem(message, out)
            if problem is not None:
                return self._fall_back(message, history, context, problem, start)
            return self._accept(message, history, context, out, start)
        return self._fall_back(message, history, context, reason, start)

    def _accept(
        self,
        message: str,
        history: Sequence[Turn],
        context: ResolveContext,
        out: StandaloneOut,
        start: float,
    ) -> Resolution:
        bindings = {k.strip(): v.strip() for k, v in out.resolved.items() if k.strip() and v}
        if out.ambiguous:
            local = self.fallback.resolve(message, history, context)
            clarification = out.clarification or local.clarification
            return Resolution(
                query=message,
                ambiguous=True,
                clarification=clarification or "Could you say which one you mean?",
                candidates=local.candidates if local.ambiguous else (),
                resolver=self.name,
                model_called=True,
                latency_ms=_ms(start),
            )
        if not bindings and find_referents(message):
            # Seed 003: nothing bound -> search the message as typed (the loud failure).
            return Resolution(
                query=message,
                unbound_referent=True,
                resolver=self.name,
                model_called=True,
                latency_ms=_ms(start),
            )
        return Resolution(
            query=out.query.strip(),
            bindings=bindings,
            resolver=self.name,
            model_called=True,
            latency_ms=_ms(start),
        )

    def _fall_back(
        self,
        message: str,
        history: Sequence[Turn],
        context: ResolveContext,
        reason: str,
        start: float,
    ) -> Resolution:
        logger.warning("llm resolver degraded to %s: %s", self.fallback.name, reason)
        res = self.fallback.resolve(message, history, context)
        return replace(
            res,
            resolver=f"{self.name}->{res.resolver}",
            model_called=True,
            degraded=reason[:500],
            latency_ms=_ms(start),
        )


def build_messages(
    message: str, history: Sequence[Turn], context: ResolveContext
) -> list[dict[str, str]]:
    """System prompt + the conversation (window of exchanges, or summary + 2) + message."""
    if context.summary:
        turns = recent(history, SUMMARY_WINDOW)
        lines = [f"Summary of earlier turns: {context.summary}"]
    else:
        turns = recent(history, context.window)
        lines = []
    lines += [f"{t.role}: {_cut(t.content)}" for t in turns]
    lines.append(f"Latest message: {message}")
    return [
        {"role": "system", "content": STANDALONE},
        {"role": "user", "content": "Conversation:\n" + "\n".join(lines)},
    ]


def rewrite_problem(message: str, out: StandaloneOut) -> str | None:
    """Why a model's rewrite cannot be used as a query, or None when it can."""
    if out.ambiguous:
        return None
    query = out.query.strip()
    if not query:
        return "empty: the model returned an empty query"
    if len(query) > MAX_GROWTH_RATIO * len(message) + MAX_GROWTH_CHARS:
        return f"answered: the rewrite is {len(query)} chars for a {len(message)}-char message"
    if _ANSWER_OPENERS.match(query) and not _ANSWER_OPENERS.match(message):
        return f"answered: the rewrite reads as an answer: {query[:80]!r}"
    if query.count(". ") >= 2:
        return f"answered: the rewrite has several sentences: {query[:80]!r}"
    missing = missing_protected(message, query)
    if missing:
        return f"dropped: the rewrite lost {missing} of the message"
    return None


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_TURN_CHARS else text[:MAX_TURN_CHARS] + " ..."


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0
