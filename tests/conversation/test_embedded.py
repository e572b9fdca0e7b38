"""The embedded resolver on issue 3's probes: seed 003's Cloud Connect case, a topic switch,
seed 001's follow-ups, ordinals, the clarification chain, codes and dates."""

from __future__ import annotations

import pytest

from tellmemore.conversation.binding import Salience
from tellmemore.conversation.realize import splice_modifier, substitute_subject
from tellmemore.conversation.referents import find_referents
from tellmemore.conversation.resolvers import EmbeddedResolver, ResolveContext
from tellmemore.conversation.text import tokenize
from tellmemore.types import Resolution, Turn

from .histories import (
    CLOUD_CONNECT,
    CLOUD_CONNECT_CHOSEN,
    CLOUD_CONNECT_LONG,
    FLAT_TYRE,
    LATE_RETURNS,
    MONTHLY_PASS,
    PLANS_LIST,
    SHOPS,
    A,
    U,
    corpus_stats,
)


def resolve(message: str, history: list[Turn], *, stats: bool = True) -> Resolution:
    ctx = ResolveContext(term_stats=corpus_stats() if stats else None)
    res = EmbeddedResolver().resolve(message, history, ctx)
    assert res.resolver == "embedded"
    assert not res.model_called
    assert res.degraded is None
    return res


@pytest.mark.parametrize("stats", [True, False])
def test_that_one_binds_the_tier_the_user_named(stats: bool) -> None:
    res = resolve("does that one cover weekends?", CLOUD_CONNECT_CHOSEN, stats=stats)
    assert not res.ambiguous
    assert res.bindings["that one"] == "Enterprise escalation"
    q = res.query.lower()
    assert "enterprise escalation" in q and "cloud connect" in q and "weekends" in q
    assert "standard" not in q


@pytest.mark.parametrize("stats", [True, False])
def test_that_one_between_two_equal_tiers_asks(stats: bool) -> None:
    res = resolve("does that one cover weekends?", CLOUD_CONNECT, stats=stats)
    assert res.ambiguous
    assert res.clarification == "Do you mean Standard or Enterprise escalation?"
    assert res.candidates == ("Standard escalation", "Enterprise escalation")
    assert res.bindings == {}


def test_the_message_naming_one_alternative_binds_it() -> None:
    res = resolve("does the enterprise one cover weekends?", CLOUD_CONNECT)
    assert not res.ambiguous
    assert res.bindings["the enterprise one"] == "Enterprise escalation"
    assert res.query.lower() == "does enterprise escalation on cloud connect cover weekends?"


def test_the_reply_to_a_clarification_resolves_the_original_question() -> None:
    asked = resolve("does that one cover weekends?", CLOUD_CONNECT)
    history = [*CLOUD_CONNECT, U("does that one cover weekends?"), A(asked.clarification or "")]
    res = resolve("enterprise", history)
    assert not res.ambiguous
    assert res.bindings["that one"] == "Enterprise escalation"
    assert "weekends" in res.query and "enterprise escalation" in res.query.lower()
    other = resolve("the standard one please", history)
    assert other.bindings["that one"] == "Standard escalation"


def test_which_one_binds_both_alternatives() -> None:
    res = resolve("which one is faster?", CLOUD_CONNECT)
    assert not res.ambiguous
    assert "Standard escalation" in res.query and "Enterprise escalation" in res.query


@pytest.mark.parametrize("stats", [True, False])
def test_topic_switch_carries_nothing(stats: bool) -> None:
    message = "what's the SLA on status page incidents?"
    res = resolve(message, CLOUD_CONNECT_LONG, stats=stats)
    assert res.query == message
    assert res.bindings == {}


@pytest.mark.parametrize(
    ("history", "message", "subject"),
    [
        (SHOPS, "and on holidays?", "shops close on holidays"),
        (MONTHLY_PASS, "How much is it?", "monthly pass"),
        (FLAT_TYRE, "Do I pay for the other one?", "flat tyre"),
        (MONTHLY_PASS, "Does it include e-bikes?", "monthly pass"),
        (CLOUD_CONNECT_CHOSEN, "tell me more", "enterprise"),
    ],
)
@pytest.mark.parametrize("stats", [True, False])
def test_seed_001_follow_ups_name_their_subject(
    history: list[Turn], message: str, subject: str, stats: bool
) -> None:
    res = resolve(message, history, stats=stats)
    assert subject in res.query.lower(), res
    assert res.bindings
    assert not res.unbound_referent


