"""A first question's bare noun the passages' text names several things of asks which
(`answer.qualified`, `clarify.ask_qualified`): a real SQLite index of Clef's employee
handbook (bench/data/clef_handbook), the real MiniLM, each conversation a stored session.
"What's the budget?" finds the learning budget, the company's quarterly budgets
("Budgeting") and the speaker support budget: it asks which, and the reply answers the
original question. `retrieval.ask_from_text` is opt-in: by default it is answered.
A noun the documents call one thing by ("the office") is answered."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tellmemore.answer import qualified
from tellmemore.answer.unanchored import bare_kinds
from tellmemore.assistant import Assistant
from tellmemore.config import Settings
from tellmemore.types import Chunk, Hit, Turn


def _open(project: Path, minilm: Any, **retrieval: Any) -> Assistant:
    return Assistant(Settings(project_dir=project, retrieval=retrieval), embedder=minilm)


@pytest.fixture(scope="module", params=["floor", "judged"])
def clef(request: pytest.FixtureRequest, clef_project: Path, minilm: Any) -> Iterator[Assistant]:
    """Both abstention modes, the rule switched on (`retrieval.ask_from_text`, opt-in), the
    learned ask-back gate off: what is measured is this rule (with the learned gate, on by
    default, "How much vacation do I get?" is asked back: bench/results/ask_gate.md)."""
    assistant = _open(
        clef_project, minilm, abstention=request.param, ask_from_text=True, learned_ask=False
    )
    yield assistant
    assistant.close()


@pytest.mark.model
def test_a_bare_noun_the_text_names_several_things_of_asks_which(clef: Assistant) -> None:
    chat = clef.session()
    asked = chat.ask("What's the budget?")
    assert asked.clarification is not None and not asked.abstained
    assert asked.clarification.startswith("Which budget?")
    assert "learning budget" in asked.clarification_options
    assert len(asked.clarification_options) >= 2
    answer = chat.ask("learning budget")
    assert answer.clarification is None and not answer.abstained
    assert answer.citations[0].title == "Continuing Education"
    assert "learning budget" in answer.answer


@pytest.mark.model
def test_by_default_the_bare_noun_is_answered(clef_project: Path, minilm: Any) -> None:
    assistant = _open(clef_project, minilm)
    try:
        answer = assistant.session().ask("What's the budget?")
    finally:
        assistant.close()
    assert answer.clarification is None


@pytest.mark.model
@pytest.mark.parametrize("message", ["Can we drink at the office?", "How much vacation do I get?"])
def test_a_noun_the_documents_call_one_thing_by_is_answered(clef: Assistant, message: str) -> None:
    answer = clef.session().ask(message)
    assert answer.clarification is None


def _hit(title: str, section: tuple[str, ...], text: str, rank: int) -> Hit:
    header = " > ".join((title, *section))
    chunk = Chunk(id=f"c{rank}", doc_id=f"{title}.md", text=f"{header}\n\n{text}", title=title,
                  section=section)  # fmt: skip
    return Hit(chunk, 1.0 / rank, rank)


def test_things_are_read_from_headings_codes_and_sections() -> None:
    hits = [
        _hit("Leave", ("Requests",), "Fill out the Leave Request form for your supervisor.", 1),
        _hit("Transfers", ("Enrolling",), "You complete OPM Form 630 and send it on.", 2),
        _hit("Training", ("Books",), "Every form goes to the events team first.", 3),
    ]
    found = qualified.things(hits, "form")
    assert [t.text for t in found] == ["Leave Request form", "OPM Form 630", "Books"]
    assert [t.by_section for t in found] == [False, False, True]
    # a follow-up's bare noun is of the conversation's topic: sections alone name nothing
    assert [t.text for t in qualified.things(hits, "form", sections=False)][-1] == "OPM Form 630"


def test_a_thing_is_offered_as_the_passage_writes_it() -> None:
    hit = _hit("Parental leave", ("Requesting paid parental leave",),
               "1. The Paid Parental Leave Request form and the agreement.", 1)  # fmt: skip
    other = _hit("Transfers", ("Enrolling",), "You complete OPM Form 630 and send it on.", 2)
    found = qualified.things([hit, other], "form")
    assert found[0].text == "Paid Parental Leave Request form"


def test_an_adjective_any_passage_could_use_names_no_thing() -> None:
    hits = [
        _hit("Education", ("Courses",), "Each employee has an annual budget to spend.", 1),
        _hit("Travel", ("Flights",), "The company budget covers flights.", 2),
    ]
    assert qualified.things(hits, "budget") == []


def test_a_heading_called_by_the_kind_alone_names_the_one_thing() -> None:
    hits = [
        _hit("Equipment", ("Phone",), "You get a phone; an Android phone on request.", 1),
        _hit("Equipment", ("Phone", "Rules"), "Set the Android phone passcode.", 2),
    ]
    assert qualified.things(hits, "phone") == []


@pytest.mark.parametrize(
    ("message", "kinds"),
    [
        ("What's the budget?", ["budget"]),
        ("Which form do I need to fill out?", ["form"]),
        ("What phone do we get?", []),  # asks the documents to describe theirs
        ("What are the benefits?", []),  # a plural asks for all of them
        ("What's the learning budget?", []),  # qualified already
        ("What's the budget for travel?", []),  # its phrase says which
        ("which industry provides the largest employment in india", []),  # a superlative
    ],
)
def test_bare_kinds_are_one_singular_noun_and_nothing_else(message: str, kinds: list[str]) -> None:
    assert [d.head for d in bare_kinds(message, [])] == kinds


def test_a_noun_said_before_is_no_bare_kind() -> None:
    history = [Turn("user", "Tell me about the learning budget"), Turn("assistant", "$4,000.")]
    assert bare_kinds("What's the budget?", history) == []
