"""Abstain when the question asks for a value no sentence about it states (`answer.stated`,
`retrieval.min_value_share`): a real SQLite index over a small product guide, the real
MiniLM, the turn as a user runs it."""

from __future__ import annotations

import pytest

from tellmemore.answer import stated
from tellmemore.answer.answer_types import AnswerType

GUIDE = """# Product guide

## Plans

The Pro plan costs 49 EUR per month and includes 500 GB of storage. The Team plan costs
199 EUR per month for up to 20 users.

## Cloud Shell

Cloud Shell gives you a terminal in your browser with the command line tools installed.
Closing Cloud Shell removes any data in your workspace, including your files and your
command history. You can open up to five Cloud Shell sessions at once.

## Support

Our support team answers tickets in English, German and French. Open a ticket from the
help menu and attach a screenshot of the error.

## Storage

Extra storage is 5 EUR for each additional 100 GB a month.

## Backups

Backups of your projects are kept for 30 days. Restoring a project from a backup replaces
its current files.
"""


@pytest.fixture(scope="module")
def guide(tmp_path_factory: pytest.TempPathFactory, minilm):  # type: ignore[no-untyped-def]
    from tellmemore.assistant import Assistant
    from tellmemore.config import Settings

    root = tmp_path_factory.mktemp("guide")
    docs = root / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text(GUIDE)
    settings = Settings(project_dir=root / "project", retrieval={"min_value_share": 0.5})
    assistant = Assistant(settings, embedder=minilm)
    assistant.ingest([docs])
    yield assistant
    assistant.close()


def _share(assistant, question: str) -> stated.Stated:  # type: ignore[no-untyped-def]
    hits = assistant.retriever.search([question]).hits
    return stated.value_share(question, hits, assistant.index.term_stats)


def test_a_value_stated_in_a_sentence_about_the_subject_is_held(guide) -> None:  # type: ignore[no-untyped-def]
    found = _share(guide, "How much does the Pro plan cost?")
    assert found.kind is AnswerType.PRICE
    assert found.share >= 0.9  # "The Pro plan costs 49 EUR per month ..." holds it all


def test_a_value_stated_only_about_something_else_is_not_held(guide) -> None:  # type: ignore[no-untyped-def]
    """The passages speak of Cloud Shell and state prices, but of the plans, not of it."""
    found = _share(guide, "How much does a Cloud Shell workspace cost?")
    assert found.kind is AnswerType.PRICE
    assert found.share < 0.3


def test_a_question_for_no_value_is_not_checked(guide) -> None:  # type: ignore[no-untyped-def]
    found = _share(guide, "What happens to my files when I close Cloud Shell?")
    assert found.kind is None
    assert found.share == 1.0


def test_a_count_no_sentence_states_abstains_and_says_what_is_missing(guide) -> None:  # type: ignore[no-untyped-def]
    """The support passage names the languages but states no number: a rule on counting
    words would have to count them; the turn says what it found and what it lacks."""
    answer = guide.ask("How many languages does the support team answer tickets in?")
    assert answer.abstained
    assert "nothing that says how many" in answer.answer
    assert "Support" in answer.answer  # what the documents cover nearby


def test_a_stated_value_answers(guide) -> None:  # type: ignore[no-untyped-def]
    answer = guide.ask("How many Cloud Shell sessions can I open at once?")
    assert not answer.abstained
    assert "five" in answer.answer
    answer = guide.ask("How long are backups kept?")
    assert not answer.abstained
    assert "30 days" in answer.answer


def test_the_rule_is_what_abstains_and_is_off_by_default(tmp_path, minilm) -> None:  # type: ignore[no-untyped-def]
    from tellmemore.assistant import Assistant
    from tellmemore.config import Settings

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text(GUIDE)
    settings = Settings(project_dir=tmp_path / "project")
    assert settings.retrieval.min_value_share == 0.0
    assistant = Assistant(settings, embedder=minilm)
    try:
        assistant.ingest([docs])
        answer = assistant.ask("How many languages does the support team answer tickets in?")
        assert not answer.abstained
    finally:
        assistant.close()


