"""A message whose words stand together in a heading of the documents names its own subject."""

from __future__ import annotations

from tellmemore.conversation.gate import gate
from tellmemore.conversation.headings import Headings, headings_of
from tellmemore.types import Turn

HEADINGS = (
    "Cloud Connect plans and pricing > Pro",
    "Cloud Connect escalation > Enterprise tier",
    "Status Page overview",
    "List of NFL teams",
)
HISTORY = [
    Turn("user", "what escalation options do we have on cloud connect"),
    Turn("assistant", "Escalations on the Standard tier (included with Pro) go to the queue."),
]


def test_words_name_a_heading_only_together_and_at_least_two() -> None:
    h = Headings(HEADINGS)
    assert h.name_together(["pro", "plan"])  # "plans" in the heading, stemmed alike
    assert h.name_together(["status", "page"])
    assert not h.name_together(["pro", "escalation"])  # in two headings, never one
    assert not h.name_together(["teams"])  # one word is in some title in any large corpus
    assert not h.name_together([])


def test_the_gate_lets_a_message_naming_a_heading_stand_alone() -> None:
    """ "how much is the pro plan?" after the escalation questions carried "escalation
    options": two common words, so "too little signal", and the resolver carried the
    abandoned topic."""
    without = gate("how much is the pro plan?", HISTORY)
    assert without.needs_resolution and without.reason == "too little signal"
    named = gate("how much is the pro plan?", HISTORY, headings=Headings(HEADINGS))
    assert not named.needs_resolution and named.reason == "names a heading"
    still = gate("how many teams?", HISTORY, headings=Headings(HEADINGS))
    assert still.needs_resolution


def test_the_index_is_read_only_when_a_message_asks_and_rebuilt_only_for_new_headings() -> None:
    reads: list[int] = []
    current = list(HEADINGS)

    def lookup() -> list[str]:
        reads.append(1)
        return current

    named = headings_of(lookup)
    assert named is not None and reads == []  # nothing read until a message asks
    assert gate("what are the escalation options?", HISTORY, headings=named).reason
    assert reads == []  # a self-contained message never asks
    assert named.name_together(["pro", "plan"]) and len(reads) == 1
    current.append("Refunds > Late cancellations")  # the same list object: not rebuilt
    assert not named.name_together(["late", "cancellations"])
    current = [*current]  # a new generation: a new sequence
    assert named.name_together(["late", "cancellations"])
    assert headings_of(None) is None
