"""An ordinal into the kinds an answer listed (issue 20, issue 21 item 3): the item is
asked about as it is named, not scoped by the topic it was listed under, and not put in
the place of the listing question's subject."""

from __future__ import annotations

from tellmemore.conversation.resolvers import EmbeddedResolver, ResolveContext
from tellmemore.types import Turn

RESOLVER = EmbeddedResolver()

ITEMS = ("Standard ticket", "Twilight", "Family Saver", "Membership")
ASKED = Turn("user", "What kinds of tickets does the gallery sell?")
LISTED = Turn(
    "assistant",
    "The gallery sells 4 kinds of tickets. [1]\n" + "".join(f"- {i} [1]\n" for i in ITEMS),
    items=ITEMS,
)
HOW = Turn("user", "how does the second one work?")
TWILIGHT = Turn("assistant", "You can come in after 5 pm at a lower price. [1]")
CTX = ResolveContext()


def test_a_listed_item_takes_no_scope() -> None:
    """ "how does Gliding of flexible schedules work?" ranked the overview of the kinds
    above Gliding's own section; the turn searches the user's turns beside the query, so
    the topic reaches retrieval without it."""
    res = RESOLVER.resolve(HOW.content, [ASKED, LISTED], CTX)
    assert res.query == "how does Twilight work?", res
    assert res.bindings == {"the second one": "Twilight"}
    assert res.passes == ("ordinal",)


def test_an_ordinal_after_the_listing_question_asks_about_the_item() -> None:
    """ "and the last one?" right after "What kinds of flexible schedules does GSA
    allow?" had become "What kinds of flexible schedules does Maxiflex allow?"."""
    res = RESOLVER.resolve("and the third one?", [ASKED, LISTED], CTX)
    assert res.query == "Family Saver", res  # the fragment alone, as "what about X?"
    assert res.bindings == {"the third one": "Family Saver"}
    assert res.passes == ("ordinal", "ellipsis")
    about = RESOLVER.resolve("what about the last one?", [ASKED, LISTED], CTX)
    assert about.query == "Membership", about


def test_an_ordinal_after_a_question_on_a_sibling_item_varies_that_question() -> None:
    """ "and the last one?" after "how does the second one work?": the last item takes
    the second one's place in that question."""
    history = [ASKED, LISTED, HOW, TWILIGHT]
    res = RESOLVER.resolve("and the third one?", history, CTX)
    assert res.query == "how does Family Saver work?", res
    assert res.passes == ("ordinal", "ellipsis")
    assert res.bindings["the third one"] == "Family Saver"
