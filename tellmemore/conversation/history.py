"""Conversation memory: the last few exchanges verbatim, a rolling summary of the rest.

Seed 003: reading the whole session makes a resolver carry abandoned topics
forward; a window of about three exchanges binds best, and a short running
summary of older turns keeps the session's subject without keeping old topics
live. Everything here is a pure function of the turns (plus an optional LLM), so
the session store persists just the summary text and how many turns it covers:

    memory = RollingSummary(window=3, summary_every=4)
    if memory.due(turns, upto):
        summary, upto = memory.update(turns, summary, upto)
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tellmemore.conversation.binding import Salience, TermStatsLookup, phrases
from tellmemore.errors import LLMError
from tellmemore.types import Turn

if TYPE_CHECKING:
    from tellmemore.llm import LLMClient

logger = logging.getLogger(__name__)

SUMMARY_PHRASES = 6
"""Phrases kept by the extractive summary (about 40 tokens, as in seed 003)."""
SUMMARY_MAX_CHARS = 400

SUMMARY_PROMPT = (
    "Summarise what the user has been asking about in this conversation, in at most 40 "
    "words: the products, versions, entities and constraints they named. Keep codes, "
    "numbers and dates exactly. Reply with the summary only."
)


def exchange_starts(history: Sequence[Turn]) -> list[int]:
    """Index of the first turn of each exchange (a user turn and the answers after it)."""
    starts = [i for i, t in enumerate(history) if t.role == "user"]
    if history and (not starts or starts[0] != 0):
        starts.insert(0, 0)
    return starts


def split_window(history: Sequence[Turn], window: int) -> tuple[list[Turn], list[Turn]]:
    """(older turns, the last `window` exchanges)."""
    starts = exchange_starts(history)
    if window <= 0:
        return list(history), []
    if len(starts) <= window:
        return [], list(history)
    cut = starts[-window]
    return list(history[:cut]), list(history[cut:])


def recent(history: Sequence[Turn], window: int = 3) -> list[Turn]:
    """The last `window` exchanges, verbatim."""
    return split_window(history, window)[1]


def extractive_summary(
    turns: Sequence[Turn],
    *,
    term_stats: TermStatsLookup | None = None,
    previous: str = "",
    max_phrases: int = SUMMARY_PHRASES,
) -> str:
    """The most salient phrases of the user's turns (and of the previous summary),
    most salient first: "cloud connect; escalation options; Enterprise tier"."""
    sal = Salience(term_stats)
    texts = [t.content for t in turns if t.role == "user"]
    sal.prime([previous, *texts])
    scored: dict[tuple[str, ...], tuple[float, str]] = {}
    sources = [previous, *texts] if previous else texts
    for n, text in enumerate(sources):
        recency = 0.5 + 0.5 * (n + 1) / len(sources)
        for p in phrases(text):
            score = sal.phrase(p.stems) * recency
            old = scored.get(p.stems)
            if old is None or score > old[0]:
                scored[p.stems] = (score, p.text)
    best = sorted(scored.values(), key=lambda x: -x[0])[:max_phrases]
    return "; ".join(text for _, text in best)[:SUMMARY_MAX_CHARS]


def llm_summary(
    turns: Sequence[Turn], llm: LLMClient, *, previous: str = "", deadline: float | None = None
) -> str:
    """A model-written running summary; raises LLMError (callers fall back)."""
    lines = [f"{t.role}: {t.content[:600]}" for t in turns]
    if previous:
        lines.insert(0, f"(summary so far) {previous}")
    text = llm.complete_text(
        [
            {"role": "system", "content": SUMMARY_PROMPT},
            {"role": "user", "content": "\n".join(lines)},
        ],
        deadline=deadline,
    )
    return " ".join(text.split())[:SUMMARY_MAX_CHARS]


@dataclass
class RollingSummary:
    """When and how to refresh the summary of turns older than the window."""

    window: int = 3
    summary_every: int = 4
    llm: LLMClient | None = None
    term_stats: TermStatsLookup | None = None
    deadline: float | None = None
    """`time.monotonic()` instant by which the LLM summary must be written (the turn's budget)."""
    degraded: str | None = None
    """Set by `update` to the LLM error kind when it fell back to the extractive summary."""

    def due(self, history: Sequence[Turn], summary_upto: int) -> bool:
        """True when at least `summary_every` turns have left the window since the last
        refresh (the refresh cost lands on one request in `summary_every`)."""
        older, _ = split_window(history, self.window)
        return len(older) - summary_upto >= self.summary_every

    def update(self, history: Sequence[Turn], summary: str, summary_upto: int) -> tuple[str, int]:
        """The refreshed (summary, turns covered). An LLM failure degrades to the
        extractive summary instead of failing the turn."""
        older, _ = split_window(history, self.window)
        if len(older) <= summary_upto:
            return summary, summary_upto
        new_turns = older[summary_upto:]
        if self.llm is not None:
            try:
                summary_text = llm_summary(
                    new_turns, self.llm, previous=summary, deadline=self.deadline
                )
                return summary_text, len(older)
            except LLMError as exc:
                logger.warning("summary refresh by LLM failed (%s); using extractive", exc)
                self.degraded = exc.kind
        text = extractive_summary(new_turns, term_stats=self.term_stats, previous=summary)
        return text, len(older)
