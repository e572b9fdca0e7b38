"""The learned ask-back gate (`answer.ask_gate`, `retrieval.learned_ask`): its signals, its
bundled weights, and a turn reading it over three budget policies (real SQLite index, real
MiniLM)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from tellmemore.answer import abstain_gate, ask_gate, turn_signals
from tellmemore.answer.calibration import Calibration
from tellmemore.assistant import Assistant

from .conftest import budgets_assistant, budgets_with

CALIBRATION = Calibration(
    generation=1, chunks=10, own_p25=0.5, own_p50=0.6, foreign_p50=0.2, foreign_p90=0.3
)


def test_the_signals_are_read_from_the_message_and_its_hits() -> None:
    values = turn_signals.signals(
        "How much can I spend?",
        "How much can I spend?",
        True,
        [0.4, 0.3, None],
        ["learning.md", "travel.md", "travel.md"],
        ["A learning budget.", "A trip budget.", "Flights."],
        CALIBRATION,
    )
    assert set(ask_gate.FEATURES) <= set(values)
    assert values["top_cosine"] == pytest.approx(0.5)  # halfway from foreign p50 to own p50
    assert values["top_gap"] == pytest.approx(0.25)
    assert values["documents"] == 2.0
    assert values["words"] == pytest.approx(math.log1p(1))  # "spend"
    assert values["first_turn"] == 1.0 and values["resolved"] == 0.0
    assert values["asks_value"] == 1.0 and values["pointer"] == 0.0
    assert ask_gate.reachable(values)


def test_a_follow_up_the_resolver_changed_is_read_as_such() -> None:
    values = turn_signals.signals(
        "does it cover weekends?",
        "does the support plan cover weekends?",
        False,
        [0.5, 0.4],
        ["support.md", "plans.md"],
        ["Weekend support.", "Plans."],
        CALIBRATION,
    )
    assert values["resolved"] == 1.0 and values["first_turn"] == 0.0
    assert values["pointer"] == 1.0 and values["asks_value"] == 0.0


def _budget_question(hits: list[tuple[float, str, str]]) -> dict[str, float]:
    """The signals of "What is the budget?" over hits given as (cosine, document, text)."""
    dense, docs, texts = (list(column) for column in zip(*hits, strict=True))
    question = "What is the budget?"
    return turn_signals.signals(question, question, True, dense, docs, texts, CALIBRATION)


def test_a_second_document_that_fits_as_well_is_a_close_rival() -> None:
    """Two policies state a budget and both hold the searched words: the second document's
    best passage is close (rival_gap) and covers the question as well (rival_coverage)."""
    values = _budget_question(
        [
            (0.5, "learning.md", "The learning budget is $500."),
            (0.48, "travel.md", "The travel budget is $300."),
            (0.3, "learning.md", "Books count."),
        ]
    )
    assert values["rival_gap"] == pytest.approx(0.05)  # (0.50 - 0.48) / (0.6 - 0.2)
    assert values["rival_coverage"] == 1.0


def test_a_distant_second_document_is_a_weak_rival() -> None:
    values = _budget_question(
        [
            (0.5, "learning.md", "The learning budget is $500."),
            (0.45, "learning.md", "Books count."),
            (0.2, "travel.md", "Flights are booked early."),
        ]
    )
    assert values["rival_gap"] == pytest.approx(0.75)
    assert values["rival_coverage"] == 0.0
    alone = _budget_question([(0.5, "learning.md", "The budget.")])
    assert alone["rival_gap"] == 1.0 and alone["rival_coverage"] == 0.0


def test_hits_from_one_document_offer_nothing_to_choose() -> None:
    values = turn_signals.signals("Is it paid?", "Is it paid?", True, [0.5, 0.4], ["a.md", "a.md"],
                                  ["x", "y"], CALIBRATION)  # fmt: skip
    assert values["documents"] == 1.0 and not ask_gate.reachable(values)


def test_the_bundled_gate_asks_short_first_questions_more_than_long_follow_ups() -> None:
    """Fitted on 41 corpora's labelled turns: fewer words, a first turn, a weaker best
    match and a closer second document read as underspecified."""
    gate = ask_gate.shipped()
    weight = dict(zip(gate.features, gate.weights, strict=True))
    assert gate.features == ask_gate.FEATURES
    assert weight["words"] < 0 < weight["first_turn"]
    assert weight["top_cosine"] < 0
    assert weight["rival_gap"] < 0 < weight["rival_coverage"]
    assert 0.0 < gate.threshold < 1.0


budgets = budgets_with("learned_ask")


@pytest.mark.model
def test_a_question_every_policy_fits_is_asked_back_only_with_the_gate(
    budgets: tuple[Assistant, bool],
) -> None:
    assistant, learned = budgets
    asked = assistant.session().ask("How much can I spend?")
    if learned:
        assert asked.clarification is not None and not asked.abstained
        assert set(asked.clarification_options) == {
            "Home office equipment",
            "Learning budget",
            "Travel",
        }
        assert asked.citations == ()
        assert assistant.trace(asked.trace_id)["decided_by"] == "learned_ask"
    else:
        assert asked.clarification is None and asked.citations
        assert assistant.trace(asked.trace_id)["decided_by"] == ""


@pytest.mark.model
def test_a_question_one_policy_answers_is_answered_either_way(
    budgets: tuple[Assistant, bool],
) -> None:
    assistant, _ = budgets
    answer = assistant.session().ask("When do I send the receipts?")
    assert answer.clarification is None and not answer.abstained
    assert answer.citations[0].title == "Home office equipment"
    assert "30 days" in answer.answer


@pytest.mark.model
def test_the_turn_signals_are_read_once_for_both_gates(
    budgets_project: Path, tmp_path: Path, minilm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An answered turn over several policies is read by the ask gate, then by the abstain
    gate: both get the same signals, computed once."""
    read: list[str] = []
    of_turn, ask, abstains = turn_signals.of_turn, ask_gate.ask, abstain_gate.abstains

    def counted(*args: Any) -> dict[str, float]:
        read.append("signals")
        return of_turn(*args)

    def asked(*args: Any) -> Any:
        read.append("ask gate")
        return ask(*args)

    def abstained(*args: Any) -> bool:
        read.append("abstain gate")
        return abstains(*args)

    monkeypatch.setattr(turn_signals, "of_turn", counted)
    monkeypatch.setattr(ask_gate, "ask", asked)
    monkeypatch.setattr(abstain_gate, "abstains", abstained)
    assistant = budgets_assistant(budgets_project, tmp_path, minilm)
    try:
        answer = assistant.session().ask("When do I send the receipts?")
    finally:
        assistant.close()
    assert answer.clarification is None and not answer.abstained
    assert read == ["signals", "ask gate", "abstain gate"]