def test_and_on_holidays_replaces_the_old_qualifier() -> None:
    res = resolve("and on holidays?", SHOPS)
    assert res.query == "What time do shops close on holidays?"


def test_the_second_one_is_the_second_list_item() -> None:
    res = resolve("how much is the second one?", PLANS_LIST)
    assert res.bindings["the second one"] == "Monthly pass"
    assert res.query.startswith("how much is Monthly pass")
    last = resolve("and the last option?", PLANS_LIST)
    assert "Annual membership" in last.query


def test_the_second_one_of_a_two_clause_answer() -> None:
    res = resolve("What about the second one?", LATE_RETURNS)
    assert res.bindings["the second one"] == "damage"
    assert "damage" in res.query


def test_same_question_for_a_new_subject() -> None:
    history = [U("what's the latency in Amsterdam?"), A("About 4 ms in Amsterdam.")]
    res = resolve("same question for Frankfurt", history)
    assert res.query == "what's the latency in Frankfurt?"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What time does the Berlin office open?", "What time does the Frankfurt office open?"),
        ("What are the hours of the Berlin office?", "What are the hours of the Frankfurt office?"),
    ],
)
@pytest.mark.parametrize("message", ["what about Frankfurt?", "and about Frankfurt?"])
def test_a_new_name_replaces_only_the_name_in_the_previous_subject(
    message: str, question: str, expected: str
) -> None:
    res = resolve(message, [U(question), A("It opens at 8:00.")])
    assert res.query == expected


def test_an_ellipsis_is_bound_to_the_previous_question_made_standalone() -> None:
    """ "Answering about: does it include escalation?" would not say what "it" was."""
    history = [
        U("How much is the Pro plan?"),
        A("Pro costs $299 per month."),
        U("does it include escalation?"),
        A("Pro includes Standard escalation."),
    ]
    res = resolve("what about the Enterprise plan?", history)
    assert res.query == "does the Enterprise plan include escalation?"
    # issue 20: the key is the cue the user typed (the referent), not the opener
    bound = "does the Pro plan include escalation?"
    assert res.bindings == {"the Enterprise plan": bound}
    assert res.passes == ("ellipsis",)


@pytest.mark.parametrize(
    ("fragment", "expected"),
    [
        ("the Team plan", "does the Team plan include escalation?"),
        ("Enterprise", "does the Enterprise one include escalation?"),
    ],
)
def test_a_subject_with_its_own_noun_replaces_the_pro_form_one(
    fragment: str, expected: str
) -> None:
    base = "does the Standard one include escalation?"
    assert substitute_subject(base, fragment, Salience(None)) == expected


def test_an_unbound_referent_searches_the_raw_message_and_says_so() -> None:
    history = [U("hi"), A("Hello! How can I help?")]
    res = resolve("what is the second one?", history)
    assert res.query == "what is the second one?"
    assert res.unbound_referent
    assert res.bindings == {}


def test_codes_and_dates_survive_exactly() -> None:
    history = [U("Is flood damage covered in postcode 1011?"), A("Yes, in 1011 it is covered.")]
    res = resolve("What about 1012 in May 2026?", history)
    for token in ("1012", "May", "2026"):
        assert token in res.query
    history = [U("What does error ERR-4021 mean on Cloud Connect v6.15.0?"), A("A quota error.")]
    res = resolve("how do I fix it before 2026-12-01?", history)
    assert "2026-12-01" in res.query
    assert res.bindings["it"] in ("error ERR-4021", "Cloud Connect v6.15.0")


def test_no_history_is_the_raw_message() -> None:
    res = resolve("does that one cover weekends?", [])
    assert res.query == "does that one cover weekends?"
    assert not res.unbound_referent


