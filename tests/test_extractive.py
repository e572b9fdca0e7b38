"""The offline answer: which sentences, rows and items of the retrieved chunks it quotes."""

from __future__ import annotations

import pytest

from tellmemore.answer import superlatives
from tellmemore.answer.extractive import best_sentences, listed_class, units
from tellmemore.testing.conformance import make_chunk
from tellmemore.types import Hit

PLANS = (
    "Cloud Connect is sold in three plans. Prices exclude taxes.\n\n"
    "| Plan | Price |\n| --- | --- |\n| Starter | $49 |\n| Pro | $299 |\n\n"
    "Annual billing takes 15% off."
)


def hit(text: str) -> Hit:
    return Hit(chunk=make_chunk("plans", text, title="Plans"), score=1.0, rank=1)


def test_table_rows_and_list_items_are_units_of_their_own() -> None:
    assert [u.item for u in units(PLANS)] == [False, False, True, True, False]
    steps = units("Do this:\n\n- Open the app. Then wait.\n- Tap Report.")
    assert [(u.text, u.item) for u in steps] == [
        ("Do this:", False),
        ("Open the app. Then wait.", True),
        ("Tap Report.", True),
    ]


def test_a_sentence_announcing_a_list_is_quoted_with_its_items() -> None:
    quoted = [e.sentence for e in best_sentences("what plans are there?", [hit(PLANS)])]
    assert quoted[:3] == [
        "Cloud Connect is sold in three plans.",
        "Plan: Starter; Price: $49.",
        "Plan: Pro; Price: $299.",
    ]


def test_the_items_come_only_with_a_sentence_announcing_them_for_the_question() -> None:
    quoted = [e.sentence for e in best_sentences("is annual billing cheaper?", [hit(PLANS)])]
    assert "Plan: Starter; Price: $49." not in quoted


ROUTERS_PDF = (
    "Cloud Connect supported routers\n\n"
    "Cloud Connect supported routers\n"
    "Cloud Connect works with any router that supports IPsec IKEv2 with\n"
    "AES-256-GCM. The models below are tested by Aster Labs and have a\n"
    "ready-made configuration download in the console.\n"
    "Norrland NR-500: firmware 7.2 or later.\n"
    "Norrland NR-900: firmware 7.4 or later; needed for 10 Gbit/s sites.\n"
    "Kestrel Edge K3: firmware 2.8 or later.\n"
    "Routers not on this list can still connect with the generic IKEv2\n"
    "configuration.\n"
)


def test_a_list_of_labelled_lines_is_quoted_after_the_sentence_announcing_it() -> None:
    """A PDF's list has lost its bullets: "Label: value" lines in a row are its items, and
    "The models below ..." announces them (the sample docs' router question had quoted
    only the sentences around the list)."""
    chunk = make_chunk("routers", ROUTERS_PDF, title="Cloud Connect supported routers")
    assert [u.item for u in units(ROUTERS_PDF, chunk.header)] == [
        False,
        False,
        True,
        True,
        True,
        False,
    ]
    found = best_sentences(
        "What routers does Cloud Connect support?", [Hit(chunk=chunk, score=1.0, rank=1)]
    )
    quoted = [e.sentence for e in found]
    assert quoted[0].startswith("Cloud Connect works with any router")  # the title is dropped
    assert "Norrland NR-900: firmware 7.4 or later; needed for 10 Gbit/s sites." in quoted
    assert "Kestrel Edge K3: firmware 2.8 or later." in quoted


def test_a_single_labelled_sentence_stays_a_sentence() -> None:
    assert [u.item for u in units("Note: restart the router. Then wait a minute.")] == [
        False,
        False,
    ]


STEPS = (
    "Getting started > Connect your first two sites\n\n"
    '1. Sign in to the console and choose "Create network".\n'
    "2. Pick the region closest to your sites, for example Frankfurt.\n"
    "3. Add your first site: give it a name and enter its public IP address.\n"
)


