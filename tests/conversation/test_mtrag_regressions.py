"""Issue 7: resolver failures found on the MTRAG dev conversations, as generic rules
checked on hand-written histories (never on the dataset's own text)."""

from __future__ import annotations

import pytest

from tellmemore.conversation.binding import Salience, phrases
from tellmemore.conversation.compose import substitute_subject
from tellmemore.conversation.referents import find_referents
from tellmemore.conversation.resolvers import EmbeddedResolver, ResolveContext
from tellmemore.conversation.text import looks_plural

from .histories import A, U, corpus_stats


@pytest.mark.parametrize(
    "message",
    [
        "wow, that sounds great. maybe tell me more about the monthly pass",
        "well, that is ok... but why can't you answer such a simple question?",
        "well, that is ok...but why can't you answer such a simple question?",
        "So does that mean I should stick to the Lite plan?",
        "that seems expensive",
    ],
)
def test_that_commenting_on_the_answer_is_no_referent(message: str) -> None:
    assert not [r for r in find_referents(message) if r.text.lower().startswith("that")]


def test_that_naming_a_thing_is_still_a_referent() -> None:
    assert find_referents("does that plan cover weekends?")
    assert find_referents("well, how much does that cost?")


def test_a_substituted_subject_keeps_one_determiner() -> None:
    out = substitute_subject("What happens if I get a flat tyre?", "the deadline", Salience(None))
    assert out == "What happens if I get the deadline?"


def test_a_long_what_about_question_names_its_own_subject() -> None:
    history = [
        U("Could you tell me about the most important discoveries that Juno made at Jupiter?"),
        A("Juno found that Jupiter's core is diluted and its storms run deep."),
    ]
    message = "What about the major discoveries made by the spacecraft Galileo?"
    res = EmbeddedResolver().resolve(message, history, ResolveContext(term_stats=corpus_stats()))
    # searched as its subject: "what about" is conversation, read as words by the dense model
    assert res.query == "the major discoveries made by the spacecraft Galileo"
    assert not res.bindings


@pytest.mark.parametrize(
    "message",
    [
        "can you tell me more about the Europa Clipper mission?",  # more of the same: as typed
        "What if I lose the monthly pass on the Kestrel line?",  # a clause, not a subject
    ],
)
def test_only_a_switched_subject_drops_its_opener(message: str) -> None:
    history = [
        U("Could you tell me about the most important discoveries that Juno made at Jupiter?"),
        A("Juno found that Jupiter's core is diluted and its storms run deep."),
    ]
    res = EmbeddedResolver().resolve(message, history, ResolveContext(term_stats=corpus_stats()))
    assert res.query == message


def test_a_short_what_about_still_takes_the_previous_question() -> None:
    history = [U("What time do shops close on weekdays?"), A("Shops close at 18:00 on weekdays.")]
    res = EmbeddedResolver().resolve(
        "what about on holidays?", history, ResolveContext(term_stats=corpus_stats())
    )
    assert "shops close" in res.query.lower()


def test_what_about_a_whole_question_is_no_ellipsis() -> None:
    from tellmemore.conversation.referents import find_ellipsis

    assert find_ellipsis("what about why can't I apply a feature code?") is None
    assert find_ellipsis("what about the weekends?") is not None


def test_an_infinitive_is_no_antecedent() -> None:
    from tellmemore.conversation.binding import phrases

    texts = [p.text for p in phrases("Logs help. You want to gather, then restart.")]
    assert "gather" not in texts
    assert "Logs" in texts


def test_this_term_after_a_name_in_the_same_message_binds_nothing() -> None:
    history = [U("How do I recreate a custom domain?"), A("Delete the domain, then add it again.")]
    message = "I keep seeing the word Kubernetes, but I am not understanding this term"
    res = EmbeddedResolver().resolve(message, history, ResolveContext(term_stats=corpus_stats()))
    assert res.query == message
    assert not res.bindings