def test_person_pronoun_binds_a_name() -> None:
    history = [U("Tell me about Doctor Strange"), A("Doctor Strange's powers come from mystics.")]
    res = resolve("did he always have powers?", history)
    assert res.query == "did Doctor Strange always have powers?"


def test_latency_is_about_a_millisecond() -> None:
    res = resolve("does that one cover weekends?", CLOUD_CONNECT_CHOSEN)
    assert 0 < res.latency_ms < 50  # generous bound for a loaded CI box; bench/ measures p50


def test_the_latter_is_the_second_alternative_not_the_announcement() -> None:
    res = resolve("is the latter faster?", CLOUD_CONNECT)
    assert res.bindings["the latter"] == "Enterprise escalation"


def test_chained_ellipses_unwind_to_the_first_full_question() -> None:
    history = [*SHOPS, U("and on Sundays?"), A("Shops close at 5 pm on Sundays.")]
    res = resolve("and on holidays?", history)
    assert res.query == "What time do shops close on holidays?"


def test_a_verb_before_the_pronoun_is_no_antecedent() -> None:
    res = resolve("how do I close it?", CLOUD_CONNECT_LONG)
    assert "cloud connect ticket" in res.query.lower()


def test_a_name_earlier_in_the_message_keeps_the_pronoun_inside() -> None:
    message = "What about Status Page? does it send emails?"
    res = resolve(message, CLOUD_CONNECT_LONG)
    assert res.query == message
    assert res.bindings == {}


def test_a_noun_in_an_earlier_clause_of_the_message_keeps_the_pronoun_inside() -> None:
    message = "I tried to update my credit card, but it keeps showing errors"
    assert resolve(message, MONTHLY_PASS).query == message
    assert resolve("what is the price of it?", MONTHLY_PASS).bindings["it"] == "monthly pass"


def test_do_that_is_an_action_not_a_thing() -> None:
    message = "Can I extend the monthly pass? if so, how can I do that?"
    res = resolve(message, CLOUD_CONNECT_CHOSEN)
    assert res.query == message
    assert not res.unbound_referent


def test_which_one_without_a_list_compares_the_two_kinds_named() -> None:
    history = [
        U("what is the difference between static secrets and dynamic secrets?"),
        A("Static secrets are stored values; dynamic secrets are generated on demand."),
    ]
    res = resolve("Which one protects more from vulnerabilities?", history)
    assert "static secrets" in res.query.lower() and "dynamic secrets" in res.query.lower()


def test_the_docstring_example_is_true() -> None:
    import doctest

    import tellmemore.conversation.resolvers.embedded as module

    assert doctest.testmod(module).failed == 0


def test_only_the_turns_the_resolver_reads_are_prepared() -> None:
    from tellmemore.conversation.passes.readable import _readable

    old = [U("What is Cloud Connect? [1]"), A("A private link [1].")] * 40
    recent = [U("Do you mean Standard or Enterprise escalation?"), A("see [2]")]
    history = [*old, A("Do you mean Standard or Enterprise escalation?"), U("enterprise"), *recent]
    out, read = _readable(history, window=3)
    assert read == [0, 1, *range(len(history) - 12, len(history))]
    assert out[0].content == "What is Cloud Connect?"  # the first exchange is read
    assert out[1].content == "A private link."
    assert out[40].content == history[40].content  # the middle of a long session is not
    assert out[-3].content == "Enterprise escalation"  # the reply reads as its option
    assert out[-1].content == "see"


OPENING_HOURS = [
    U("what are the shop opening hours?"),
    A("Monday to Friday 07:00 to 20:00, Saturday and Sunday 09:00 to 18:00."),
]


@pytest.mark.parametrize(
    ("message", "query"),
    [
        ("what about Sundays?", "what are the shop opening hours on Sundays?"),
        ("and public holidays?", "what are the shop opening hours on public holidays?"),
        ("what about the evening?", "what are the shop opening hours in the evening?"),
        ("and tomorrow?", "what are the shop opening hours tomorrow?"),
    ],
)
def test_a_bare_time_qualifies_the_previous_question(message: str, query: str) -> None:
    """ "what about Sundays?" asks when, not what: not "what are the Sundays?"."""
    res = resolve(message, OPENING_HOURS)
    assert res.query == query
    assert list(res.bindings.values()) == ["what are the shop opening hours?"]


