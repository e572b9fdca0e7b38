"""Properties of decide, gate and the embedded resolver on arbitrary strings: never an
exception, antecedents come from the history, codes/numbers/dates of the message reach
the query."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tellmemore.conversation.decide import decide
from tellmemore.conversation.gate import gate
from tellmemore.conversation.resolvers import EmbeddedResolver, ResolveContext
from tellmemore.conversation.text import protected_tokens, stem, tokenize, words
from tellmemore.types import Turn

from .histories import CLOUD_CONNECT, CLOUD_CONNECT_CHOSEN, PLANS_LIST, SHOPS, corpus_stats

WORDS = [
    "it", "that", "one", "the", "second", "other", "and", "on", "what", "about", "same",
    "question", "for", "Frankfurt", "Enterprise", "weekends", "ERR-4021", "2026-05-01",
    "1011", "May", "v6.15.0", "?", ",", "!", "tell", "me", "more", "they", "those", "his",
    "which", "former", "thanks", "shorter", "\x00", "\u202e", "🙂", "ﬁ", "İ", "\n",
]  # fmt: skip
text_like = st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join)
any_text = st.one_of(st.text(max_size=300), text_like)
turns = st.lists(
    st.builds(Turn, role=st.sampled_from(["user", "assistant"]), content=any_text), max_size=6
)
histories = st.one_of(
    turns, st.sampled_from([CLOUD_CONNECT, CLOUD_CONNECT_CHOSEN, SHOPS, PLANS_LIST])
)
RESOLVER = EmbeddedResolver()
STATS = corpus_stats()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(message=any_text, history=histories, with_stats=st.booleans())
def test_never_raises_and_keeps_the_contract(
    message: str, history: list[Turn], with_stats: bool
) -> None:
    decide(message, history)
    gate(message, history, STATS if with_stats else None)
    ctx = ResolveContext(term_stats=STATS if with_stats else None)
    res = RESOLVER.resolve(message, history, ctx)
    assert res.degraded is None, res.degraded
    have = {t.text for t in tokenize(res.query)}
    for token in protected_tokens(message):
        assert token in have, (token, res.query)
    said = {stem(w) for t in history for w in words(t.content)}
    for referent, antecedent in res.bindings.items():
        # every word of an antecedent comes from the conversation (a list label such as
        # "Standard escalation" joins a qualifier and its subject from one sentence)
        assert {stem(w) for w in words(antecedent)} - {"or"} <= said, (referent, antecedent)
    if res.ambiguous:
        assert res.clarification and len(res.candidates) >= 2


def test_huge_and_hostile_messages() -> None:
    ctx = ResolveContext(term_stats=STATS)
    for message in ("x" * 100_000, "it " * 30_000, "🙂" * 5000, "\x00\x01\x02 it?", ""):
        res = RESOLVER.resolve(message, CLOUD_CONNECT_CHOSEN, ctx)
        assert res.degraded is None
        assert decide(message, CLOUD_CONNECT).decision is not None
        gate(message, CLOUD_CONNECT, STATS)