def test_a_one_whose_modifier_no_list_item_has_binds_no_item() -> None:
    """ "The regular one." after a list of plans none of which is regular: not "Basic"."""
    from .histories import PLANS_LIST

    res = EmbeddedResolver().resolve(
        "The regular one.", PLANS_LIST, ResolveContext(term_stats=corpus_stats())
    )
    assert not res.ambiguous
    assert all(p not in res.query.lower() for p in ("day pass", "monthly pass", "annual"))


def test_a_one_whose_modifier_names_an_item_still_binds_it() -> None:
    from .histories import PLANS_LIST

    res = EmbeddedResolver().resolve(
        "does the monthly one include e-bikes?",
        PLANS_LIST,
        ResolveContext(term_stats=corpus_stats()),
    )
    assert "monthly pass" in res.query.lower()


PINHOLE = [
    U("Can I watch a solar eclipse through a pinhole projector?"),
    A("Yes: a pinhole projector is a safe way to watch it."),
]


def test_a_bare_definite_naming_a_longer_user_phrase_is_resolved() -> None:
    from tellmemore.conversation.gate import gate

    message = "how can I make the projector?"
    assert gate(message, PINHOLE).reason == "definite: 'the projector'"
    res = EmbeddedResolver().resolve(message, PINHOLE, ResolveContext(term_stats=corpus_stats()))
    assert res.query == "how can I make the pinhole projector?"
    assert res.bindings == {"the projector": "pinhole projector"}


def test_a_possessive_definite_keeps_its_mark() -> None:
    history = [U("Tell me about the New England Patriots"), A("They play in Foxborough.")]
    res = EmbeddedResolver().resolve(
        "Who is the Patriot's coach?", history, ResolveContext(term_stats=corpus_stats())
    )
    assert res.query == "Who is the New England Patriots' coach?"


@pytest.mark.parametrize(
    "message",
    [
        "how can I make the query API faster?",  # "query" modifies API: not the head
        "where can I buy the batteries?",  # no longer phrase ends in "batteries"
    ],
)
def test_other_definites_stay_self_contained(message: str) -> None:
    from tellmemore.conversation.definites import find_definite

    assert find_definite(message, PINHOLE) is None


def test_only_the_users_turns_are_read_for_definites() -> None:
    from tellmemore.conversation.definites import find_definite

    history = [U("How do eclipses work?"), A("The pinhole projector shows the sun's disc.")]
    assert find_definite("how can I make the projector?", history) is None


@pytest.mark.parametrize(
    "message",
    [
        "should I cover the bins just in case it rains?",
        "does it snow in the mountains in April?",
        "It seems the city has invested a lot. How does that money help residents?",
        "It appears the office moved. Where is the new address?",
        "Of course I knew it!  just teasing, sorry.  How to script a sprite?",
        # the time "it" says (the demo: "what if it's a weekend?" bound "escalation hotline")
        "what if it's a weekend?",
        "and if it is Sunday?",
        "what if it was late at night?",
    ],
)
def test_a_dummy_it_is_no_referent(message: str) -> None:
    assert not [r for r in find_referents(message) if r.text.lower() == "it"]


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("what credits do i get if its missed?", "pronoun"),  # "it's" typed without "'"
        ("its free?", "pronoun"),
        ("is its limited edition available?", "possessive"),
        ("what is its price?", "possessive"),
    ],
)
def test_its_before_a_participle_is_it_is(message: str, kind: str) -> None:
    assert [(r.text, r.kind.value) for r in find_referents(message)] == [("its", kind)]


def test_its_typed_for_it_is_reads_as_it_is_in_the_query() -> None:
    history = [U("what's the SLA for Cloud Connect Pro?"), A("Pro commits to 99.9%. [1]")]
    res = EmbeddedResolver().resolve(
        "what credits do i get if its missed?", history, ResolveContext(term_stats=corpus_stats())
    )
    assert res.query.endswith(" is missed?")
    assert "'s missed" not in res.query


def test_knew_it_before_more_words_still_points_back() -> None:
    assert [r.text for r in find_referents("I knew it had a free tier, how big is it?")] == [
        "it",
        "it",
    ]


