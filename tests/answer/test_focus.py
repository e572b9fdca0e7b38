"""Abstain when the documents do not hold what the question asks about (`answer.focus`,
opt-in: `retrieval.focus`): a real SQLite index over a small handbook, the real MiniLM,
the turn as a user runs it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tellmemore.answer import focus

HANDBOOK = """# Employee handbook

## Coworking stipend

Employees who work remotely receive a coworking stipend of 150 EUR per month towards a desk
at a coworking space. Submit the receipt through the expenses tool by the fifth of the
following month.

## Health reimbursement

The company reimburses health insurance premiums up to 200 EUR per month for each employee.
Dental and vision plans are included in the reimbursement.

## Resigning

If you resign, give four weeks' notice in writing to your manager. Your final salary
includes any unused vacation days, and you return your laptop on your last working day.

## Vacation

Full-time employees have 28 vacation days a year. Vacation requests go to your manager at
least two weeks ahead.

## Equipment

Each employee gets a laptop and a monitor. Broken equipment is replaced by the IT team
within two working days.
"""


@pytest.fixture(scope="module")
def handbook(tmp_path_factory: pytest.TempPathFactory, minilm):  # type: ignore[no-untyped-def]
    from tellmemore.assistant import Assistant
    from tellmemore.config import Settings

    root = tmp_path_factory.mktemp("handbook")
    docs = root / "docs"
    docs.mkdir()
    (docs / "handbook.md").write_text(HANDBOOK)
    settings = Settings(project_dir=root / "project", retrieval={"focus": True})
    assistant = Assistant(settings, embedder=minilm)
    assistant.ingest([docs])
    yield assistant
    assistant.close()


def test_a_benefit_the_handbook_does_not_have_abstains_and_names_it(handbook) -> None:  # type: ignore[no-untyped-def]
    answer = handbook.ask("Do we get a gym membership reimbursement?")
    assert answer.abstained
    assert "nothing about gym membership" in answer.answer
    # it names what the documents do cover nearby, and a next step
    assert "Health reimbursement" in answer.answer
    assert "Try asking" in answer.answer


def test_a_follow_up_about_a_missing_stipend_abstains(handbook) -> None:  # type: ignore[no-untyped-def]
    history = [
        {"role": "user", "content": "How much is the coworking stipend?"},
        {"role": "assistant", "content": "The coworking stipend is 150 EUR per month."},
    ]
    answer = handbook.ask("what about a phone stipend?", history=history)
    assert answer.abstained
    assert "phone stipend" in answer.answer


def test_a_remark_gets_no_nothing_about(handbook) -> None:  # type: ignore[no-untyped-def]
    """Said, not asked, the missing benefit gets no "nothing about gym membership": a
    remark asks nothing (`analysis.mood.asks`, as the phrase rule reads it)."""
    said = handbook.ask("So, no gym membership reimbursement from now on!")
    assert "nothing about gym membership" not in said.answer
    asked = handbook.ask("So, no gym membership reimbursement from now on?")
    assert "nothing about gym membership" in asked.answer


def test_a_paraphrase_of_what_the_handbook_says_answers(handbook) -> None:  # type: ignore[no-untyped-def]
    """ "quit" is in no chunk; the passage says "resign", a word close to it."""
    answer = handbook.ask("what happens if I quit?")
    assert not answer.abstained
    assert "notice" in answer.answer


def test_ordinary_questions_answer(handbook) -> None:  # type: ignore[no-untyped-def]
    for question in (
        "How many vacation days do I get?",
        "How much is the coworking stipend?",
        "Who replaces broken equipment?",
    ):
        answer = handbook.ask(question)
        assert not answer.abstained, question


def test_the_rule_is_opt_in(tmp_path: Path, minilm) -> None:  # type: ignore[no-untyped-def]
    """Off by default (bench/results/focus_coverage.md): the turn does not name a
    missing focus."""
    from tellmemore.assistant import Assistant
    from tellmemore.config import Settings

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "handbook.md").write_text(HANDBOOK)
    settings = Settings(project_dir=tmp_path / "project")
    assert not settings.retrieval.focus
    assistant = Assistant(settings, embedder=minilm)
    try:
        assistant.ingest([docs])
        answer = assistant.ask("Do we get a gym membership reimbursement?")
        assert not answer.abstained  # the floor rule answers with the health reimbursement
    finally:
        assistant.close()


def test_a_name_is_held_by_itself_only() -> None:
    """A passage about Mozilla is not about Firefox, however close the two words' vectors
    (0.79); a common word close to a passage word is held ("quit" / "resign")."""
    firefox = focus.FocusWord("firefox", 0.0, 0.79, named=True)
    quit_ = focus.FocusWord("quit", 0.0, 0.65)
    assert focus.is_missing(firefox, max_share=0.0, min_near=0.55)
    assert not focus.is_missing(quit_, max_share=0.0, min_near=0.55)


def test_a_misspelling_a_word_outside_a_noun_phrase_or_a_frequent_word_is_not_missing() -> None:
    assert not focus.is_missing(
        focus.FocusWord("herper", 0.0, 0.3, misspelt=True), max_share=0.0, min_near=0.55
    )
    assert not focus.is_missing(
        focus.FocusWord("sneaky", 0.0, 0.3, in_phrase=False), max_share=0.0, min_near=0.55
    )
    assert not focus.is_missing(focus.FocusWord("gym", 0.01, 0.3), max_share=0.0, min_near=0.55)


def test_candidates_split_run_on_words_and_skip_chat() -> None:
    words = focus.candidates("oops, the garbage collection again...especially on holidays?")
    assert "oops" not in words
    assert "garbage" in words
    assert not any("..." in w for w in words)


def test_naming_reads_the_question_s_own_phrase() -> None:
    question = "What is the phone number of the Free Software Foundation helpdesk?"
    assert focus.naming(question, ["helpdesk"]) == "Free Software Foundation helpdesk"
    assert focus.naming("what about a phone stipend?", ["phone"]) == "phone stipend"


def test_an_acronym_is_held_by_its_spelling_out() -> None:
    """ "the FSF" over a passage that names the Free Software Foundation: the passage is
    about it; what it lacks is the president."""
    from tellmemore.testing.conformance import make_chunk
    from tellmemore.types import Hit

    text = "Copyright (C) 2007 Free Software Foundation, Inc. Everyone is permitted to copy."
    hits = [Hit(chunk=make_chunk("1", text), score=0.4, rank=1, dense=0.4)]
    lost = [f.word for f in focus.unheld("who is the president of the FSF?", hits, None, None)]
    assert "fsf" not in lost
    assert "president" in lost


def test_the_floor_s_abstention_does_not_say_an_acronym_the_passages_spell_out_is_missing() -> None:
    from tellmemore.answer.answerability import abstention
    from tellmemore.testing.conformance import make_chunk
    from tellmemore.types import Hit

    text = "Copyright (C) 2007 Free Software Foundation, Inc. Everyone is permitted to copy."
    hits = [Hit(chunk=make_chunk("1", text, title="GPL-3"), score=0.3, rank=1, dense=0.3)]
    said = abstention(["who is the current president of the FSF?"], hits)
    assert "nothing about current president" in said
    assert "FSF" not in said