def test_a_new_time_replaces_the_time_of_the_previous_question() -> None:
    history = [
        *OPENING_HOURS,
        U("what about Sundays?"),
        A("Saturday and Sunday 09:00 to 18:00."),
    ]
    res = resolve("and on public holidays?", history)
    assert res.query == "what are the shop opening hours on public holidays?"


def test_a_bare_qualifier_qualifies_the_previous_question() -> None:
    history = [U("are helmets free?"), A("Helmets are free to borrow at every shop.")]
    res = resolve("for kids too?", history)
    assert res.query == "are helmets free for kids?"
    assert res.bindings == {"for kids": "are helmets free?"}  # the fragment: the cue


@pytest.mark.parametrize("message", ["In my opinion it is bad", "at what time do shops close too?"])
def test_a_prepositional_question_or_clause_is_no_bare_qualifier(message: str) -> None:
    from tellmemore.conversation.referents import find_ellipsis

    assert find_ellipsis(message) is None


def test_an_ellipsis_around_a_bound_one_asks_the_previous_question() -> None:
    """ "and the monthly one?": "one" binds to "Monthly pass" (capitalised in the answer),
    which is the history's word, not a subject the user brought."""
    history = [
        U("how much is the day pass?"),
        A("Day pass: 12 dollars for 24 hours. Monthly pass: 25 dollars per month."),
    ]
    res = resolve("and the monthly one?", history)
    assert res.query == "how much is the Monthly pass?"


def test_an_attribute_alone_is_too_little_signal() -> None:
    """However rare "maximum" is in the documents, "what's the maximum?" asks about the
    conversation's subject."""
    from tellmemore.conversation.gate import gate

    history = [U("what if I return the bike late?"), A("A late fee of 2 dollars per 15 minutes.")]
    assert gate("what's the maximum?", history, corpus_stats()).needs_resolution


def test_an_ellipsis_after_small_talk_varies_the_question_before_it() -> None:
    history = [
        U("what's the uptime guarantee for Pro?"),
        A("Pro commits to 99.9% monthly uptime per region."),
        U("thanks"),
        A("You're welcome!"),
    ]
    assert resolve("and for the Starter plan?", history).query == (
        "what's the uptime guarantee for the Starter plan?"
    )
    assert resolve("what about Enterprise?", history).query == (
        "what's the uptime guarantee for Enterprise?"
    )


def test_a_chained_ellipsis_replaces_what_the_previous_one_varied() -> None:
    """ "and for Enterprise?" then "what about the free plan?": the plan changes again,
    the uptime guarantee stays."""
    history = [
        U("what's the uptime guarantee?"),
        A("Pro commits to 99.9% monthly uptime per region."),
        U("and for Enterprise?"),
        A("Enterprise commits to 99.95%."),
    ]
    for stats in (True, False):
        res = resolve("what about the free plan?", history, stats=stats)
        assert res.query == "what's the uptime guarantee for the free plan?"


@pytest.mark.parametrize(
    ("question", "message", "expected"),
    [
        ("is the flat tyre free?", "what about damage?", "is the damage free?"),
        ("are helmets free?", "what about child seats?", "are child seats free?"),
    ],
)
def test_a_new_subject_keeps_what_was_said_of_the_old_one(
    question: str, message: str, expected: str
) -> None:
    res = resolve(message, [U(question), A("Yes, at every shop.")])
    assert res.query == expected


def test_a_pronoun_keeps_the_topic_the_previous_pronoun_was_bound_to() -> None:
    """Centering: "how much does it cost?" was about Status Page, so "it" in the next
    question is too, not the conversation's first subject."""
    history = [
        U("I'm setting up escalation for our team."),
        A("Good."),
        U("what does Status Page do?"),
        A("Status Page is a hosted page that tells your customers whether your service works."),
        U("how much does it cost?"),
        A("Plans start at $29 per month for the Basic tier, billed monthly in US dollars."),
    ]
    for stats in (True, False):
        res = resolve("can I use my own domain with it?", history, stats=stats)
        assert res.query == "can I use my own domain with Status Page?"
        assert res.bindings == {"it": "Status Page"}


