"""Answer edits without an LLM: "make that shorter" is always shorter and keeps its
sources; "tell me more" quotes nothing the conversation has shown."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tellmemore.answer.edits import asks_for_more, shorter, shown_sentences, was_shown
from tellmemore.types import Turn

_MARKERS = re.compile(r"\[(\d+)\]")


def test_shorter_keeps_the_best_sentences_for_the_question_with_their_markers() -> None:
    answer = (
        "Employees get 20 days of vacation a year. [1] Unused days carry over. [1] "
        "Sick leave is not counted in days; we don't offer a bank of sick days. [2]"
    )
    short = shorter(answer, "how many sick days do I get?")
    assert len(short) < len(answer)
    assert "bank of sick days. [2]" in short
    assert set(_MARKERS.findall(short)) <= set(_MARKERS.findall(answer))


def test_a_one_sentence_answer_loses_its_aside_then_its_other_clauses() -> None:
    one = "Parental leave is 16 weeks at full pay (see the benefits portal for forms). [1]"
    short = shorter(one, "how much parental leave do we get?")
    assert short == "Parental leave is 16 weeks at full pay. [1]"
    clauses = "Parental leave is 16 weeks at full pay, and it can be split into two blocks. [1]"
    short = shorter(clauses, "how much parental leave do we get?")
    assert len(short) < len(clauses) and "16 weeks" in short and short.endswith("[1]")


def test_a_grouped_answer_is_shortened_to_its_best_quote_without_the_labels() -> None:
    answer = (
        "Parental leave:\nParental leave is 16 weeks at full pay. [1]\n"
        "Medical insurance:\nThe plan pays 100% of in-network care. [2] "
        "Out-of-network care is paid at 75%. [2]"
    )
    short = shorter(answer, "how much parental leave do we get?")
    assert "16 weeks" in short and "[1]" in short
    assert "Parental leave:" not in short and len(short) < len(answer)


_SENTENCE = st.builds(
    lambda words, n: " ".join(words).capitalize() + f". [{n}]",
    st.lists(
        st.sampled_from("leave days pay weeks plan the a sick cap of 20 at full".split()),  # noqa: SIM905
        min_size=2,
        max_size=14,
    ),
    st.integers(1, 3),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_SENTENCE, min_size=1, max_size=5), st.sampled_from(["how much leave?", ""]))
def test_shorter_is_shorter_in_every_case(sentences: list[str], question: str) -> None:
    """Any answer of two words or more (one word is as short as it gets)."""
    answer = " ".join(sentences)
    short = shorter(answer, question)
    assert short.strip()
    assert len(short) < len(answer)
    assert set(_MARKERS.findall(short)) <= set(_MARKERS.findall(answer))


@pytest.mark.parametrize(
    ("message", "more"),
    [
        ("tell me more", True),
        ("Tell me more about that.", True),
        ("ok, what else?", True),
        ("more details please", True),
        ("go on", True),
        ("can you elaborate?", True),
        ("how much more does Pro cost?", False),
        ("is there more than one plan?", False),
        ("what is the refund policy?", False),
    ],
)
def test_asks_for_more(message: str, more: bool) -> None:
    assert asks_for_more(message) is more


QUESTIONS = [
    "what does the Pro plan cost?",
    "how do I connect my first two sites?",
    "what happens if I return a bike late?",
    "when is the shop open on Sunday?",
    "what firmware do the routers need?",
    "how fast do you respond to a Sev 1 incident?",
    "what is the uptime commitment for Enterprise?",
    "how do I escalate a ticket?",
]


def test_make_that_shorter_is_shorter_with_the_same_sources(sample_assistant) -> None:  # type: ignore[no-untyped-def]
    for question in QUESTIONS:
        chat = sample_assistant.session()
        first = chat.ask(question)
        if first.abstained:
            continue
        short = chat.ask("make that shorter")
        assert len(short.answer) < len(first.answer), (question, first.answer, short.answer)
        assert {c.id for c in short.citations} <= {c.id for c in first.citations}
        shorter_still = chat.ask("make that shorter")
        assert len(shorter_still.answer) < len(short.answer), (question, short.answer)


def _quoted(answer: str) -> list[str]:
    lines = [re.sub(r"^(?:[-*]|\d+\.)\s+", "", line) for line in answer.splitlines()]
    parts = [p.strip() for line in lines for p in re.split(r"\s*\[\d+\]\s*", line)]
    return [p for p in parts if p and not p.endswith(":")]


def test_tell_me_more_repeats_no_sentence_already_shown(sample_assistant) -> None:  # type: ignore[no-untyped-def]
    for question in QUESTIONS:
        chat = sample_assistant.session()
        shown = _quoted(chat.ask(question).answer)
        for _ in range(2):
            more = chat.ask("tell me more")
            assert not more.abstained
            new = _quoted(more.answer)
            assert new, question
            assert not set(new) & set(shown), (question, set(new) & set(shown))
            shown += new


def test_tell_me_more_quotes_the_last_answer_s_sources(sample_assistant) -> None:  # type: ignore[no-untyped-def]
    """After "I start in March, do I pay the whole month?", whose words carry no topic,
    "tell me more" was searched as "tell me more in March (whole month)" and abstained
    ("nothing about March whole"). It now reads more of the document the last answer
    quoted first, and does not abstain on it."""
    chat = sample_assistant.session()
    assert not chat.ask("What does the Pro plan include?").abstained
    vague = chat.ask("I start in March, do I pay the whole month?")
    assert not vague.abstained and vague.citations
    more = chat.ask("tell me more")
    assert not more.abstained, more.answer
    assert more.citations
    assert {c.doc for c in more.citations} == {vague.citations[0].doc}
    assert not set(_quoted(more.answer)) & set(_quoted(vague.answer))


def test_a_sentence_shown_as_plain_text_counts_as_shown() -> None:
    """The answer shows a sentence without its Markdown ("your usual duty location"); the
    document writes it with a link, and "tell me more" quoted it again (TTS handbook)."""
    written = "When away from your usual [duty location](/duty), consider [these tips](/tips)."
    answer = "When away from your usual duty location, consider these tips. [1] Book early. [2]"
    shown = shown_sentences([Turn("user", "what should I do?"), Turn("assistant", answer)])
    assert was_shown(written, shown)
    assert was_shown("Book early.", shown)
    assert not was_shown("Cancel by Friday.", shown)
