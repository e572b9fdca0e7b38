"""The learned second look at an abstention (`answer.abstain_override`,
`retrieval.learned_answer`): its text signals, its bundled weights, and a turn reading it over
three budget policies (real SQLite index, real MiniLM)."""

from __future__ import annotations

import pytest

from tellmemore.answer import abstain_override, turn_signals
from tellmemore.answer.calibration import Calibration
from tellmemore.assistant import Assistant

from .conftest import budgets_with, with_threshold

CALIBRATION = Calibration(
    generation=1, chunks=10, own_p25=0.5, own_p50=0.6, foreign_p50=0.2, foreign_p90=0.3
)
ANSWERABLE = "Do I need approval to book a conference?"
"""learning.md: "Ask your manager before booking a conference"; the default abstains."""


def test_coverage_reads_the_searched_words_in_the_first_three_passages() -> None:
    texts = ["Book flights early.", "Hotels are booked.", "A desk.", "Approval for conferences."]
    values = turn_signals.signals(
        "does it need approval?",
        "does booking a hotel need approval?",
        False,
        [0.5, 0.4, 0.3, 0.2],
        ["a.md", "b.md", "c.md", "d.md"],
        texts,
        CALIBRATION,
    )
    # "booking" and "hotel" are in the first three, "approval" only in the fourth
    assert values["coverage"] == pytest.approx(2 / 3)
    assert values["absent_word"] == 0.0
    values = turn_signals.signals(
        "what about pets?", "what about pets?", False, [0.5], ["a.md"], texts, CALIBRATION
    )
    assert values["coverage"] == 0.0 and values["absent_word"] == 1.0


def test_the_bundled_gate_reads_a_close_match_as_answerable_and_a_value_question_not() -> None:
    """Fitted on 29 corpora's abstentions: a turn whose best passage stands out is likelier
    answerable; a question for a value the rules found unstated likelier not."""
    gate = abstain_override.shipped()
    weight = dict(zip(gate.features, gate.weights, strict=True))
    assert gate.features == abstain_override.FEATURES
    assert weight["top_cosine"] > 0 and weight["top_gap"] > 0
    assert weight["asks_value"] < 0
    assert 0.0 < gate.threshold < 1.0


budgets = budgets_with("learned_answer")


@pytest.mark.model
def test_an_abstention_the_gate_reads_as_answerable_is_answered(
    budgets: tuple[Assistant, bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A gate that says yes from 0.5 (the bundled one reads this turn at about 0.67, under
    its 0.82) answers what the default abstains on, only with the setting."""
    assistant, learned = budgets
    with_threshold(monkeypatch, abstain_override, 0.5)
    answer = assistant.session().ask(ANSWERABLE)
    if learned:
        assert not answer.abstained and answer.citations
        assert answer.citations[0].title == "Learning budget"
        assert "Ask your manager before booking a conference" in answer.answer
    else:
        assert answer.abstained and answer.citations == ()


@pytest.mark.model
def test_a_question_the_documents_do_not_answer_stays_abstained(
    budgets: tuple[Assistant, bool],
) -> None:
    assistant, _ = budgets
    answer = assistant.session().ask("What is the parental leave policy?")
    assert answer.abstained