def test_one_step_of_a_procedure_brings_the_whole_procedure() -> None:
    """ "how do I connect my first two sites?" had quoted step 3 alone; the section heading
    announces the numbered list that opens the chunk."""
    chunk = make_chunk("steps", STEPS, title="Getting started")
    found = best_sentences("how do I add a site?", [Hit(chunk=chunk, score=1.0, rank=1)])
    assert [e.sentence[:8] for e in found] == ["Sign in ", "Pick the", "Add your"]
    assert all(e.step and e.item for e in found)


def test_one_bullet_of_a_list_stays_alone() -> None:
    bullets = STEPS.replace("1. ", "- ").replace("2. ", "- ").replace("3. ", "- ")
    chunk = make_chunk("bullets", bullets, title="Getting started")
    found = best_sentences("how do I add a site?", [Hit(chunk=chunk, score=1.0, rank=1)])
    quoted = [e.sentence[:8] for e in found]
    assert "Add your" in quoted and "Sign in " not in quoted  # as scored, not the whole list
    assert all(e.item and not e.step for e in found)


TIERS_TABLE = (
    "Cloud Connect is sold in three plans.\n\n"
    "| Plan | Price per month | Sites included | Bandwidth per site |\n"
    "| --- | --- | --- | --- |\n"
    "| Pro | $299 | 10 | 1 Gbit/s |\n"
    "| Starter | $49 | 2 | 100 Mbit/s |\n"
    "| Enterprise | from $1,450 | unlimited | 10 Gbit/s |\n"
)


@pytest.mark.parametrize(
    ("question", "row"),
    [
        ("what are the shop hours on weekends?", "Day: Saturday and Sunday;"),
        ("and the opening hours on weekdays?", "Day: Monday to Friday;"),
        ("what are the opening hours on Sundays?", "Day: Saturday and Sunday;"),
    ],
)
def test_weekends_and_weekdays_find_the_rows_of_their_days(question: str, row: str) -> None:
    table = (
        "| Day | Opening hours |\n| --- | --- |\n"
        "| Monday to Friday | 07:00 to 20:00 |\n"
        "| Saturday and Sunday | 09:00 to 18:00 |\n"
        "| Public holidays | 10:00 to 16:00 |"
    )
    found = best_sentences(question, [hit(table)])
    assert [e.sentence[: len(row)] for e in found] == [row]


def test_a_row_is_named_by_its_whole_first_cell() -> None:
    """ "Sev 2" names the Sev 2 row; the "Sev" of the Sev 1 and Sev 3 rows does not."""
    table = (
        "| Severity | First response |\n| --- | --- |\n"
        "| Sev 1 | 30 minutes, 24x7 |\n| Sev 2 | 2 hours, 24x7 |\n| Sev 3 | 1 business day |"
    )
    found = best_sentences("what's the Sev 2 response time?", [hit(table)])
    assert [e.sentence for e in found] == ["Severity: Sev 2; First response: 2 hours, 24x7."]


def test_a_labelled_item_the_question_names_is_quoted_without_its_siblings() -> None:
    """ "how much is Monthly pass for Cityspoke?" (after "the second one") quoted the
    single ride, the day pass and the monthly pass."""
    passes = (
        "Cityspoke passes\n\n"
        "- Single ride: 3 dollars for the first 30 minutes.\n"
        "- Day pass: 12 dollars, unlimited rides of up to 2 hours each for 24 hours.\n"
        "- Monthly pass: 25 dollars per month, unlimited rides of up to 45 minutes."
    )
    found = best_sentences("how much is Monthly pass for Cityspoke?", [hit(passes)])
    assert [e.sentence[:13] for e in found] == ["Monthly pass:"]


def test_a_sentence_opening_with_a_pronoun_brings_the_sentence_that_names_it() -> None:
    """ "It includes two sites ..." alone reads as if Cloud Connect did; the sentence
    before says it is Starter."""
    text = (
        "Starter is for small teams connecting two sites. It includes two sites, one cloud "
        "link and 100 Mbit/s per site. Extra sites cannot be added to Starter."
    )
    found = best_sentences("how many cloud links?", [hit(text)])
    quoted = [e.sentence[:10] for e in found]
    assert "It include" in quoted
    assert quoted.index("Starter is") == quoted.index("It include") - 1