def test_the_judged_mode_runs_the_same_rule(tmp_path, minilm) -> None:  # type: ignore[no-untyped-def]
    from tellmemore.assistant import Assistant
    from tellmemore.config import Settings

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text(GUIDE)
    settings = Settings(
        project_dir=tmp_path / "project",
        retrieval={"abstention": "judged", "min_value_share": 0.5},
    )
    assistant = Assistant(settings, embedder=minilm)
    try:
        assistant.ingest([docs])
        answer = assistant.ask("How many languages does the support team answer tickets in?")
        assert answer.abstained
        assert "nothing that says how many" in answer.answer
    finally:
        assistant.close()


def test_an_index_that_cannot_count_words_weighs_them_the_same(guide) -> None:  # type: ignore[no-untyped-def]
    def broken(words: list[str]):  # type: ignore[no-untyped-def]
        raise RuntimeError("no statistics")

    hits = guide.retriever.search(["How much does the Pro plan cost?"]).hits
    found = stated.value_share("How much does the Pro plan cost?", hits, broken)
    assert found.share >= 0.9


def test_a_question_for_a_time_is_not_checked(guide) -> None:  # type: ignore[no-untyped-def]
    """ "When ...?" is often answered by an event ("when you restore a project"), not a
    date: not checked, where a question for a quantity is."""
    assert _share(guide, "When are my current files replaced?").kind is None
    assert _share(guide, "How long are backups kept?").kind is AnswerType.DURATION


def test_the_words_that_ask_are_not_what_is_asked_about(guide) -> None:  # type: ignore[no-untyped-def]
    """ "price" in "what is the price of extra storage?" names the kind of answer: a sentence
    stating the price of extra storage answers it without the word."""
    found = _share(guide, "What is the price of extra storage?")
    assert found.kind is AnswerType.PRICE
    assert found.share >= 0.9


def test_a_word_no_chunk_holds_does_not_outweigh_the_subject(guide) -> None:  # type: ignore[no-untyped-def]
    """ "Lisbon" and "spring" are in no chunk: no sentence could state a value about them,
    and as the rarest words they outweighed the plan the question asks about. Left out,
    the sentence stating the Pro plan's price holds what is asked, and the turn answers."""
    question = "I'm moving to Lisbon in the spring. How much does the Pro plan cost?"
    found = _share(guide, question)
    assert found.kind is AnswerType.PRICE
    assert found.share >= 0.9
    answer = guide.ask(question)
    assert not answer.abstained
    assert "49 EUR" in answer.answer


def test_a_question_whose_words_no_chunk_holds_is_left_to_the_other_rules(guide) -> None:  # type: ignore[no-untyped-def]
    hits = guide.retriever.search(["How much is a gym membership?"]).hits
    found = stated.value_share("How much is a gym membership?", hits, guide.index.term_stats)
    assert found.kind is AnswerType.PRICE
    assert found.share == 1.0


def _chunk_hits(*texts: tuple[str, str]):  # type: ignore[no-untyped-def]
    from tellmemore.types import Chunk, Hit

    return [
        Hit(Chunk(f"c{i}", "doc", text, title=title), 0.0, i + 1, None, 0.5)
        for i, (title, text) in enumerate(texts)
    ]


def _every_word_held(words: list[str]):  # type: ignore[no-untyped-def]
    from tellmemore.types import TermStats

    return TermStats(100, {w: 3 for w in words})


def test_a_value_question_embedded_in_another_is_not_checked() -> None:
    """ "how do I change how much I put in?" asks how, not how much: no sentence need state
    an amount. A value phrase after a clause break, or opening the question, still asks."""
    assert stated.checked_value("how do I change how much I put in?") is None
    assert stated.checked_value("What was the population then, and how many live there?") is (
        AnswerType.COUNT
    )
    assert stated.checked_value("can you tell me how much the Pro plan costs?") is AnswerType.PRICE
    hits = _chunk_hits(("Retirement", "You update your contribution in the payroll portal."))
    found = stated.value_share("how do I change how much I put in?", hits, _every_word_held)
    assert found.kind is None and found.share == 1.0


