"""Clarification drawn from the documents (issue 22): with the real MiniLM, in the default
mode and the judged one, "How wealthy is this county?" over three county documents asks
which county;
the reply answers the original question about the chosen one; a question that names its
county, or one asked about a county the conversation is on, is answered directly."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tellmemore.assistant import Assistant
from tellmemore.config import Settings

pytestmark = pytest.mark.model

COUNTIES = Path(__file__).parent / "data" / "counties"
VAGUE = "How wealthy is this county of California?"


@pytest.fixture(scope="module")
def _counties_template(tmp_path_factory: pytest.TempPathFactory, minilm: Any) -> Path:
    path = tmp_path_factory.mktemp("counties")
    assistant = Assistant(_settings(path, "judged"), embedder=minilm)
    assistant.ingest([COUNTIES])
    assistant.close()
    return path


@pytest.fixture(params=["floor", "judged"])
def counties(
    request: pytest.FixtureRequest, _counties_template: Path, tmp_path: Path, minilm: Any
) -> Iterator[Assistant]:
    """The default (abstention by the floors) and the judged mode both ask back."""
    import shutil

    target = tmp_path / "counties"
    shutil.copytree(_counties_template, target)
    assistant = Assistant(_settings(target, request.param), embedder=minilm)
    yield assistant
    assistant.close()


def test_a_question_several_documents_fit_asks_which_and_the_reply_answers_it(
    counties: Assistant,
) -> None:
    chat = counties.session()
    asked = chat.ask(VAGUE)
    assert asked.clarification is not None and not asked.abstained
    assert set(asked.clarification_options) >= {"Alameda County", "Ventura County"}
    assert asked.citations == ()
    answer = chat.ask("Ventura County")
    assert answer.clarification is None and not answer.abstained
    # the pick is bound into the searched question, and shown as the binding
    assert answer.standalone_query == "How wealthy is Ventura County of California?"
    assert answer.bindings == {"this county": "Ventura County"}
    assert answer.citations[0].title == "Ventura County"
    assert answer.answer.startswith("Ventura County")
    assert "102,141" in answer.answer and "122,488" not in answer.answer


def test_a_the_description_on_a_new_topic_asks_too(counties: Assistant) -> None:
    chat = counties.session()
    chat.ask("hello")
    asked = chat.ask("What is the median household income in the county?")
    assert asked.clarification is not None
    assert asked.clarification.startswith("Which county?")
    assert len(asked.clarification_options) >= 2
    answer = chat.ask("Tuolumne County")
    assert answer.clarification is None and not answer.abstained
    assert "Tuolumne County" in answer.standalone_query
    assert "70,432" in answer.answer


def test_a_kind_the_documents_do_not_cover_is_not_offered_their_subjects(
    counties: Assistant,
) -> None:
    """ "the famous basketball player" over three county documents: too far to answer,
    so "Do you mean Alameda County, ...?" would be nonsense."""
    answer = counties.session().ask("When was the famous basketball player born?")
    assert answer.clarification is None
    assert answer.abstained


def test_a_question_that_names_its_subject_is_answered(counties: Assistant) -> None:
    answer = counties.session().ask("How wealthy is Tuolumne County?")
    assert answer.clarification is None and not answer.abstained
    assert "70,432" in answer.answer


def test_the_conversation_picks_the_subject(counties: Assistant) -> None:
    chat = counties.session()
    chat.ask("What is the county seat of Alameda County?")
    answer = chat.ask("How wealthy is this county?")
    assert answer.clarification is None
    assert "122,488" in answer.answer


def test_asking_back_can_be_turned_off(
    _counties_template: Path, tmp_path: Path, minilm: Any
) -> None:
    import shutil

    target = tmp_path / "off"
    shutil.copytree(_counties_template, target)
    settings = Settings(project_dir=target, retrieval={"ask_back": False})
    assistant = Assistant(settings, embedder=minilm)
    try:
        answer = assistant.session().ask(VAGUE)
    finally:
        assistant.close()
    assert answer.clarification is None


def _settings(path: Path, abstention: str) -> Settings:
    return Settings(project_dir=path, retrieval={"abstention": abstention})


@pytest.mark.model
@pytest.mark.parametrize(
    "question",
    [
        "How much does the day pass cost?",
        "How do I reset the password?",
        "What is the refund policy?",
        "Where are the docking stations?",
    ],
)
def test_a_thing_only_one_document_speaks_of_is_answered_not_asked_about(
    sample_assistant: Assistant, question: str
) -> None:
    """The sample corpus is three products: any question's top passages come from several
    documents, but only one of them has a day pass (or a password reset)."""
    answer = sample_assistant.session().ask(question)
    assert not answer.clarification_options, answer.answer
    assert not answer.abstained
    assert answer.citations