def test_a_version_in_the_question_keeps_the_answer_to_that_version_s_notes() -> None:
    """ "what changed in version 3.4?" quoted one bullet from each of 3.4, 3.3 and 3.2: they
    all share "version"; only the 3.4 section holds the number asked."""
    notes = [
        ("Version 3.4", "- Sydney became generally available.\n- The API gained bulk import."),
        ("Version 3.3", "- Private links to Google Cloud became generally available."),
        ("Version 3.2", "- Five-minute traffic granularity.\n- Deprecated: the v1 API."),
    ]
    hits = [
        Hit(
            chunk=make_chunk(f"v{i}", f"Notes > {section}\n\n{body}", title="Notes"),
            score=1.0,
            rank=i + 1,
        )
        for i, (section, body) in enumerate(notes)
    ]
    found = best_sentences("what changed in version 3.4?", hits)
    assert found and {e.hit_index for e in found} == {0}
    # a version no chunk holds filters nothing
    assert len({e.hit_index for e in best_sentences("what changed in version 2.9?", hits)}) > 1


def test_a_row_named_in_the_question_is_quoted_before_rows_that_only_mention_it() -> None:
    """ "Business of Nimbus plans" (after "the second one") asks for the Business row, not
    the Starter row whose support column says "business days"."""
    table = (
        "| Plan | Price per month | Support |\n| --- | --- | --- |\n"
        "| Starter | USD 9 | email, business days |\n"
        "| Business | USD 29 | email and chat, business days |\n"
        "| Enterprise | USD 99 | 24/7 phone |"
    )
    found = best_sentences("Business of Nimbus Backup plans", [hit(table)])
    assert found[0].sentence.startswith("Plan: Business;")


@pytest.mark.parametrize(
    ("question", "plan"),
    [
        ("which one is the cheapest?", "Starter"),
        ("which plan is the most expensive?", "Enterprise"),
        ("which plan includes the most sites?", "Enterprise"),  # "unlimited" beats 10
        ("which plan has the fewest sites?", "Starter"),
        ("which is the fastest?", "Enterprise"),  # 10 Gbit/s beats 100 Mbit/s and 1 Gbit/s
        ("which plan has the lowest bandwidth per site?", "Starter"),  # Mbit/s < Gbit/s
    ],
)
def test_a_superlative_question_opens_with_the_row_the_numbers_pick(question, plan) -> None:
    """The best-ranked row (Pro, first in the table) is not the answer; the numbers decide,
    and the losing rows are not quoted."""
    quoted = [e.sentence for e in best_sentences(question, [hit(TIERS_TABLE)])]
    assert quoted[0].startswith(f"Plan: {plan};")
    assert sum(s.startswith("Plan: ") for s in quoted) == 1


@pytest.mark.parametrize(
    "question",
    [
        "what plans are there?",  # no superlative
        "which plan has the most regions?",  # a column the table lacks
        "which one has the best support?",  # "best" compares no number
    ],
)
def test_without_a_comparable_column_the_rows_are_quoted_as_ranked(question) -> None:
    quoted = [e.sentence for e in best_sentences(question, [hit(TIERS_TABLE)])]
    assert superlatives.pick(question, quoted) is None


def test_a_tie_picks_no_row() -> None:
    rows = ["Plan: A; Price: $10.", "Plan: B; Price: $10.", "Plan: C; Price: $20."]
    assert superlatives.pick("which is the cheapest?", rows) is None
    assert superlatives.pick("which is the most expensive?", rows) == "Plan: C; Price: $20."


def test_rows_of_different_tables_are_not_compared() -> None:
    rows = ["Plan: A; Price: $10.", "Pass: Day; Price: $5; Valid: 1 day.", "Plan: B; Price: $30."]
    assert superlatives.pick("which is the cheapest?", rows) == "Plan: A; Price: $10."