def test_the_unit_a_quantity_is_counted_in_is_not_what_is_asked_about() -> None:
    """ "How many megabytes can I use each month?" is answered by "5 GB": the unit names the
    answer, it is not the subject a stating sentence must hold."""
    hits = _chunk_hits(
        ("Registry pricing", "On the free plan you can store 5 GB of images each month."),
        ("Registry", "Image layers are counted in megabytes when you push them."),
    )
    found = stated.value_share("How many megabytes can I store each month?", hits, _every_word_held)
    assert found.kind is AnswerType.COUNT
    assert found.share >= 0.9


def test_a_near_word_of_the_stating_sentence_holds_a_focus_word(minilm) -> None:  # type: ignore[no-untyped-def]
    """ "travel" is not written in "we pay the flights and hotel ... 4 times per year", but
    "flights" is close to it (MiniLM): with the embedder the sentence holds the question;
    a sentence about something else stays unheld."""
    hits = _chunk_hits(
        ("Speaker support", "We pay the flights and hotel for each talk, 4 times per year."),
    )
    question = "How many times a year is my travel paid?"
    without = stated.value_share(question, hits, _every_word_held)
    near = stated.value_share(
        question, hits, _every_word_held, minilm.embed_documents, min_near=0.6
    )
    assert without.share < 0.5 <= near.share
    other = _chunk_hits(("Plans", "The Pro plan costs 49 EUR per month."))
    found = stated.value_share(
        "How many languages does support answer in?",
        other,
        _every_word_held,
        minilm.embed_documents,
        min_near=0.6,
    )
    assert found.share < 0.5


def test_the_near_words_are_embedded_only_when_the_stems_fall_short() -> None:
    """A turn compares the share with its threshold: when the stems alone reach it, the
    units' words are not embedded (no model call for most questions)."""

    def never(texts: list[str]):  # type: ignore[no-untyped-def]
        raise AssertionError("embedded although the stems held enough")

    hits = _chunk_hits(("Backups", "Backups of your projects are kept for 30 days."))
    found = stated.value_share(
        "How long are project backups kept?",
        hits,
        _every_word_held,
        never,
        min_near=0.6,
        enough=0.5,
    )
    assert found.share >= 0.5


def test_the_verb_that_asks_is_not_what_the_value_is_of() -> None:
    """A value is a value of something: "retain", "qualify" or "last" relate the asker to
    it, and the documents state it with their own verbs ("kept", "to be eligible"). Only
    the noun phrases' words weigh, a predicate ending a run too ("to vote last")."""
    backups = _chunk_hits(("Storage", "Backups are kept for 30 days on every plan."))
    found = stated.value_share("How long can I retain my backups?", backups, _every_word_held)
    assert found.kind is AnswerType.DURATION
    assert found.share >= 0.9
    pension = _chunk_hits(
        ("Retirement", "You need at least 5 years of service to be eligible for a pension.")
    )
    found = stated.value_share(
        "How many years until I qualify for a pension?", pension, _every_word_held
    )
    assert found.share >= 0.9
    vote = _chunk_hits(("Leave", "You can receive up to 4 hours of leave to vote."))
    found = stated.value_share("how long can time off to vote last?", vote, _every_word_held)
    assert found.share >= 0.9
    # the subject itself must still be held: a stated value about something else is not
    other = _chunk_hits(("Storage", "Snapshots are kept for 30 days on every plan."))
    found = stated.value_share("How long can I retain my backups?", other, _every_word_held)
    assert found.share < 0.5


def test_a_quantity_stated_as_having_no_bound_is_stated() -> None:
    """ "however long you serve", "no requirement", "unlimited": the sentence says how much,
    without a figure, and answers the question."""
    jury = _chunk_hits(("Court leave", "You get court leave for however long your jury duty runs."))
    found = stated.value_share("how long can jury duty last?", jury, _every_word_held)
    assert found.share >= 0.9
    assert stated.states_quantity(
        "Give as much notice as possible; there is no requirement.", AnswerType.PRICE
    )
    assert stated.states_quantity("Paid time off is unlimited.", AnswerType.PRICE)
    assert not stated.states_quantity(
        "Give your team notice before you take leave.", AnswerType.PRICE
    )
