"""Does this message need resolving against the history?

Cheap and slightly over-eager on purpose (seed 003): sending a self-contained
message to a resolver costs little and usually returns it unchanged, whereas
letting a follow-up through unresolved costs the whole answer. No history means
no resolution and no model call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tellmemore.analysis import lexicon
from tellmemore.conversation import constants as C
from tellmemore.conversation.ambiguity import asks_kind, kind_in_history
from tellmemore.conversation.analysis import analyze
from tellmemore.conversation.binding import Salience, TermStatsLookup
from tellmemore.conversation.definites import find_definite
from tellmemore.conversation.headings import Headings, IndexHeadings
from tellmemore.conversation.realize import parse_clarification
from tellmemore.conversation.subject import REASON as SUBJECT_REASON
from tellmemore.conversation.subject import lacks_subject
from tellmemore.conversation.text import (
    AUXILIARIES,
    COMMON_VERBS,
    FUNCTION_WORDS,
    RELATIONAL_NOUNS,
    is_content,
    is_protected,
)
from tellmemore.types import Turn

_QUESTION_WORDS = lexicon.words("question_words")


@dataclass(frozen=True)
class GateResult:
    needs_resolution: bool
    reason: str


def gate(
    message: str,
    history: Sequence[Turn],
    term_stats: TermStatsLookup | None = None,
    *,
    salience: Salience | None = None,
    headings: Headings | IndexHeadings | None = None,
) -> GateResult:
    """Whether `message` must be resolved; the reason names the trigger. Never raises."""
    if not any(t.content.strip() for t in history):
        return GateResult(False, "first turn")
    last = history[-1] if history else None
    if last is not None and last.role == "assistant" and parse_clarification(last.content):
        return GateResult(True, "reply to a clarifying question")
    a = analyze(message)
    refs = a.referents
    if refs:
        return GateResult(True, f"referent: {refs[0].text.lower()!r}")
    ellipsis = a.ellipsis
    if ellipsis is not None:
        return GateResult(True, f"ellipsis: {ellipsis.opener.lower()!r}")
    complaint = a.complaint
    if complaint is not None:  # "why can't you answer?": the previous question, again
        return GateResult(True, f"no answer: {complaint.lower()!r}")
    content = a.content_words
    if not content:
        return GateResult(True, "no content words")
    definite = find_definite(message, history)
    if definite is not None:  # "how can I make the projector?" after a pinhole projector
        return GateResult(True, f"definite: {definite.text.lower()!r}")
    kind = kind_in_history(message, history)
    if kind is not None and asks_kind(kind):  # "the plan" after an answer listing plans
        return GateResult(True, f"definite of a listed kind: {kind.description.lower()!r}")
    sal = salience if salience is not None else Salience(term_stats)
    sal.prime_words([a.vocabulary])
    distinctive = [
        w
        for w in content
        if (sal.weight(w) >= C.DISTINCTIVE_IDF or w in sal.unseen)
        and w not in RELATIONAL_NOUNS
        and w not in COMMON_VERBS  # "what happens if I go over?": rare in docs, no subject
    ]  # a word the documents never use ("sourdough") is a new subject, not a follow-up
    short = len(content) <= C.LOW_SIGNAL_WORDS and not names_in(message)
    if short and not distinctive:
        if headings is not None and headings.name_together(content):
            # "how much is the pro plan?": the documents have a section on the Pro plan
            return GateResult(False, "names a heading")
        return GateResult(True, "too little signal")
    if len(content) <= C.FRAGMENT_WORDS and _is_fragment(message):
        return GateResult(True, "keyword fragment")
    if short and lacks_subject(message, history, sal):  # "how much notice?" after sabbaticals
        return GateResult(True, SUBJECT_REASON)
    return GateResult(False, "self-contained")


def names_in(message: str) -> list[str]:
    """Names and codes the message brings itself ("NASA", "Clipper"): its own subject.
    The first word's capital is the sentence's, not a name's."""
    toks = analyze(message).tokens
    return [
        t.text
        for i, t in enumerate(toks)
        if is_content(t.text) and (is_protected(t.text) or (i > 0 and t.text[:1].isupper()))
    ]


def _is_fragment(message: str) -> bool:
    """No question word and no verb-like word: a bare keyword reply ("Enterprise")."""
    ws = analyze(message).words
    if any(w in _QUESTION_WORDS or w in COMMON_VERBS for w in ws):
        return False
    return not any(w in AUXILIARIES for w in ws) and all(
        w not in FUNCTION_WORDS or w in ("the", "a", "an", "of", "and", "for", "in", "on")
        for w in ws
    )
