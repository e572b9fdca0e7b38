"""Descriptions nothing in the conversation picks out (issue 22): "the famous basketball
player", "this county" ask which one; the same words after a turn that named the thing,
a description unique by itself, one tied to its "of" complement or a name do not."""

from __future__ import annotations

import pytest

from tellmemore.answer import clarify
from tellmemore.answer.unanchored import descriptions, unanchored
from tellmemore.testing.conformance import make_chunk
from tellmemore.types import Hit, Resolution, Turn

CHAT = [
    Turn("user", "How do cells keep different concentrations of proteins?"),
    Turn("assistant", "Through the semi-permeable membrane and active transport."),
]


@pytest.mark.parametrize(
    ("message", "found"),
    [
        ("When was the famous basketball player born?", "the famous basketball player"),
        ("How wealthy is this county of California?", "this county"),
        ("What awards has the actor received for his performances?", "the actor"),
        ("In which country is this language officially spoken?", "this language"),
        ("How did the fast food chain establish a presence in India?", "the fast food chain"),
        ("What is the actor's approach to fitness?", "the actor's"),
        ("Does this Fast food chain operate in India?", "this Fast food chain"),
    ],
)
def test_a_description_of_a_kind_with_no_antecedent_is_found(message: str, found: str) -> None:
    assert found in [d.text for d in unanchored(message, CHAT)]


@pytest.mark.parametrize(
    "message",
    [
        "What is the largest city?",  # a superlative picks one
        "What is the importance of alkaloids in medicine?",  # the "of" complement says which
        "When did the Super Bowl start?",  # a name
        "Who runs the Free Software Foundation helpdesk?",  # the kind of one named thing
        "Is this intended for professionals?",  # "this" as a pronoun
        "What is the reason?",  # a generic noun
        "How much is the fee?",  # an attribute of something else
    ],
)
def test_unique_named_or_generic_descriptions_are_not_asked_about(message: str) -> None:
    assert unanchored(message, CHAT) == []


def test_a_description_the_conversation_named_points_back() -> None:
    history = [
        Turn("user", "Tell me about Kobe Bryant."),
        Turn("assistant", "Kobe Bryant was an American basketball player."),
    ]
    assert unanchored("When was the famous basketball player born?", history) == []
    # the plural form said before is the same word; "animated" is not "animal"
    said = [Turn("user", "which counties are in California?")]
    assert unanchored("How wealthy is this county?", said) == []
    cartoon = [Turn("user", "is the animated film rated PG?")]
    assert [d.head for d in unanchored("Where does the animal live?", cartoon)] == ["animal"]


def test_the_run_stops_at_a_verb_taking_an_article_and_keeps_a_possessor() -> None:
    (d,) = descriptions("How did the fast food chain establish a significant presence?")
    assert d.text == "the fast food chain" and d.head == "chain"
    (b,) = descriptions("When was the famous basketball player born?")
    assert b.text == "the famous basketball player"
    (u,) = descriptions("Did the update action cause any issues?")
    assert u.text == "the update action"
    (o,) = descriptions("Does this chain operate in India?")
    assert o.text == "this chain"
    p, _ = descriptions("When does the patent license of the Apache License terminate?")
    assert p.text == "the patent license" and p.complement
    (p,) = descriptions("What is the actor's approach?")
    assert p.words == ("actor",)


PLAYERS = ["LeBron James", "Kobe Bryant", "Pete Maravich"]


def _hits(titles: list[str], kind: str = "basketball player") -> list[Hit]:
    return [
        Hit(make_chunk(str(i), f"{t} is a {kind}.", title=t), 0.5, i + 1, dense=0.5)
        for i, t in enumerate(titles)
    ]


def test_several_subjects_and_a_topic_the_conversation_never_spoke_of_ask_back() -> None:
    q = "When was the famous basketball player born?"
    got = clarify.ask_back(q, CHAT, Resolution(query=q), _hits(PLAYERS))
    assert got is not None
    text, options = got
    assert options == tuple(PLAYERS) and text.startswith("Which player?")
    # one subject on top: nothing to choose between
    assert clarify.ask_back(q, CHAT, Resolution(query=q), _hits(PLAYERS[:1])) is None
    # the resolver bound a referent to something said: the conversation picked it
    bound = Resolution(query=q, bindings={"he": "Kobe Bryant"})
    assert clarify.ask_back(q, CHAT, bound, _hits(PLAYERS)) is None
    # never twice in a row
    asked = [*CHAT, Turn("user", q), Turn("assistant", text)]
    assert clarify.ask_back(q, asked, Resolution(query=q), _hits(PLAYERS)) is None


