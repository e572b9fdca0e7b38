"""A question for the kinds of a thing answers with the kinds as a list, whatever its verb:
read by `lists.asked_kinds`, found in a list or in the top document's headings
(`lists.kind_headings`), returned as `Quoted.items` so "the second one" counts them."""

from __future__ import annotations

import pytest

from tellmemore.answer import quote
from tellmemore.answer.extractive import best_sentences
from tellmemore.answer.lists import asked_kinds, kind_headings, listed_class
from tellmemore.conversation.lists import quoted_items
from tellmemore.testing.conformance import make_chunk
from tellmemore.types import Hit


@pytest.mark.parametrize(
    ("query", "noun"),
    [
        ("What kinds of flexible schedules does GSA allow?", "schedul"),
        ("What kinds of leave do we have?", "leave"),
        ("which types of accounts can I open", "account"),
        ("Are there different categories of expenses?", "expens"),
        ("what sorts of leave are there?", "leave"),
        ("what tools exist?", "tool"),
        ("What benefits are available?", "benefit"),
        ("what plans does the API have?", "plan"),
        ("which levels are there?", "level"),
        # one thing, not a list
        ("what kind of leave is bereavement?", None),
        ("what does the plan type of my account mean?", None),
        ("what causes the error?", None),
        ("What happens to my leave?", None),
        ("how many kinds?", None),
    ],
)
def test_a_kinds_question_is_read_whatever_its_verb(query: str, noun: str | None) -> None:
    assert asked_kinds(query.rstrip("?")) == noun
    if noun is not None:
        assert listed_class(query) == noun


OUTLINE = [
    (),
    ("Schedule types",),
    ("Schedule types", "Flexible schedule"),
    ("Schedule types", "Flexible schedule", "Types of flexible schedules"),
    ("Schedule types", "Flexible schedule", "Types of flexible schedules", "Flexitour"),
    ("Schedule types", "Flexible schedule", "Types of flexible schedules", "Gliding"),
    ("Schedule types", "Flexible schedule", "Types of flexible schedules", "Gliding"),
    ("Schedule types", "Flexible schedule", "Types of flexible schedules", "Maxiflex"),
    ("Schedule types", "Flexible schedule", "Holidays and flexible schedules"),
]


def test_the_kinds_are_the_subsections_of_the_heading_that_names_them() -> None:
    section = OUTLINE[3]
    assert kind_headings("schedul", section, "Work schedules", OUTLINE) == [
        "Flexitour", "Gliding", "Maxiflex"
    ]  # fmt: skip
    # a heading that does not name the asked noun lists nothing
    assert kind_headings("benefit", section, "Work schedules", OUTLINE) == []


def test_sections_beside_the_top_one_are_the_kinds_when_most_name_the_noun() -> None:
    outline = [
        ("Pregnancy Disability Leave",),
        ("Bereavement Leave",),
        ("Jury Duty or Witness Summons",),
        ("Other Leaves of Absence",),
    ]
    kinds = kind_headings("leave", outline[3], "Other Protected Absences", outline)
    assert kinds == [s[0] for s in outline]
    unrelated = [("Pricing",), ("Support",), ("Bereavement Leave",)]
    assert kind_headings("leave", unrelated[2], "FAQ", unrelated) == []


def test_a_kinds_answer_lists_the_headings_as_items_the_second_one_counts() -> None:
    top = make_chunk(
        "types",
        "GSA allows all 5 types of flexible schedules.",
        title="Work schedules",
        section=OUTLINE[3],
    )
    other = make_chunk(
        "maxi",
        "- Same as Variable Week, but you only work 9 days.",
        title="Work schedules",
        section=OUTLINE[7],
    )
    hits = [Hit(chunk=top, score=1.0, rank=1), Hit(chunk=other, score=0.5, rank=2)]
    query = "What kinds of flexible schedules does GSA allow?"
    extracts = best_sentences(query, hits, outline=lambda h: OUTLINE)
    quoted = quote.quote(extracts, hits)
    assert quoted.items == ("Flexitour", "Gliding", "Maxiflex")
    assert quoted.text.startswith("GSA allows all 5 types")
    assert [p.text for p in quoted_items(quoted.items, quoted.text)][1] == "Gliding"
    # without an outline (no index at hand) nothing is made up
    assert quote.quote(best_sentences(query, hits), hits).items == ()
    # a question about one thing gets no list of kinds
    one = quote.quote(
        best_sentences("does GSA allow flexible schedules?", hits, outline=lambda h: OUTLINE), hits
    )
    assert one.items == ()


def test_a_short_item_with_no_label_is_named_whole() -> None:
    # "the second one" must ask about the whole item, not its first noun ("Meetings")
    items = ["Core hours are 10 to 4", "Meetings happen in regular hours", "Standard: 9 to 5"]
    names = [p.text for p in quoted_items(items, "\n".join(f"- {it}" for it in items))]
    assert names == ["Core hours are 10 to 4", "Meetings happen in regular hours", "Standard"]