def test_it_seems_to_still_points_back() -> None:
    assert [r.text for r in find_referents("it seems to crash at startup")] == ["it"]


@pytest.mark.parametrize(
    "message",
    [
        "tell me more about the Office of the State Attorney General itself",
        "can the members protect themselves?",
    ],
)
def test_a_reflexive_is_no_referent(message: str) -> None:
    assert not [r for r in find_referents(message) if r.text.lower().endswith("self")]
    assert not [r for r in find_referents(message) if r.text.lower().endswith("selves")]


def test_does_it_protect_itself_binds_the_subject_once() -> None:
    history = [U("What is the new firewall?"), A("The new firewall filters traffic.")]
    res = EmbeddedResolver().resolve(
        "does it protect itself?", history, ResolveContext(term_stats=corpus_stats())
    )
    assert list(res.bindings) == ["it"]
    assert res.query.lower().count("firewall") == 1


@pytest.mark.parametrize("opening", ["Apart", "Besides", "Aside"])
def test_a_sentence_opening_adverb_is_no_antecedent(opening: str) -> None:
    found = [p.text for p in phrases(f"{opening} from gravity, what holds the galaxy together?")]
    assert opening not in found
    assert "gravity" in found


def test_an_adjective_used_as_a_noun_is_an_antecedent() -> None:
    assert [p.text for p in phrases("What about the homeless?")] == ["homeless"]
    assert [p.text for p in phrases("and the elderly.")] == ["elderly"]
    assert not phrases("Do the following: sign in.")[0].text.startswith("following")
    history = [
        U("Is there rent relief for families who lost their jobs?"),
        A("Yes. The Rental Assistance Program covers three months of rent for those families."),
        U("What about the homeless?"),
        A("The Emergency Shelter Program funds shelter beds and street outreach."),
    ]
    res = EmbeddedResolver().resolve(
        "Do they get priority for vouchers?", history, ResolveContext(term_stats=corpus_stats())
    )
    assert res.bindings == {"they": "homeless"}
    assert res.query == "Do the homeless get priority for vouchers?"


def test_a_past_participle_ends_the_noun_phrase() -> None:
    texts = [p.text for p in phrases("The Rental Housing Act enacted in 1995 limits rent.")]
    assert texts[0] == "Rental Housing Act"
    assert [p.text for p in phrases("where are these states located?")] == ["states"]
    assert [p.text for p in phrases("a licensed contractor")] == ["licensed contractor"]
    assert [p.text for p in phrases("two hundred")] == ["two hundred"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("How does version 6.15.0 differ from 6.14.0?", ["version 6.15.0", "6.14.0"]),
        ("How do cyclones form on Jupiter?", ["cyclones", "Jupiter"]),
        ("Did the Apollo 11 mission land?", ["Apollo 11 mission"]),
        # the subject already ended at its verb: nothing to trim
        ("Does the Basic plan include escalation?", ["Basic plan", "escalation"]),
        ("Does the rental bike have brakes?", ["rental bike", "brakes"]),
        ("how do I renew my boating safety certificate", ["boating safety certificate"]),
        # a modal takes a bare verb too (clapnq: "How about transplant?" after "Will
        # sickle cell kill me?" made "Will transplant me?")
        ("Will sickle cell kill me?", ["sickle cell"]),
        ("Can women play soccer?", ["women", "soccer"]),
        ("Should cloud storage be encrypted?", ["cloud storage"]),
    ],
)
def test_the_bare_verb_after_a_do_support_subject_ends_it(text: str, expected: list[str]) -> None:
    """cloud: "How does version 6.15.0 differ?" made "How do I use version 6.15.0 differ?"."""
    assert [p.text for p in phrases(text)] == expected


