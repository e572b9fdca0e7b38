"""The phrasings a turn searches (issue 7): the resolved query, the message as typed, and a
lower-weight history phrasing on follow-ups; the evaluation searches exactly the same."""

from __future__ import annotations

from tellmemore.conversation import constants as C
from tellmemore.conversation.phrasings import search_phrasings
from tellmemore.conversation.resolvers import EmbeddedResolver, ResolveContext
from tellmemore.eval.datasets import EvalTurn
from tellmemore.eval.strategies import build_strategies
from tellmemore.types import Resolution, Turn

from .histories import CLOUD_CONNECT_LONG, SHOPS, A, U, corpus_stats


def test_a_first_turn_searches_the_message_alone() -> None:
    p = search_phrasings("What time do shops close?", Resolution(query="What time do shops close?"))
    assert p.queries == ("What time do shops close?",)
    assert p.weights == (1.0,)


def test_a_follow_up_adds_the_history_phrasing_at_a_lower_weight() -> None:
    message = "and on holidays?"
    res = Resolution(query="What time do shops close on holidays?")
    p = search_phrasings(message, res, SHOPS, corpus_stats())
    assert p.queries[:2] == (res.query, message)
    assert p.weights[:2] == (1.0, C.MESSAGE_WEIGHT)
    assert len(p.queries) == 3
    extra = p.queries[2]
    assert extra.startswith(message)
    assert "shops" in extra.lower()  # the subject of the user's earlier turn
    # context only: a match for the earlier turns is no evidence for abstention
    assert p.context == (extra,)
    assert p.evidence() == (res.query, message)
    assert p.weights[2] == C.HISTORY_PHRASING_WEIGHT < 1.0


def test_a_self_contained_follow_up_keeps_its_query_and_gains_the_history_phrasing() -> None:
    message = "how do I open a ticket?"
    p = search_phrasings(message, Resolution(query=message), CLOUD_CONNECT_LONG, corpus_stats())
    assert p.queries[0] == message
    assert len(p.queries) == 2
    assert "cloud connect" in p.queries[1].lower()


def test_a_what_about_naming_its_own_subject_leaves_the_history_out() -> None:
    """The resolver searches "what about <a whole subject>" as that subject (a switch), so the
    history (the topic left behind) is not searched; a short "what about" still gets it."""
    message = "What about the escalation rules of the Status Page product?"
    p = search_phrasings(message, Resolution(query=message), CLOUD_CONNECT_LONG, corpus_stats())
    assert p.queries == (message,)
    fragment = "the escalation rules of the Status Page product"
    assert search_phrasings(
        message, Resolution(query=fragment), CLOUD_CONNECT_LONG, corpus_stats()
    ).queries == (fragment,)  # the opener is not searched back in as typed
    short = "what about Status Page?"
    res = Resolution(query="how do I open a Status Page ticket?", bindings={"what about": "x"})
    got = search_phrasings(short, res, CLOUD_CONNECT_LONG, corpus_stats())
    assert len(got.queries) == 4  # resolved, as typed, history, and (bound) the last reply


def test_asking_back_searches_nothing() -> None:
    res = Resolution(query="x", ambiguous=True, clarification="Do you mean A or B?")
    assert search_phrasings("does that one?", res, SHOPS).queries == ()


def test_the_eval_strategy_searches_what_a_turn_searches() -> None:
    """turn.py and `tellmemore eval` share `search_phrasings`: same texts, same weights."""
    (embedded,), _ = build_strategies(["embedded"])
    ctx = ResolveContext(term_stats=corpus_stats())
    history = [*SHOPS, U("and on Saturdays?")]
    res = Resolution(query="What time do shops close on Sundays?")
    assert embedded.phrasings(res, "and on Sundays?", history, ctx) == search_phrasings(
        "and on Sundays?", res, history, ctx.term_stats, window=ctx.window
    )


def test_a_resolved_follow_up_also_searches_the_conversations_wording_at_a_low_weight() -> None:
    """The embedded resolver's turn adds the last two user turns and the message (concat's
    text) as context: a wrong binding ("Are weakly acidic properties poisonous?") still
    finds the subject the user named ("alkaloids")."""
    history = [
        U("What are alkaloids?"),
        A("Alkaloids are nitrogen compounds with weakly acidic properties."),
        U("How are they used in medicine?"),
        A("Many alkaloids are drugs."),
    ]
    message = "Are they poisonous?"
    res = Resolution(query="Are weakly acidic properties poisonous?", resolver="embedded")
    p = search_phrasings(message, res, history, corpus_stats())
    said = "What are alkaloids?\nHow are they used in medicine?\nAre they poisonous?"
    assert p.queries[-1] == said
    assert p.weights[-1] == C.CONTEXT_QUERY_WEIGHT < 1.0
    assert said in p.context and said not in p.evidence()  # no evidence for abstention
    assert p.evidence() == (res.query, message)
    # only the last CONTEXT_USER_TURNS user turns
    longer = [U("Tell me about plants."), A("Plants make alkaloids."), *history]
    assert search_phrasings(message, res, longer, corpus_stats()).queries[-1] == said