LATE_FEE = [
    U("what's the late fee for bikes?"),
    A("A bike returned late costs 2 dollars per 15 minutes, up to 40 dollars per day."),
]


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("is that also true for e-bikes?", "what's the late fee for e-bikes?"),
        ("does that apply to e-bikes?", "what's the late fee for e-bikes?"),
        ("does it also apply on weekends?", "what's the late fee for bikes on weekends?"),
    ],
)
def test_asking_whether_the_answer_holds_elsewhere_asks_the_question_again(
    message: str, expected: str
) -> None:
    res = resolve(message, LATE_FEE)
    assert res.query == expected
    assert list(res.bindings.values()) == ["what's the late fee for bikes?"]


def test_which_is_better_compares_the_alternatives_just_listed() -> None:
    history = [
        U("compare the day pass and the monthly pass"),
        A("Day pass: 12 dollars for 24 hours. Monthly pass: 25 dollars per month."),
    ]
    res = resolve("which is better for a tourist?", history)
    assert res.query == "which of Day pass or Monthly pass is better for a tourist?"
    own = "which is the best way to reset my password in the mobile app?"
    assert resolve(own, history).query == own  # a long question with its own subject


@pytest.mark.parametrize("message", ["does the Basic plan include it?", "Did NASA fund it?"])
def test_an_object_pronoun_is_not_its_own_clauses_subject(message: str) -> None:
    """Binding theory: "it" as the object of "include" cannot be the Basic plan."""
    history = [
        U("can I use my own domain with Status Page?"),
        A("Yes: a custom domain such as status.example.com, with HTTPS."),
    ]
    res = resolve(message, history)
    assert res.bindings
    assert next(iter(res.bindings.values())) == "Status Page"


def test_a_possessive_may_be_its_own_clauses_subject() -> None:
    history = [U("how do backups work?"), A("Backups run nightly.")]
    message = "Does the Lite plan keep its data?"
    assert resolve(message, history).query == message


def test_that_after_a_verb_of_saying_is_what_was_said() -> None:
    from tellmemore.conversation.referents import find_referents

    assert not find_referents("I know that")
    assert not find_referents("I think that is right")


def test_a_contracted_it_is_a_pronoun_and_keeps_its_verb() -> None:
    history = [
        U("what's the uptime SLA for Status Page?"),
        A("Status Page Business commits to 99.99% monthly uptime of the public page."),
    ]
    res = resolve("what credit do I get if it's missed?", history)
    assert res.query == "what credit do I get if the uptime SLA is missed?"
    expletive = resolve("it's possible to claim?", history)
    assert expletive.query.startswith("it's possible to claim")  # "it" stays, with its verb
    assert "it" not in expletive.bindings and "it's" not in expletive.bindings


def test_it_after_a_superlative_one_is_the_row_the_answer_picked() -> None:
    """ "the cheaper one" stayed unbound (the plans were never listed); the answer quoted
    the Basic row: "does it have an uptime SLA?" is about Basic, not about subscribers."""
    history = [
        U("Status Page plans"),
        A("Status Page is a hosted page that tells your customers whether you are up."),
        U("how many subscribers does the cheaper one allow?"),
        A("Plan: Basic; Plan code: SP-BASIC-2026; Price per month: $29; Subscribers: 1,000."),
    ]
    res = resolve("does it have an uptime SLA?", history)
    assert res.bindings.get("it") == "Basic"
    assert "subscribers" not in res.query.lower()
    assert "cheaper" not in " ".join(res.bindings.values())


def test_a_comparative_before_one_is_no_antecedent_but_a_noun_in_er_is() -> None:
    from tellmemore.conversation.binding import phrases

    assert [p.text for p in phrases("does the cheaper one allow more subscribers?")] == [
        "subscribers"
    ]
    assert [p.text for p in phrases("how do I set up the router one?")] == ["router"]


