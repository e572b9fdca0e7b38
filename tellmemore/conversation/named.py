"""The documents' own name for what a follow-up points back to.

A user says "I want to visit two teammates, does the company pay?", the answer cites the
section "Visiting grant", and "does it cover my hotel?" binds "it" to "visit two
teammates": the user's words for the situation, not the policy's name. Searched, the
policy's name finds its section and picks its sentences; shown, it tells the user which
policy the answer is about. So when a binding's antecedent comes from the last exchange
and the last answer's first citation sits under a short heading that the antecedent and
the message do not already say, the heading is added beside the antecedent ("visit two
teammates (Visiting grant)"), never in its place: the user's words stay, and a heading
that names something else only adds words to the search.

Only a stored session knows what its answers cited (`Turn.about`), and an OpenAI-compatible
client's history, whose answers come back with their references; a plain stateless history
carries no citations and is left as it is (MTRAG and MTRAG-UN: 0 of 674 follow-ups
change). On the thirteen handbooks and help sites not used to build it, 16 more turns fully
right (587 -> 603), wrong bindings 201 -> 184, false abstentions 91 -> 83, three fewer
unanswerable questions caught (bench/results/named_heading.md). `conversation.name_by_heading`
turns it off.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from tellmemore.conversation.text import content_words, stem
from tellmemore.types import Resolution, Turn

MAX_HEADING_WORDS = 6
"""A longer heading is a question or a sentence ("Q: Am I eligible for parental leave even
though I haven't been here for a year?"), not a name."""


def name_of(heading: str) -> str:
    """A heading as a name: without its numbering, leading symbols or trailing colon
    ("1. Company-wide travel", "🏃 Wellness", "Dining expenses:"); "" for a question (a
    FAQ entry's heading asks, it names nothing)."""
    name = _NUMBERING.sub("", _LEADING.sub("", heading.strip())).rstrip(" :;.")
    return "" if name.endswith("?") else name


_NUMBERING = re.compile(r"^(?:\d+|[A-Za-z])[.)]\s+")
_LEADING = re.compile(r"^[^\w(]+")


def _squash(text: str) -> str:
    return " ".join(text.lower().strip(" ?.!").split())


def _stems(text: str) -> set[str]:
    return {stem(w) for w in content_words(text)}


def with_heading(res: Resolution, message: str, history: Sequence[Turn]) -> Resolution:
    """`res` with the last answer's heading beside each antecedent it names (module doc)."""
    if not res.bindings:
        return res
    answers = [i for i, t in enumerate(history) if t.role == "assistant"]
    about = history[answers[-1]].about if answers else None
    if not about:
        return res
    last = answers[-1]
    heading = name_of(about[0])
    said = _stems(heading)
    if not said or len(heading.split()) > MAX_HEADING_WORDS:
        return res
    asked = next((t.content for t in reversed(history[:last]) if t.role == "user"), "")
    recent = _stems(asked) | _stems(history[last].content)
    query, bindings = res.query, dict(res.bindings)
    for referent, antecedent in res.bindings.items():
        own = _stems(antecedent)
        if referent in res.cues or _squash(referent) == _squash(message):
            continue  # the message itself: a topic carried, not a referent bound
        if not own or not own <= recent:
            continue  # an earlier turn's subject: the last answer's heading is not its name
        if "?" in antecedent or len(antecedent.split()) > MAX_HEADING_WORDS:
            continue  # a question rebuilt whole (an ellipsis), not a thing named
        found = re.search(rf"(?<!\w){re.escape(antecedent)}(?![\w'\u2019])", query)
        if said <= own | _stems(message) or found is None:
            continue  # not in the query as a word of its own, or "Mac's OS": left whole
        named = f"{antecedent} ({heading})"
        # inside a parenthesis already ("the other one (tyre)"): "(tyre, Damage and flat
        # tyres)", not nested
        inline = f"{antecedent}, {heading}" if query[found.end() :].startswith(")") else named
        query = query[: found.start()] + inline + query[found.end() :]
        bindings[referent] = named
    return replace(res, query=query, bindings=bindings)


def without_heading(res: Resolution, history: Sequence[Turn], turn: int) -> Resolution:
    """The resolution stored for user turn `turn` without what `with_heading` added: the
    next question's ellipsis is rebuilt from the user's own words ("and the caps?" after
    "what's the discount on the convertible note (Outstanding Convertible Notes)?" spliced
    "the caps" into the heading)."""
    before = history[turn - 1] if turn > 0 else None
    if before is None or before.role != "assistant" or not before.about:
        return res
    heading = name_of(before.about[0])
    added, inline = f" ({heading})", f", {heading})"
    if not heading or not any(
        added in t or inline in t for t in (res.query, *res.bindings.values())
    ):
        return res
    return replace(
        res,
        query=res.query.replace(added, "").replace(inline, ")"),
        bindings={k: v.replace(added, "") for k, v in res.bindings.items()},
    )