def test_a_subordinating_conjunction_is_no_part_of_a_phrase() -> None:
    """cloud: "which one protects more?" compared "Static secret or while static secrets"."""
    text = "Dynamic secrets expire after use, while static secrets stay valid until rotated."
    starts = [p.text.split()[0].lower() for p in phrases(text)]
    assert "while" not in starts
    for word in ("because", "although", "whereas", "unless"):
        assert all(word not in p.stems for p in phrases(f"It fails {word} the admin key expired."))


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (
            "sorry I meant the admin password",
            "how do I reset the admin password in the mobile app?",
        ),
        (
            "I meant the desktop client, rather.",
            "how do I reset my password in the desktop client?",
        ),
    ],
)
def test_a_repair_asks_the_previous_question_again(message: str, expected: str) -> None:
    history = [
        U("how do I reset my password in the mobile app?"),
        A("Open Settings > Account > Reset password in the mobile app."),
    ]
    res = EmbeddedResolver().resolve(message, history, ResolveContext(term_stats=corpus_stats()))
    assert res.query == expected
    assert list(res.bindings.values()) == ["how do I reset my password in the mobile app?"]


def test_a_repair_that_is_a_whole_question_stands_alone() -> None:
    history = [U("how do I reset my password?"), A("Open Settings > Account > Reset password.")]
    message = "no, I meant which plan is cheapest?"
    res = EmbeddedResolver().resolve(message, history, ResolveContext(term_stats=corpus_stats()))
    assert res.query == message
    assert not res.bindings


def test_a_request_verb_is_no_part_of_a_phrase() -> None:
    assert phrases("Name two spacecraft that went to Jupiter.")[0].text == "two spacecraft"
    assert "List" not in [p.text for p in phrases("List the benefits of the Lite plan.")]
    assert [p.text for p in phrases("Please list the steps.")] == ["steps"]
    assert [p.text for p in phrases("Name servers are slow")] == ["Name servers"]


_ASKS_WHICH = (
    "The steps differ for a Standard Storage Bucket and an Archive Storage Bucket. If you "
    "tell me which type of bucket you mean, I can give you the steps. [1]"
)
_BUCKETS = [U("How do I create a bucket?"), A(_ASKS_WHICH)]


@pytest.mark.parametrize(
    ("reply", "chosen"),
    [
        ("The regular one.", "regular Storage Bucket"),  # names neither: that kind of bucket
        ("archive", "Archive Storage Bucket"),  # names one of them
    ],
)
def test_a_reply_to_an_answer_asking_which_qualifies_the_question_asked(reply, chosen) -> None:
    res = EmbeddedResolver().resolve(reply, _BUCKETS, ResolveContext())
    assert res.query == f"How do I create a bucket ({chosen})?"
    assert res.bindings == {reply.strip(" ."): chosen}


def test_an_answer_that_asks_nothing_offers_no_choice() -> None:
    """ "which" opening a relative clause asks the user nothing."""
    told = (
        "A Standard Storage Bucket, which suits hot data, costs more than an Archive Storage "
        "Bucket. [1]"
    )
    history = [U("How do I create a bucket?"), A(told)]
    res = EmbeddedResolver().resolve("The regular one.", history, ResolveContext())
    assert "How do I create" not in res.query


def test_excuse_me_is_a_formula_not_an_antecedent() -> None:
    assert [p.text for p in phrases("Excuse me, I meant the Carthage install.")] == [
        "Carthage install"
    ]


@pytest.mark.parametrize(
    "message",
    ["What are the instructions to do it using Carthage?", "can I do that with the CLI?"],
)
def test_do_it_followed_by_how_is_the_action_not_a_thing(message: str) -> None:
    assert not find_referents(message)


def test_it_after_do_as_a_main_verb_object_is_still_a_referent() -> None:
    assert find_referents("does it do backups?")
    assert find_referents("how often do they do it for the Pro plan?")


def test_a_typo_in_an_earlier_user_turn_is_fixed_before_it_is_bound() -> None:
    """ "climage" is the rarest word of the conversation (no document has it): unfixed, it
    wins the salience of the history, and the binding shows the typo."""
    docs = [f"Renew your passport at the office, form {i}." for i in range(4)]
    other = [f"Parking permits and fishing licences, page {i}." for i in range(30)]
    ctx = ResolveContext(term_stats=corpus_stats([*docs, *other]))
    history = [U("how do I renew my pasport?"), A("You can renew a passport online. [1]")]
    res = EmbeddedResolver().resolve("how much does it cost?", history, ctx)
    assert res.bindings.get("it", "").lower() == "passport"