@pytest.mark.parametrize(
    ("cell", "number"),
    [("$1,450", 1450.0), ("from $1,450", 1450.0), ("10 Gbit/s", 1e10), ("100 Mbit/s", 1e8),
     ("unlimited", float("inf")), ("2", 2.0), ("1.5 GB", 1.5e9), ("none", None)],
)  # fmt: skip
def test_cell_values_read_units_and_unlimited(cell, number) -> None:
    assert superlatives.value(cell) == number


def test_a_table_the_question_does_not_name_is_not_compared() -> None:
    """ "which pass is the cheapest?" retrieved a table of plans beside the passes: the
    cheapest plan is no answer to it."""
    plans = ["Plan: Starter; Price: $49.", "Plan: Pro; Price: $299."]
    assert superlatives.pick("which pass is the cheapest?", plans) is None
    passes = ["Pass: Day; Price: $12.", "Pass: Monthly; Price: $25."]
    assert superlatives.pick("which pass is the cheapest?", plans + passes) == passes[0]
    assert superlatives.pick("which plan is the cheapest?", passes + plans) == plans[0]


def test_a_single_digit_tells_rows_apart() -> None:
    """ "sev 2" against rows for Sev 1, 3, 4 and 2: the digit is the whole difference."""
    rows = "".join(f"| Sev {n} | {n * 30} minutes |\n" for n in (1, 3, 4, 2))
    table = "| Severity | First response |\n| --- | --- |\n" + rows
    quoted = [e.sentence for e in best_sentences("response time for sev 2?", [hit(table)])]
    assert "Severity: Sev 2; First response: 60 minutes." in quoted


@pytest.mark.parametrize(
    ("question", "plan"),
    [
        ("which of Pro or Starter is cheaper?", "Starter"),
        ("which plan has more sites?", "Enterprise"),
        ("is Pro or Starter faster?", "Pro"),  # Enterprise is faster, but not asked of
        ("which of Pro or Enterprise has fewer sites?", "Pro"),
    ],
)
def test_a_comparative_picks_like_a_superlative(question, plan) -> None:
    quoted = [e.sentence for e in best_sentences(question, [hit(TIERS_TABLE)])]
    assert quoted[0].startswith(f"Plan: {plan};")


def test_a_bare_heading_line_of_extracted_text_is_no_part_of_its_sentence() -> None:
    """A PDF's "Firmware notes" heading had opened the quote "Firmware notes Firmware 7.3 of
    the Norrland NR-500 drops tunnels"."""
    text = (
        "Cloud Connect supported routers\n\nFirmware notes\n"
        "Firmware 7.3 of the Norrland NR-500 drops tunnels every 24 hours.\n"
        "Skip 7.3 and install 7.3.1 or later.\n"
    )
    assert [u.text for u in units(text, "Cloud Connect supported routers")] == [
        "Firmware 7.3 of the Norrland NR-500 drops tunnels every 24 hours.",
        "Skip 7.3 and install 7.3.1 or later.",
    ]
    # a wrapped sentence whose next line starts lower-case is no heading
    assert [u.text for u in units("Cloud Connect\nworks with any router.")] == [
        "Cloud Connect works with any router."
    ]


DAMAGE = (
    "Report damage in the app before your next ride: open the ride and add a photo of the "
    "damage. You can report damage to any bike in the app, and the app sends the photo to a "
    "mechanic. Damage reports in the app are checked by a mechanic the same day. Tell us "
    "within 30 minutes of the end of the ride and nothing is charged."
)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("within how long do I have to report damage?", "duration"),
        ("how much does the day pass cost?", "price"),
        ("when do shops open on Saturday?", "time"),
        ("how many sites does Pro include?", "count"),
        ("how do I report damage?", None),
    ],
)
def test_the_kind_of_answer_asked_for(question: str, kind: str | None) -> None:
    from tellmemore.answer.answer_types import asked_type

    assert asked_type(question) == kind