def test_and_the_last_one_after_the_second_step_asks_for_the_last_step() -> None:
    """ "what's the second step?" then "and the last one?" was rebuilt as "what's the
    second step (<the last step's text>)?"."""
    steps = (
        "1. Sign in to the console.\n2. Pick the region closest to your sites.\n"
        "3. Run the built-in connectivity test."
    )
    history = [
        U("how do I connect my sites?"),
        A(steps),
        U("what's the second step?"),
        A("2. Pick the region closest to your sites."),
    ]
    res = resolve("and the last one?", history)
    assert "the last step" in res.query and "second" not in res.query, res
    assert "connectivity test" in res.query


@pytest.mark.parametrize(
    ("message", "item"),
    [("what's step 3?", "Run the built-in"), ("and step two?", "Pick the region"),
     ("what does step 1 say?", "Sign in")],
)  # fmt: skip
def test_a_step_by_number_points_at_that_step_of_the_last_procedure(message, item) -> None:
    """ "what's step 3?" after a procedure was searched as typed and abstained: the number
    names a position of the last list, as "the third step" does."""
    steps = (
        "1. Sign in to the console.\n2. Pick the region closest to your sites.\n"
        "3. Run the built-in connectivity test."
    )
    res = resolve(message, [U("how do I connect my sites?"), A(steps)])
    assert item in res.query, res
    assert len(res.bindings) >= 1 and item in next(iter(res.bindings.values()))


def test_a_step_number_with_a_decimal_is_a_section_not_a_position() -> None:
    assert find_referents("what does step 1.5 of the guide say?") == []
    assert find_referents("what is level 3?") == []  # a name the documents use


def test_a_new_scope_replaces_the_scope_of_the_question_before() -> None:
    """ "and for macOS?" after "what's step 3 ... on Windows?" searched "... on Windows for
    macOS?": a named scope replaces the named scope, whatever the preposition."""
    assert (
        splice_modifier("what's step 3 (Open GlobalGate) on Windows?", "for macOS")
        == "what's step 3 (Open GlobalGate) for macOS?"
    )
    assert splice_modifier("does Pro include SSO?", "for Enterprise") == (
        "does Pro include SSO for Enterprise?"
    )  # nothing to replace
    assert splice_modifier("is the SLA on status page incidents?", "for Enterprise") == (
        "is the SLA on status page incidents for Enterprise?"
    )  # "status page incidents" is no name


def test_a_number_with_a_thousands_comma_is_one_word() -> None:
    """ "what about above 2,000?" after "... an expense of 1,500 EUR?" searched "... of
    1,above 2,000?": the tokenizer cut "1,500" at its comma and swapped out half of it."""
    history = [
        U("who approves an expense of 1,500 EUR?"),
        A("Level 2: expenses from 500 EUR to 2,000 EUR need the department head's approval."),
    ]
    res = resolve("what about above 2,000?", history)
    assert "1," not in res.query and "above 2,000" in res.query, res
    assert [t.text for t in tokenize("10,000,000 users, 3 plans")] == [
        "10,000,000",
        "users",
        "3",
        "plans",
    ]


def test_a_name_with_an_inner_capital_is_a_scope() -> None:
    """ "what's the last step?" after "and for macOS?" was scoped to "VPN": "macOS" starts
    with a small letter, so it was no name, and its weight alone was below the scope's."""
    windows = (
        "1. Download the GlobalGate client.\n2. Run the installer.\n"
        "3. Open GlobalGate and enter the portal address.\n4. Click Connect."
    )
    history = [
        U("how do I set up the VPN on Windows?"),
        A(windows),
        U("what's step 3?"),
        A("Step 3: Open GlobalGate and enter the portal address. [1]"),
        U("and for macOS?"),
        A("Step 3: Open GlobalGate from the menu bar and enter the portal address. [1]"),
    ]
    res = resolve("what's the last step?", history)
    # issue 20: the scope is searched and shown in the query, bound to no "scope" key
    assert res.query.endswith("for macOS?") and "scope" not in res.bindings, res
    assert res.passes == ("ordinal", "carry")
