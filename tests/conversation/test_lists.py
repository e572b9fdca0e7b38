"""List items of an answer, surface casing, and lone superlatives (sample-docs chats)."""

from __future__ import annotations

from tellmemore.conversation.binding import phrases
from tellmemore.conversation.lists import list_items
from tellmemore.conversation.text import surface_form

QUOTED_TABLE = (
    "Cloud Connect is sold in three plans. Plan: Starter; Plan code: CC-STARTER-2026; "
    "Price per month: $49. Plan: Pro; Plan code: CC-PRO-2026; Price per month: $299. "
    "Plan: Enterprise; Plan code: CC-ENT-2026; Price per month: from $1,450. "
    "Plan codes from 2025 keep their old prices."
)


def test_quoted_table_rows_list_their_first_column() -> None:
    assert [p.text for p in list_items(QUOTED_TABLE)] == ["Starter", "Pro", "Enterprise"]


def test_rows_of_different_tables_are_no_list() -> None:
    text = "Plan: Starter; Price: $49. Region: EU; Zone: 2."
    assert [p.text for p in list_items(text)] != ["Starter", "EU"]


def test_casing_is_not_taken_from_inside_a_code() -> None:
    assert surface_form("pro", ["Plan code: CC-PRO-2026", "Plan: Pro; price"]) == "Pro"
    assert surface_form("cloud connect", ["Cloud Connect is sold"]) == "Cloud Connect"


def test_a_table_label_capital_is_no_casing() -> None:
    """ "does it cover weekends?" got the scope "Sites": the user's "sites" took its
    capital from the label "Sites included" and read as a name."""
    row = "Plan: Enterprise; Price per month: $1,450; Sites included: unlimited"
    assert surface_form("sites", [row]) == "sites"
    assert surface_form("enterprise", [row]) == "Enterprise"  # a value keeps its capital


def test_a_lone_superlative_is_no_antecedent() -> None:
    assert not phrases("which one is the cheapest?")
    assert [p.text for p in phrases("the cheapest plan")] == ["cheapest plan"]


def test_a_capital_that_only_opens_a_sentence_is_no_casing() -> None:
    """ "how do I report Damage?" took its capital from "Damage reported in the app"."""
    answer = "Report it in the app. Damage reported within 30 minutes is free.\n- Damage: photo"
    assert surface_form("damage", [answer]) == "damage"
    assert surface_form("enterprise", ["Plans. Enterprise is the largest; ask Enterprise"]) == (
        "Enterprise"
    )
    assert surface_form("sla", ["SLA credits are paid monthly."]) == "SLA"  # an acronym


def test_numbered_steps_are_named_by_their_action() -> None:
    answer = (
        "This guide connects your first two sites.\n"
        "1. Sign in to the console and choose Create network.\n"
        "2. Pick the region closest to your sites, for example Frankfurt.\n"
        "3. Add your first site: give it a name."
    )
    assert [p.text for p in list_items(answer)] == [
        "Sign in to the console",
        "Pick the region closest to your sites",
        "Add your first site",
    ]


def test_table_rows_quoted_one_a_line_are_named_by_their_first_column() -> None:
    answer = (
        "Cloud Connect is sold in three plans.\n"
        "- Plan: Starter; Price per month: $49.\n"
        "- Plan: Pro; Price per month: $299.\n"
        "- Plan codes from 2025 keep their old prices."
    )
    assert [p.text for p in list_items(answer)] == ["Starter", "Pro"]


def test_a_lone_table_row_among_other_bullets_is_named_by_its_first_value() -> None:
    """ "how much is that one?" after this answer is about Pro, not about "Plan"."""
    answer = (
        "Pro costs $299 per month.\n"
        "- Plan: Pro; Plan code: CC-PRO-2026; Price per month: $299.\n"
        "- Upgrades take effect immediately."
    )
    assert [p.text for p in list_items(answer)] == ["Pro", "Upgrades"]


def test_column_labels_are_read_from_quoted_table_rows_only() -> None:
    from tellmemore.conversation.lists import column_labels

    answer = (
        "Pro comes with the Standard tier. [1]\n"
        "- Plan: Pro; Plan code: CC-PRO-2026; Bandwidth per site: 1 Gbit/s. [1]\n"
        "- Norrland NR-500: firmware 7.2 or later. [2]"
    )
    labels = column_labels(answer)
    assert {"plan"} in labels and {"bandwidth", "site"} in labels
    assert all("norrland" not in label for label in labels)  # a labelled line, no table


def test_a_row_with_an_empty_first_value_names_no_item() -> None:
    """Found by the explore profile: "- a: *; b: c" named an item with no text."""
    from tellmemore.conversation.lists import row_subject

    assert all(p.text for p in list_items("- a: *; b: c\n- x: y"))
    assert row_subject("Plan: _; Price: $9.") is None


def test_a_term_then_its_gloss_is_named_by_the_term() -> None:
    """Clef's Slack statuses: "what does the third one mean?" is about "Do not disturb
    (gray)", not about the first content word of the item ("disturb")."""
    answer = (
        "There are 4 states in which a teammate can be in on Slack: [1]\n"
        "- Active (green). Similar to when someone is at their desk, they are available. [1]\n"
        "- Do not disturb (green). This teammate is at their computer, but focusing. [1]\n"
        "- *Do not disturb (gray). *This teammate is away from their computer. [1]"
    )
    assert [p.text for p in list_items(answer)] == [
        "Active (green)",
        "Do not disturb (green)",
        "Do not disturb (gray)",
    ]