def test_the_sentence_that_holds_the_asked_duration_is_quoted() -> None:
    """ "How do I report a damaged bike within how long?" quoted three ways to report and
    not the 30 minutes, which shares one word with the question."""
    asked = best_sentences("how do I report damage in the app within how long?", [hit(DAMAGE)])
    assert any("within 30 minutes" in e.sentence for e in asked)
    # a question of no kind keeps the word overlap's choice
    plain = best_sentences("how do I report damage in the app?", [hit(DAMAGE)])
    assert not any("within 30 minutes" in e.sentence for e in plain)


def test_a_number_with_no_shared_word_gets_no_bonus() -> None:
    text = "Helmets are free to borrow. The museum opened in 1990. Shops lend helmets at 09:00."
    quoted = [e.sentence for e in best_sentences("when can I borrow helmets?", [hit(text)])]
    assert "1990" not in quoted[0]


def test_a_section_about_the_subject_counts_for_the_answer_kind() -> None:
    """The demo's "how fast do Enterprise escalations respond?" quoted "confirmed by email
    within 15 minutes" and not "The target first response is 1 hour", which shares no word
    with the question but sits under "Enterprise tier"."""
    chunk = make_chunk(
        "esc",
        "Escalations go to a named responder who knows your network. The target first "
        "response is 1 hour, around the clock. Escalations cover weekends and holidays. A "
        "phone escalation is confirmed by email within 15 minutes.",
        title="Cloud Connect escalation",
        section=("Enterprise tier",),
    )
    found = best_sentences(
        "how fast do enterprise escalations respond?", [Hit(chunk=chunk, score=1.0, rank=1)]
    )
    assert any("1 hour" in e.sentence for e in found)


_QUOTE_NEAR_TIE = """
import json, sys
from tellmemore.answer.extractive import best_sentences
from tellmemore.testing.conformance import make_chunk
from tellmemore.types import Hit
case = json.load(open(sys.argv[1]))
texts = enumerate(case["passages"])
hits = [Hit(chunk=make_chunk(str(i), t), score=1.0, rank=i + 1) for i, t in texts]
print(json.dumps([e.sentence for e in best_sentences(case["query"], hits)]))
"""


def test_the_quoted_sentences_do_not_depend_on_the_hash_seed() -> None:
    """Scores were float sums over sets of words, in an order set by PYTHONHASHSEED: on this
    MTRAG turn two sentences sit a rounding error apart, and another process quoted the
    other one (bench/extractive_answers.py moved between runs)."""
    import subprocess
    import sys
    from pathlib import Path

    case = Path(__file__).parent / "data" / "extractive_near_tie.json"
    answers = set()
    for seed in ("1", "2", "3", "4", "5", "6"):
        run = subprocess.run(
            [sys.executable, "-c", _QUOTE_NEAR_TIE, str(case)],
            capture_output=True, text=True, check=True, env={"PYTHONHASHSEED": seed, "PATH": ""},
        )  # fmt: skip
        answers.add(run.stdout)
    assert len(answers) == 1


@pytest.mark.parametrize(
    ("question", "step"),
    [
        ("what's step 2?", "Step 2: Pick the"),
        ("what's the third step (Add your first site)?", "Step 3: Add your"),
        ("and the last step?", "Step 3: Add your"),
        # the step the resolver bound wins over the ordinal an ellipsis kept
        ("what's the second step (Add your first site)?", "Step 3: Add your"),
    ],
)
def test_a_step_asked_by_number_is_quoted_alone(question: str, step: str) -> None:
    """ "what's step 4?" quoted all seven steps: the procedure rule brought them."""
    chunk = make_chunk("steps", STEPS, title="Getting started")
    found = best_sentences(question, [Hit(chunk=chunk, score=1.0, rank=1)])
    assert [e.sentence[: len(step)] for e in found] == [step]