def test_the_context_phrasing_only_follows_the_embedded_resolver() -> None:
    """A message the gate read as self-contained ("none") keeps its phrasings (held-out
    MTRAG lost with the history there); concat searches this text already; a first turn
    has no history; weight 0 switches it off."""
    message = "and on holidays?"
    said = f"{SHOPS[0].content}\n{message}"
    for resolver in ("none", "concat", "raw"):
        res = Resolution(query="What time do shops close on holidays?", resolver=resolver)
        assert said not in search_phrasings(message, res, SHOPS, corpus_stats()).queries
    res = Resolution(query="What time do shops close on holidays?", resolver="embedded")
    assert said in search_phrasings(message, res, SHOPS, corpus_stats()).queries
    first = Resolution(query="What time do shops close?", resolver="embedded")
    assert search_phrasings("What time do shops close?", first).queries == (first.query,)
    kept = C.CONTEXT_QUERY_WEIGHT
    try:
        C.CONTEXT_QUERY_WEIGHT = 0.0
        assert said not in search_phrasings(message, res, SHOPS, corpus_stats()).queries
    finally:
        C.CONTEXT_QUERY_WEIGHT = kept


def test_the_concat_baseline_searches_what_it_searched_before() -> None:
    """The eval's concat strategy searches the same phrasings with the context phrasing on
    as with it off: the baseline the resolver is compared with does not move."""
    (concat,), _ = build_strategies(["concat"])
    ctx = ResolveContext(term_stats=corpus_stats())
    turn = EvalTurn("t<::>2", "t", 2, tuple(SHOPS), "and on holidays?", "", (), 1)
    res = concat.resolve(turn, ctx)
    on = concat.phrasings(res, turn.message, turn.history, ctx)
    kept = C.CONTEXT_QUERY_WEIGHT
    try:
        C.CONTEXT_QUERY_WEIGHT = 0.0
        off = concat.phrasings(res, turn.message, turn.history, ctx)
    finally:
        C.CONTEXT_QUERY_WEIGHT = kept
    assert on == off
    assert on.queries[0] == res.query == "What time do shops close on weekdays?\nand on holidays?"


def test_a_bound_follow_up_also_searches_the_start_of_the_last_reply() -> None:
    """When the resolver bound a referent, the message with the start of the last reply
    (where the referent's subject was last spoken of) is searched as context: it steers
    the ranking, binds nothing and is no evidence for abstention. Citation markers go, the
    reply is cut at REPLY_PHRASING_WORDS words."""
    history = [
        U("Which passes do the city bikes have?"),
        A("The monthly pass [1] gives unlimited 30-minute rides " + "on every bike " * 40),
    ]
    message = "how much is it?"
    res = Resolution(
        query="how much is the monthly pass?",
        resolver="embedded",
        bindings={"it": "the monthly pass"},
    )
    p = search_phrasings(message, res, history, corpus_stats())
    reply = [q for q in p.queries if q.startswith(message + "\n")]
    assert len(reply) == 1
    assert reply[0].startswith(f"{message}\nThe monthly pass gives unlimited")
    assert "[1]" not in reply[0]
    assert len(reply[0].split("\n", 1)[1].split()) == C.REPLY_PHRASING_WORDS
    assert p.weights[p.queries.index(reply[0])] == C.REPLY_PHRASING_WEIGHT < 1.0
    assert reply[0] in p.context and reply[0] not in p.evidence()


def test_an_unbound_follow_up_does_not_search_the_last_reply() -> None:
    """A message nothing in it was bound for may be leaving the topic: the reply, the topic
    it leaves, would pull it back (held-out govt lost 0.010-0.024 that way). Weight 0 is
    off; a history without a reply gives nothing."""
    message = "what is a safe room?"
    reply = SHOPS[1].content
    unbound = Resolution(query=message, resolver="embedded")
    assert not any(reply in q for q in search_phrasings(message, unbound, SHOPS).queries)
    bound = Resolution(query="q", resolver="embedded", bindings={"it": "shops"})
    assert any(reply in q for q in search_phrasings(message, bound, SHOPS).queries)
    assert not any(reply in q for q in search_phrasings(message, bound, SHOPS[:1]).queries)
    kept = C.REPLY_PHRASING_WEIGHT
    try:
        C.REPLY_PHRASING_WEIGHT = 0.0
        assert not any(reply in q for q in search_phrasings(message, bound, SHOPS).queries)
    finally:
        C.REPLY_PHRASING_WEIGHT = kept


def test_an_answer_edit_or_small_talk_lends_no_words_to_later_turns() -> None:
    """ "make that shorter" and "thanks!" ask the documents nothing: "tell me more" after
    them was searched and shown as "tell me more (shorter, plans)"."""
    history = [
        U("what plans does Cloud Connect have?"),
        A("Cloud Connect is sold in three plans: Starter, Pro and Enterprise."),
        U("make that shorter"),
        A("Three plans: Starter, Pro and Enterprise."),
        U("thanks!"),
        A("You're welcome!"),
    ]
    res = resolve_embedded("tell me more", history)
    assert "plans" in res.query.lower()
    shown = " ".join([res.query, *res.bindings, *res.bindings.values()]).lower()
    assert "shorter" not in shown and "thanks" not in shown
    p = search_phrasings("tell me more", res, history, corpus_stats())
    searched = " ".join(p.queries).lower()
    assert "shorter" not in searched and "thanks" not in searched
    assert "what plans does cloud connect have?" in searched  # the subject still is


def resolve_embedded(message: str, history: list[Turn]) -> Resolution:
    return EmbeddedResolver().resolve(message, history, ResolveContext(term_stats=corpus_stats()))