def test_a_the_description_on_the_conversation_s_topic_points_back() -> None:
    """ "the player" in a conversation already on basketball points at the one spoken of,
    though no earlier turn used the word "player"; "this player" still needs one."""
    history = [
        Turn("user", "Which team won the NBA finals in 2016?"),
        Turn("assistant", "The Cleveland Cavaliers won the 2016 NBA finals."),
    ]
    q = "Which team did the player win the NBA finals with?"
    assert [d.text for d in unanchored(q, history)] == ["the player"]
    assert clarify.ask_back(q, history, Resolution(query=q), _hits(PLAYERS)) is None
    this = "Which team did this player win the NBA finals with?"
    assert clarify.ask_back(this, history, Resolution(query=this), _hits(PLAYERS)) is not None


def test_a_subject_an_earlier_turn_named_was_picked() -> None:
    q = "When was the famous basketball player born?"
    history = [Turn("user", "Did Pete Maravich play in Atlanta?"), Turn("assistant", "Yes.")]
    assert clarify.picked(q, history, _hits(PLAYERS))
    assert clarify.ask_back(q, history, Resolution(query=q), _hits(PLAYERS)) is None
    # the message's own topic words half-naming an off-kind subject are no pick
    hits = _hits(["Economy of India", "Chipotle Mexican Grill", "Jack in the Box"], "food chain")
    chain = "Does this fast food chain operate in India?"
    assert not clarify.picked(chain, [], hits, "this fast food chain")
    assert clarify.ask_back(chain, [], Resolution(query=chain), hits) is not None


def test_a_kind_the_titles_name_is_offered_by_document_not_by_section() -> None:
    """ "Which license?" over GPL-2 and GPL-3, both titled "GNU GENERAL PUBLIC LICENSE":
    the documents are the choice, not their "Preamble" sections."""
    hits = [
        Hit(
            make_chunk(str(i), "text", title="GNU GENERAL PUBLIC LICENSE", section=("Preamble",),
                       doc_id=f"licenses/{name}.txt"),
            0.5, i + 1, dense=0.5,
        )
        for i, name in enumerate(["GPL-3", "GPL-2"])
    ]  # fmt: skip
    by_section = [s.name for s in clarify.subjects(hits)]
    assert by_section == ["Preamble (GPL-3)", "Preamble (GPL-2)"]
    by_document = [s.name for s in clarify.subjects(hits, kind="the license")]
    assert by_document == [
        "GNU GENERAL PUBLIC LICENSE (GPL-3)",
        "GNU GENERAL PUBLIC LICENSE (GPL-2)",
    ]
    q = "What does the license say about patents?"
    got = clarify.ask_back(q, [], Resolution(query=q), hits)
    assert got is not None and got[1] == tuple(by_document)


def test_a_capitalised_word_of_the_description_names_the_subject_it_picks() -> None:
    """ "the BSD license": "BSD" names one of the licences; "this fast food chain" names
    none of the chains."""
    hits = _hits(["BSD", "MPL-2.0", "Apache-2.0"], "license")
    q = "What conditions does the BSD license set for redistribution?"
    assert [d.text for d in descriptions(q)] == ["the BSD license"]
    assert unanchored(q, []) == []  # a name's kind: "the BSD license" is one thing
    assert clarify.picked(q, [], hits, "the BSD license")
    assert clarify.ask_back(q, [], Resolution(query=q), hits) is None


def test_a_kind_only_one_subject_speaks_of_is_not_asked_about() -> None:
    """Top passages from several documents are not several things of the kind asked
    about: "the day pass" is the bike rental's, the cloud plans beside it have none."""
    hits = [
        Hit(make_chunk("0", "Day pass: 12 dollars, unlimited rides.", title="Bike rental"),
            0.5, 1, dense=0.5),
        Hit(make_chunk("1", "The Pro plan costs 299 dollars a month.", title="Cloud plans"),
            0.4, 2, dense=0.4),
        Hit(make_chunk("2", "Monthly pass: 25 dollars, rides of 45 minutes.", title="Bike rental"),
            0.3, 3, dense=0.3),
    ]  # fmt: skip
    q = "How much does the day pass cost?"
    assert [d.text for d in unanchored(q, [])] == ["the day pass"]
    assert clarify.ask_back(q, [], Resolution(query=q), hits) is None
    # and the one that does is no pass either: its passage lists passes, it is not one
    assert [s.name for s in clarify.subjects(hits, kind="the day pass")] == []
    assert [s.name for s in clarify.subjects(hits)] == ["Bike rental", "Cloud plans"]