def test_a_plural_fragment_drops_the_article_of_what_it_replaces() -> None:
    base = "do I need a license?"
    assert substitute_subject(base, "permits", Salience(corpus_stats())) == "do I need permits?"
    assert substitute_subject(base, "permit", Salience(corpus_stats())) == "do I need a permit?"


@pytest.mark.parametrize(
    ("base", "fragment", "query"),
    [
        # a group of people stands in for the asker, not for the thing asked about
        ("do I need a license?", "kids", "do kids need a license?"),
        (
            "how many days of annual leave do I get?",
            "contractors",
            "how many days of annual leave do contractors get?",
        ),
        ("Can we use the API?", "part-time employees", "Can part-time employees use the API?"),
        (
            "am I eligible for parental leave?",
            "contractors",
            "are contractors eligible for parental leave?",
        ),
        # routers are no people
        ("how do I reset my password?", "the routers", "how do I reset the routers?"),
    ],
)
def test_people_replace_the_asker(base: str, fragment: str, query: str) -> None:
    assert substitute_subject(base, fragment, Salience(corpus_stats())) == query


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # "leave" is a verb too: after an adjective it is the phrase's noun
        ("how many days of annual leave do I get?", ["annual leave"]),
        ("Secondary caregivers receive 6 weeks of paid parental leave.", ["parental leave"]),
        # a do-question's bare verb and a verb before its object stay verbs
        ("does the annual plan include escalation?", ["annual plan", "escalation"]),
        ("the additional staff leave the office", ["additional staff", "office"]),
    ],
)
def test_a_verb_form_after_an_adjective_is_the_noun_of_its_phrase(
    text: str, expected: list[str]
) -> None:
    assert [p.text for p in phrases(text)][-len(expected) :] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Is a dynamic secret better than a static secret?", ["dynamic secret", "static secret"]),
        ("Is the Pro plan cheaper than Starter?", ["Pro plan", "Starter"]),
        ("Which one protects more from vulnerabilities?", ["vulnerabilities"]),
    ],
)
def test_a_comparative_or_a_verb_after_which_one_is_no_noun(text: str, expected: list[str]) -> None:
    assert [p.text for p in phrases(text)] == expected


def test_the_noun_after_more_is_kept_before_than() -> None:
    found = [p.text for p in phrases("Why do some states report more West Nile cases than others?")]
    assert "West Nile cases" in found


SECRETS = [
    U("Is a dynamic secret better than a static secret?"),
    A("Dynamic secrets expire after use; static secrets last until someone rotates them."),
    U("Which one protects more from vulnerabilities?"),
    A("Dynamic secrets protect more, because a leaked one soon expires."),
]


@pytest.mark.parametrize(
    "message", ["Do they both rotate secrets?", "can I use them both in one app?"]
)
def test_they_both_is_the_pair_just_compared(message: str) -> None:
    res = EmbeddedResolver().resolve(message, SECRETS, ResolveContext(term_stats=corpus_stats()))
    (bound,) = res.bindings.values()
    assert bound == "dynamic secret and static secret"
    assert "dynamic secret and static secret both" in res.query


def test_an_acronym_ending_in_s_is_singular() -> None:
    """clapnq: "Can women play it?" after "what is it called outside the USA?" (it = MLS)
    bound "USA": the chained "MLS" read as a plural and lost to it."""
    history = [
        U("what is the MLS?"),
        A("MLS is the top professional soccer league of the United States."),
        U("What is it called outside of the USA?"),
        A("In most parts of the world it is called football."),
    ]
    res = EmbeddedResolver().resolve(
        "Can women play it?", history, ResolveContext(term_stats=corpus_stats())
    )
    assert res.bindings == {"it": "MLS"}
    assert looks_plural("VMs")
    assert not looks_plural("GPS")


