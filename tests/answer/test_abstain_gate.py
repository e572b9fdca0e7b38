"""The learned gate for abstaining (`answer.abstain_gate`, `retrieval.learned_abstain`): its
bundled weights, and turns reading it over three budget policies (real SQLite index, real
MiniLM), alone and with the second look at an abstention (`retrieval.learned_answer`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tellmemore.answer import abstain_gate, abstain_override, turn_signals
from tellmemore.answer.calibration import Calibration
from tellmemore.assistant import Assistant

from .conftest import budgets_assistant, budgets_with, with_threshold

ANSWERED = "How much is the learning budget per year?"
"""learning.md: "a learning budget of $1,000 per year"; the default answers it."""
ABSTAINED = "Do I need approval to book a conference?"
"""learning.md answers it, but the default abstains (test_abstain_override.py)."""


def test_the_bundled_gate_reads_a_close_well_covered_match_as_answered() -> None:
    """Fitted on 29 corpora's answered turns: a question whose best passage is close and
    holds its words is likelier answered; a question for a value likelier not, and still
    less when no first passage states one."""
    gate = abstain_gate.shipped()
    weight = dict(zip(gate.features, gate.weights, strict=True))
    assert gate.features == abstain_gate.FEATURES == (*abstain_override.FEATURES, "value_absent")
    assert weight["top_cosine"] < 0 and weight["coverage"] < 0
    assert weight["asks_value"] > 0 and weight["value_absent"] > 0
    assert 0.0 < gate.threshold < 1.0


def test_a_quantity_no_first_passage_states_is_absent() -> None:
    """ "How many days?" over passages with no figure, duration or count: the answer's type
    is missing from the evidence; a passage stating "15 days" holds it; a question for no
    quantity has nothing to miss."""
    calibration = Calibration(
        generation=1, chunks=10, own_p25=0.5, own_p50=0.6, foreign_p50=0.2, foreign_p90=0.3
    )

    def absent(query: str, texts: list[str]) -> float:
        dense = [0.5] * len(texts)
        docs = [f"d{i}.md" for i in range(len(texts))]
        values = turn_signals.signals(query, query, True, dense, docs, texts, calibration)
        return values["value_absent"]

    policy = ["Sick leave is paid.", "Ask your manager first.", "Tell your team."]
    assert absent("How many days of sick leave do I get?", policy) == 1.0
    # the fourth passage is not among the first three, which the answer quotes from
    assert absent("How many days of sick leave do I get?", [*policy, "You get 15 days."]) == 1.0
    assert absent("How many days of sick leave do I get?", ["You get 15 days.", *policy]) == 0.0
    assert absent("Is sick leave paid?", policy) == 0.0


budgets = budgets_with("learned_abstain")


@pytest.fixture
def strict_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    """A gate that says abstain on every turn (threshold 0): what it decides is then only
    which turns it reads."""
    with_threshold(monkeypatch, abstain_gate, 0.0)


@pytest.mark.model
@pytest.mark.usefixtures("strict_gate")
def test_an_answer_the_gate_reads_as_unanswered_is_withheld_with_what_is_near(
    budgets: tuple[Assistant, bool],
) -> None:
    assistant, learned = budgets
    answer = assistant.session().ask(ANSWERED)
    if learned:
        assert answer.abstained
        assert "Learning budget" in answer.answer  # the abstention names what is nearby
    else:
        assert not answer.abstained and "$1,000" in answer.answer


@pytest.mark.model
def test_tell_me_more_is_not_read_by_the_gate(
    budgets: tuple[Assistant, bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "tell me more" is more of what was just answered: nothing is judged, so even a gate
    that says abstain on everything never withholds it."""
    assistant, _ = budgets
    session = assistant.session()
    first = session.ask(ANSWERED)  # the bundled gate reads it as answered
    assert not first.abstained and "$1,000" in first.answer
    with_threshold(monkeypatch, abstain_gate, 0.0)
    more = session.ask("tell me more")
    assert not more.abstained  # more sources or "nothing more", never the gate's abstention


@pytest.mark.model
def test_the_two_gates_decide_disjoint_turns(
    budgets_project: Path, tmp_path: Path, minilm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With both settings and both gates saying yes to everything: the default's abstention
    is answered (the second look) and not withheld again; its answer is withheld."""
    with_threshold(monkeypatch, abstain_override, 0.0)
    with_threshold(monkeypatch, abstain_gate, 0.0)
    assistant = budgets_assistant(
        budgets_project, tmp_path, minilm, learned_abstain=True, learned_answer=True
    )
    try:
        overruled = assistant.session().ask(ABSTAINED)
        withheld = assistant.session().ask(ANSWERED)
    finally:
        assistant.close()
    assert not overruled.abstained
    assert "Ask your manager before booking a conference" in overruled.answer
    assert withheld.abstained


@pytest.mark.model
def test_the_trace_says_what_decided(
    budgets_project: Path, tmp_path: Path, minilm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A user asking "why did it abstain?" reads it in the trace: the floor, the learned
    gate, or the second look that answered against the floor."""
    assistant = budgets_assistant(
        budgets_project, tmp_path, minilm, learned_abstain=True, learned_answer=False
    )
    try:
        answered = assistant.session().ask(ANSWERED)
        floor = assistant.session().ask(ABSTAINED)
        assert not answered.abstained and floor.abstained
        assert assistant.trace(answered.trace_id)["decided_by"] == ""
        assert assistant.trace(floor.trace_id)["decided_by"] == "floor"
        with_threshold(monkeypatch, abstain_gate, 0.0)
        withheld = assistant.session().ask(ANSWERED)
        assert withheld.abstained
        assert assistant.trace(withheld.trace_id)["decided_by"] == "learned_abstain"
    finally:
        assistant.close()
    with_threshold(monkeypatch, abstain_override, 0.0)
    assistant = budgets_assistant(budgets_project, tmp_path / "2", minilm, learned_answer=True)
    try:
        overruled = assistant.session().ask(ABSTAINED)
        assert not overruled.abstained
        assert assistant.trace(overruled.trace_id)["decided_by"] == "learned_answer"
    finally:
        assistant.close()
