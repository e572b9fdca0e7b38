"""A first question too short to say which policy it means asks which (`answer.vague`):
a real SQLite index of Clef's employee handbook (bench/data/clef_handbook), the real
MiniLM, each conversation a stored session as a user runs it. The reply answers the
original question about the chosen subject; a first question whose word names a policy,
or one that points at nothing, is answered; a follow-up's pronoun is the resolver's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tellmemore.answer import vague
from tellmemore.assistant import Assistant
from tellmemore.config import Settings
from tellmemore.types import Resolution, Turn


@pytest.fixture(scope="module", params=["floor", "judged"])
def clef(request: pytest.FixtureRequest, clef_project: Path, minilm: Any) -> Iterator[Assistant]:
    """The default mode (abstention by the floors) and the judged one both ask back."""
    settings = Settings(project_dir=clef_project, retrieval={"abstention": request.param})
    assistant = Assistant(settings, embedder=minilm)
    yield assistant
    assistant.close()


@pytest.fixture(scope="module", params=["floor", "judged"])
def clef_written_gates(
    request: pytest.FixtureRequest, clef_project: Path, minilm: Any
) -> Iterator[Assistant]:
    """Both modes with the hand-written gates alone (`retrieval.learned_ask` off): what this
    module's rule decides. The learned gate, on by default, asks back on two of the first
    questions below (bench/results/ask_gate.md: a known false ask on this dev handbook)."""
    retrieval = {"abstention": request.param, "learned_ask": False}
    assistant = Assistant(Settings(project_dir=clef_project, retrieval=retrieval), embedder=minilm)
    yield assistant
    assistant.close()


@pytest.mark.model
def test_a_first_question_for_days_asks_which_policy_and_the_reply_answers_it(
    clef: Assistant,
) -> None:
    chat = clef.session()
    asked = chat.ask("How many days do I get?")
    assert asked.clarification is not None and not asked.abstained
    assert asked.citations == ()
    # the top passages' policies that count days; since the calibrated fusion (session 39)
    # "Vacation and Sick Leave" ties 4th with the OKR page, which says "days" more often
    assert {"Sabbatical", "Clef Observed Holiday List"} <= set(asked.clarification_options)
    answer = chat.ask("Clef Observed Holiday List")
    assert answer.clarification is None and not answer.abstained
    assert answer.citations[0].title == "Clef Observed Holiday List"
    assert "holiday" in answer.answer.lower()


@pytest.mark.model
def test_a_first_question_about_it_asks_what_it_is(clef: Assistant) -> None:
    asked = clef.session().ask("Is it paid?")
    assert asked.clarification is not None
    assert len(asked.clarification_options) >= 2
    # a hand-written gate asked (in the judged mode, the judge): the trace says which
    judged = clef.settings.retrieval.abstention == "judged"
    assert clef.trace(asked.trace_id)["decided_by"] == ("judged" if judged else "rule")


@pytest.mark.model
@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("How much vacation do I get?", "15 days"),  # its word names the policy
        ("Who will I report to?", "founder"),  # it points at nothing
        ("What's the bereavement policy?", "three consecutive days"),  # one document's word
    ],
)
def test_a_first_question_that_picks_its_policy_is_answered(
    clef_written_gates: Assistant, question: str, said: str
) -> None:
    answer = clef_written_gates.session().ask(question)
    assert answer.clarification is None and not answer.abstained
    assert said in answer.answer


@pytest.mark.model
def test_by_default_the_question_one_document_words_is_answered(clef: Assistant) -> None:
    """With the learned gate too (the default): one document says "bereavement"."""
    answer = clef.session().ask("What's the bereavement policy?")
    assert answer.clarification is None and not answer.abstained
    assert "three consecutive days" in answer.answer


@pytest.mark.model
def test_a_follow_ups_pronoun_is_bound_not_asked_about(clef: Assistant) -> None:
    chat = clef.session()
    chat.ask("Do we have sabbaticals?")
    answer = chat.ask("is it paid?")
    assert answer.clarification is None
    assert "Sabbatical" in [c.title for c in answer.citations]


@pytest.mark.parametrize(
    ("message", "why"),
    [
        ("Is it paid?", "pointer"),
        ("Who do I report it to?", "pointer"),
        ("How many days do I get?", "quantity"),
        ("How much notice do I need to give?", "quantity"),
        ("How many stock options do new employees get?", ""),  # words enough to pick
        ("What benefits do we get?", ""),  # neither points nor asks for a quantity
        ("Is this county wealthy?", ""),  # a description: answer.unanchored's
    ],
)
def test_candidate_reads_the_message(message: str, why: str) -> None:
    assert vague.candidate(message, [], Resolution(query=message)) == why


def test_a_follow_up_or_a_bound_pronoun_is_no_candidate() -> None:
    history = [Turn("user", "Do we have sabbaticals?"), Turn("assistant", "Yes.")]
    assert vague.candidate("Is it paid?", history, Resolution(query="Is it paid?")) == ""
    bound = Resolution(query="Is the sabbatical paid?", bindings={"it": "the sabbatical"})
    assert vague.candidate("Is it paid?", [], bound) == ""