def test_a_superlative_adjective_is_no_antecedent() -> None:
    """clapnq: "Where does it originate from?" after "Which is the most popular?" bound
    "popular"."""
    assert [p.text for p in phrases("Which is the most popular?")] == []
    assert [p.text for p in phrases("Which is the least expensive plan?")] == ["expensive plan"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Are the Lite pricing plans available with all account types?",
            ["Lite pricing plans", "account types"],
        ),
        ("Name the sources of light pollution that affect skywatching.",
         ["sources", "light pollution", "skywatching"]),
        ("does the pass cover parking", ["pass", "parking"]),
        ("the bike keeps working", ["bike"]),  # the action itself, no thing
    ],
)  # fmt: skip
def test_a_predicate_adjective_is_cut_and_a_gerund_object_kept(
    text: str, expected: list[str]
) -> None:
    """cloud: "What is an account?" carried "(Lite pricing plans available)"; govt: "free
    viewing" never saw "skywatching", the object of "affect"."""
    assert [p.text for p in phrases(text)] == expected


WEST_NILE = [
    U("Why do some states report more West Nile cases than others?"),
    A("Reporting differs by state; warm regions with more mosquitoes see more cases."),
    U("when was the first time West Nile was discovered?"),
    A("I could not find that in the documents."),
]


@pytest.mark.parametrize(
    "message",
    ["why can't you answer such a simple question?", "why don't you provide that?"],
)
def test_a_complaint_of_no_answer_asks_the_previous_question_again(message: str) -> None:
    from tellmemore.conversation.gate import gate
    from tellmemore.conversation.phrasings import search_phrasings

    assert gate(message, WEST_NILE).needs_resolution
    res = EmbeddedResolver().resolve(message, WEST_NILE, ResolveContext(term_stats=corpus_stats()))
    assert res.query == "when was the first time West Nile was discovered?"
    assert list(res.bindings.values()) == [res.query]
    # the complaint as typed would find any page that says "answer" or "provide"
    assert search_phrasings(message, res, WEST_NILE).queries[:1] == (res.query,)
    assert message not in search_phrasings(message, res, WEST_NILE).queries


def test_a_repair_by_an_adverb_qualifies_the_previous_question() -> None:
    """govt: "I mean historically." made "when was the historically discovered?"."""
    res = EmbeddedResolver().resolve(
        "I mean historically.", WEST_NILE, ResolveContext(term_stats=corpus_stats())
    )
    assert "West Nile" in res.query
    assert res.query.rstrip("?. ").endswith("historically")


def test_a_complaint_about_that_is_still_a_complaint_and_no_previous_question() -> None:
    history = [
        U("By the way, how do I escalate on Cloud Connect?"),
        A("I could not find that in the documents."),
    ]
    ctx = ResolveContext(term_stats=corpus_stats())
    res = EmbeddedResolver().resolve("why can't you answer that?", history, ctx)
    assert res.query == "how do I escalate on Cloud Connect?"  # not "answer the ..."
    history += [U("why can't you answer that?"), A("Open the ticket and choose Escalate.")]
    res = EmbeddedResolver().resolve("what about the Enterprise tier?", history, ctx)
    assert "escalate" in res.query
    assert "answer" not in res.query and "By the way" not in res.query


def test_how_about_swaps_the_subject_of_a_modal_question() -> None:
    """clapnq: "How about transplant?" after "Will it kill me?" (it = sickle cell)."""
    history = [
        U("How is sickle cell treated?"),
        A("Treatment includes hydroxyurea, transfusions and sometimes a bone marrow transplant."),
        U("Will it kill me?"),
        A("Life expectancy with sickle cell disease is 40 to 60 years in the developed world."),
    ]
    res = EmbeddedResolver().resolve(
        "How about transplant?", history, ResolveContext(term_stats=corpus_stats())
    )
    assert res.query == "Will transplant kill me?"


def test_a_time_after_it_is_keeps_a_real_it() -> None:
    assert [r.text for r in find_referents("is it a weekend service?")] == ["it"]
    assert [r.text for r in find_referents("does it cover the weekend?")] == ["it"]