def test_topics_that_speak_of_the_kind_are_no_things_of_the_kind() -> None:
    """One company's handbook: "Continuing Education" and "Referral Bonuses" both speak of
    "the company", and neither is a company to choose among (the Clef handbook trial asked
    "Which company?" on 5 of 96 answerable turns). Titles holding the kind, or passages
    saying the subject is one, still ask."""
    handbook = [
        Hit(make_chunk("0", "Every employee has a company budget for learning.",
                       title="Continuing Education"), 0.5, 1, dense=0.5),
        Hit(make_chunk("1", "The company pays a bonus for every hire you refer.",
                       title="Referral Bonuses"), 0.4, 2, dense=0.4),
    ]  # fmt: skip
    q = "Will the company pay for my travel?"
    assert [d.text for d in unanchored(q, [])] == ["the company"]
    assert clarify.subjects(handbook, kind="the company") == []
    assert clarify.ask_back(q, [], Resolution(query=q), handbook) is None
    counties = [
        Hit(make_chunk(str(i), "Median household income rose.", title=f"{name} County"),
            0.5, i + 1, dense=0.5)
        for i, name in enumerate(["Alameda", "Ventura"])
    ]  # fmt: skip
    c = "How wealthy is this county?"
    assert clarify.ask_back(c, [], Resolution(query=c), counties) is not None
    people = [
        Hit(make_chunk(str(i), f"The {year} season went well. {name} was an American "
                       "professional basketball player.", title=name), 0.5, i + 1, dense=0.5)
        for i, (name, year) in enumerate([("Kobe Bryant", 2008), ("Pete Maravich", 1977)])
    ]  # fmt: skip
    p = "When was the famous basketball player born?"
    assert clarify.ask_back(p, [], Resolution(query=p), people) is not None


def test_after_is_or_are_the_closing_word_is_a_verb_only_when_it_reads_as_one() -> None:
    assert [d.text for d in descriptions("Where are the docking stations?")] == [
        "the docking stations"
    ]
    assert [d.text for d in descriptions("When was the famous basketball player born?")] == [
        "the famous basketball player"
    ]
    assert [d.text for d in descriptions("When is the office closed?")] == ["the office"]


def test_a_description_that_is_a_subject_s_whole_title_picks_it() -> None:
    """ "the day pass" over documents titled "Day pass" and "Monthly pass": the message
    names its subject, however generic its words look."""
    hits = _hits(["Day pass", "Monthly pass"], "pass for the bikes")
    q = "how much is the day pass?"
    assert [d.text for d in unanchored(q, [])] == ["the day pass"]
    assert clarify.picked(q, [], hits, "the day pass")
    assert clarify.ask_back(q, [], Resolution(query=q), hits) is None


def _titled(titles: list[str]) -> list[Hit]:
    return [
        Hit(make_chunk(str(i), f"{t} text.", title=t), 0.5, i + 1, dense=0.5)
        for i, t in enumerate(titles)
    ]


MINISTERS = ["Prime Minister of Canada", "Prime Minister of the United Kingdom"]


def test_a_name_several_titles_hold_asks_which_of_them() -> None:
    """ "the Prime Minister" is a name `unanchored` leaves out, but the documents hold two
    things so called: it asks which, offering the titles; not when the conversation named
    one, or a title is called by the description alone."""
    q = "How has the role of the Prime Minister evolved over time?"
    assert unanchored(q, []) == []
    got = clarify.ask_back(q, [], Resolution(query=q), _titled([*MINISTERS, "Monarchy"]))
    assert got is not None
    assert got[1] == tuple(MINISTERS) and got[0].startswith("Which minister?")
    said = [Turn("user", "Tell me about Canada."), Turn("assistant", "Canada is a country.")]
    assert clarify.ask_back(q, said, Resolution(query=q), _titled(MINISTERS)) is None
    one = _titled(["Prime Minister", *MINISTERS])
    assert clarify.ask_back(q, [], Resolution(query=q), one) is None
    bound = Resolution(query=q, bindings={"it": "Prime Minister of Canada"})
    assert clarify.ask_back(q, [], bound, _titled(MINISTERS)) is None
    # a possessive's own noun is not in the titles: the name before it is asked about
    office = "What power does the Prime Minister's office hold?"
    got = clarify.ask_back(office, [], Resolution(query=office), _titled(MINISTERS))
    assert got is not None and got[1] == tuple(MINISTERS)


def test_a_qualified_description_asks_only_when_the_titles_hold_its_phrase() -> None:
    (d,) = descriptions("When did the season of Grey's Anatomy premiere?")
    assert d.complement and d.qualifier == ("grey", "anatomy")
    seasons = _titled(["Grey's Anatomy (season 9)", "Grey's Anatomy (season 14)"])
    q = "When did the season of Grey's Anatomy premiere?"
    got = clarify.ask_back(q, [], Resolution(query=q), seasons)
    assert got is not None and got[0].startswith("Which season?") and len(got[1]) == 2
    # the phrase picks one: the titles hold the kind, not the phrase
    policies = _titled(["Travel policy", "Leave policy"])
    p = "What does the policy on remote work say about equipment?"
    assert clarify.ask_back(p, [], Resolution(query=p), policies) is None
    # a message naming the season picks it
    nine = "When did the season 9 of Grey's Anatomy premiere?"
    assert clarify.ask_back(nine, [], Resolution(query=nine), seasons) is None


def test_a_name_held_by_topic_titles_is_not_asked_about() -> None:
    """ "History of the United States" and "Economy of the United States" hold "the United
    States" in their phrase: they are a history and an economy, no states to choose."""
    topics = _titled(["History of the United States", "Economy of the United States"])
    q = "What did the United States export in 1950?"
    assert clarify.ask_back(q, [], Resolution(query=q), topics) is None