@pytest.mark.parametrize(
    ("question", "n"),
    [
        ("what's step 4?", 4),
        ("and the 3rd step?", 3),
        ("what is the second step?", 2),
        ("and the final step?", -1),
        ("how do I step up my plan?", None),
        ("what are the steps?", None),
    ],
)
def test_the_step_a_question_asks_for(question: str, n: int | None) -> None:
    from tellmemore.answer.steps import asked_step

    assert asked_step(question) == n


def test_weekend_days_count_as_one_word_not_two() -> None:
    """ "does Enterprise escalation cover weekends?" quoted the bike shop's "Saturday and
    Sunday" row too: the two days had scored as two shared words."""
    hours = (
        "| Day | Opening hours |\n| --- | --- |\n"
        "| Monday to Friday | 07:00 to 20:00 |\n| Saturday and Sunday | 09:00 to 18:00 |"
    )
    hits = [
        Hit(chunk=make_chunk("esc", ESCALATION, title="Escalation"), score=1.0, rank=1),
        Hit(chunk=make_chunk("shop", hours, title="Shop hours"), score=0.9, rank=2),
    ]
    found = best_sentences("does Enterprise escalation cover weekends?", hits)
    assert found and all(e.hit_index == 0 for e in found)


ESCALATION = (
    "Enterprise escalations cover weekends and public holidays. Standard escalations are "
    "handled on business days only."
)


API_PLANS = (
    "| Plan | Requests per minute | Price per month |\n| --- | --- | --- |\n"
    "| Free | 60 | 0 USD |\n| Starter | 300 | 49 USD |\n| Business | 1,200 | 299 USD |\n"
    "| Enterprise | 5,000 | on request |"
)
RELEASE = (
    "- Added webhooks for invoice events.\n"
    "- Added single sign-on with Okta for Business and Enterprise plans.\n"
    "- Deprecated the v1 export endpoint."
)


def test_a_question_for_a_list_quotes_every_item_of_the_list_of_that_kind() -> None:
    """ "what are the plans?" quoted the Free row alone (three sentences at most), so "the
    second one" then meant Free and "the business one" abstained. The release notes that
    mention plans stay one bullet: they are no list of plans."""
    hits = [
        Hit(chunk=make_chunk("notes", RELEASE, title="Release notes"), score=1.0, rank=1),
        Hit(chunk=make_chunk("plans", API_PLANS, title="API rate limits"), score=0.9, rank=2),
    ]
    quoted = [e.sentence for e in best_sentences("what are the plans?", hits)]
    rows = [q for q in quoted if q.startswith("Plan: ")]
    assert [r.split(";")[0] for r in rows] == [
        "Plan: Free", "Plan: Starter", "Plan: Business", "Plan: Enterprise"
    ]  # fmt: skip
    assert "Added webhooks for invoice events." not in quoted
    one = [e.sentence for e in best_sentences("what does the Business plan cost?", hits)]
    assert sum(q.startswith("Plan: ") for q in one) == 1


@pytest.mark.parametrize(
    ("query", "noun"),
    [
        ("what are the plans?", "plan"),
        ("what are the escalation levels?", "level"),
        ("which levels are there?", "level"),
        ("what plans does the API have?", "plan"),
        ("list the steps", "step"),
        ("what are the limits of Pro?", None),
        ("what is the plan?", None),
        ("what are the api rate limits?", "limit"),
        ("what are the limits of teams?", None),
    ],
)
def test_a_list_question_names_its_class(query: str, noun: str | None) -> None:
    assert listed_class(query) == noun


def test_a_list_question_answered_in_prose_also_gets_the_list_its_section_names() -> None:
    """ "what are the API rate limits?" quoted three sentences about limits and none of the
    per-plan numbers: the table under "API rate limits" is the answer."""
    prose = "Every request counts against the rate limit of your plan. Limits apply per key."
    hits = [
        Hit(chunk=make_chunk("intro", prose, title="API rate limits"), score=1.0, rank=1),
        Hit(
            chunk=make_chunk("table", API_PLANS, title="API rate limits", section=("Per plan",)),
            score=0.9,
            rank=2,
        ),
    ]
    quoted = [e.sentence for e in best_sentences("what are the API rate limits?", hits)]
    assert sum(q.startswith("Plan: ") for q in quoted) == 4, quoted
    alone = [e.sentence for e in best_sentences("do limits apply per key?", hits)]
    assert not any(q.startswith("Plan: ") for q in alone)


APPROVALS = (
    "Approval timelines\n\n"
    "- Five days to ten days in advance for:\n"
    "  - Training (not at a conference) that costs less than $2,500, including travel\n"
    "- Three to five weeks in advance for:\n"
    "  - Conference events that cost more than $2,500, including travel\n"
    "  - Speaking events in your official capacity\n"
)


def test_an_item_indented_under_another_comes_with_it() -> None:
    """The timeline is the parent item; the training course alone answered "how far in
    advance should I request a $1,000 training course?" with no timeline at all."""
    us = units(APPROVALS, "Approval timelines")
    assert [u.indent > 0 for u in us] == [False, True, False, True, True]
    question = "when to request speaking events?"
    quoted = [e.sentence for e in best_sentences(question, [hit(APPROVALS)])]
    assert "Speaking events in your official capacity" in quoted
    at = quoted.index("Speaking events in your official capacity")
    assert quoted.index("Three to five weeks in advance for:") < at
    assert "Five days to ten days in advance for:" not in quoted


def test_a_sentence_two_chunks_share_is_quoted_once_whatever_brings_it() -> None:
    """The pronoun rule brings the sentence before "It starts ..."; the first chunk had
    quoted that same sentence already (a page and its copy)."""
    shared = "Parental leave is sixteen weeks at full pay."
    hits = [
        Hit(chunk=make_chunk("a", f"{shared} Ask HR for the form.", title="A"), score=1.0, rank=1),
        Hit(
            chunk=make_chunk("b", f"{shared} It starts on the day of the birth.", title="B"),
            score=0.9,
            rank=2,
        ),
    ]
    quoted = [e.sentence for e in best_sentences("when does parental leave start?", hits)]
    assert "It starts on the day of the birth." in quoted
    assert quoted.count(shared) == 1


FAQ = (
    "## FAQ\n\n"
    "Q: Can I use the stipend for a family member's therapy? "
    "A: No, at this time the benefit is for your own mental health only.\n\n"
    "Q: How quickly is the stipend paid? "
    "A: The people team approves a request within 3 business days."
)


def test_a_question_the_document_asks_is_quoted_with_the_answer_after_it() -> None:
    """An FAQ's own question is the sentence most like the user's; quoted alone, it
    answers nothing."""
    found = best_sentences("can the stipend pay for my son's therapy?", [hit(FAQ)])
    quoted = [e.sentence for e in found]
    asked = next(i for i, s in enumerate(quoted) if s.startswith("Q: Can I use"))
    assert quoted[asked + 1].startswith("A: No, at this time")


def test_questions_in_a_row_bring_no_answer_from_the_next_question() -> None:
    index = "Common questions:\n\nIs there a stipend? Who approves it? How fast is it paid?"
    found = best_sentences("who approves the stipend?", [hit(index)])
    assert all(e.sentence.endswith("?") or e.sentence.endswith(":") for e in found)


MEALS = (
    "Spend within reason when you travel.\n\n"
    "- All teammates will be able to spend a maximum of:\n"
    "  - $80 per day for all 3 meals, alcoholic beverages included.\n"
    "  - Any additional spending on food comes out of your own pocket.\n"
    "- Always ask for receipts over $25."
)


@pytest.mark.parametrize(
    "question", ["how much can I spend on food?", "who pays for extra food spending?"]
)
def test_an_item_ending_in_a_colon_is_quoted_with_the_items_under_it(question: str) -> None:
    """ "a maximum of:" quoted alone, or with its second case only, left out the $80."""
    quoted = [e.sentence for e in best_sentences(question, [hit(MEALS)])]
    assert "All teammates will be able to spend a maximum of:" in quoted
    assert "$80 per day for all 3 meals, alcoholic beverages included." in quoted
