"""The learned gates fitted on a user's own labelled conversations (`answer.own_gates`,
`retrieval.gate_models`, `tellmemore eval --fit-gates`)."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tellmemore.answer import abstain_gate, own_gates
from tellmemore.answer.own_gates import GateRow, cross_check, fit_gates, own_gate, write_gates
from tellmemore.answer.scorer import Scorer
from tellmemore.errors import ConfigError

from .conftest import budgets_assistant

SIGNALS = sorted({f for spec in own_gates.GATES for f in spec.features})
ANSWERED = "How much is the learning budget per year?"
"""learning.md: "a learning budget of $1,000 per year"; the default answers it."""


def _rows(label: str, floor: str, n: int, top_cosine: float, seed: int) -> list[GateRow]:
    """`n` turns whose signals are noise but for `top_cosine` (and two documents, so the
    ask gate reads them too)."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n):
        signals = {f: float(rng.uniform(0, 1)) for f in SIGNALS}
        signals.update(top_cosine=top_cosine + float(rng.normal(0, 0.05)), documents=2.0)
        rows.append(GateRow(label, floor, signals))
    return rows


def test_each_gate_is_fitted_on_the_turns_it_decides() -> None:
    """Unanswerable turns the floor answered, with a weak best match: the abstain gate learns
    that a weak match means abstain. The floor's abstentions are not its turns, and with two
    answerable ones among them the override gate has too few to fit."""
    rows = [
        *_rows("UNANSWERABLE", "answer", 12, 0.2, 1),
        *_rows("ANSWERABLE", "answer", 60, 0.8, 2),
        *_rows("ANSWERABLE", "abstain", 2, 0.3, 3),
        *_rows("UNANSWERABLE", "", 30, 0.1, 4),  # a rule decided: no gate reads these
    ]
    fitted = fit_gates(rows, "my conversations")
    gate = fitted["abstain"]
    assert isinstance(gate, Scorer) and gate.features == abstain_gate.FEATURES
    weight = dict(zip(gate.features, gate.weights, strict=True))
    assert weight["top_cosine"] < 0
    assert "72 labelled turns of my conversations (12 UNANSWERABLE)" in gate.fitted_on
    assert gate.decide(rows[0].signals) and not gate.decide(rows[20].signals)
    assert fitted["override"] == (
        "not fitted: 2 ANSWERABLE/PARTIAL and 0 other turns it decides (needs 5 and 20); "
        "the shipped gate stays"
    )
    assert isinstance(fitted["ask"], str) and fitted["ask"].startswith("not fitted: 0 ")


def test_the_cross_check_judges_each_fold_with_a_gate_fitted_on_the_others() -> None:
    """Separable turns: each fold's gate, fitted without it, still finds its unanswerable
    turns; a gate not fitted gets no check. The bundled gate's counts on the same turns stand
    beside it."""
    rows = [
        *_rows("UNANSWERABLE", "answer", 12, 0.2, 1),
        *_rows("ANSWERABLE", "answer", 60, 0.8, 2),
    ]
    fitted = fit_gates(rows, "x")
    checks = cross_check(rows, fitted)
    assert set(checks) == {"abstain"}  # ask and override were not fitted
    held_out = re.search(r"acts on (\d+)/12 UNANSWERABLE and (\d+)/60 others", checks["abstain"])
    assert held_out is not None
    assert int(held_out[1]) >= 10 and int(held_out[2]) <= 1
    assert re.search(r"the bundled gate on the same turns: \d+/12 UNANSWERABLE", checks["abstain"])


def test_each_fold_is_judged_by_a_gate_that_never_saw_it() -> None:
    """All the unanswerable turns fall in one fold: the gate fitted without that fold has
    none to learn from, so held out it finds none of them, where the gate fitted on every
    turn finds them all."""
    positives = iter(_rows("UNANSWERABLE", "answer", 10, 0.2, 1))
    negatives = iter(_rows("ANSWERABLE", "answer", 50, 0.8, 2))
    rows = [next(positives) if i % 5 == 0 and i < 50 else next(negatives) for i in range(60)]
    gate = fit_gates(rows, "x")["abstain"]
    assert isinstance(gate, Scorer)
    assert sum(gate.decide(r.signals) for r in rows if r.label == "UNANSWERABLE") == 10
    assert "acts on 0/10 UNANSWERABLE" in cross_check(rows, {"abstain": gate})["abstain"]


def test_the_ask_gate_reads_only_turns_with_two_documents_to_offer() -> None:
    one_document = [
        replace(r, signals={**r.signals, "documents": 1.0})
        for r in _rows("UNDERSPECIFIED", "answer", 10, 0.3, 5)
    ]
    fitted = fit_gates([*one_document, *_rows("ANSWERABLE", "answer", 30, 0.8, 6)], "x")
    assert fitted["ask"] == (
        "not fitted: 0 UNDERSPECIFIED and 30 other turns it decides (needs 5 and 20); "
        "the shipped gate stays"
    )


def test_written_gates_are_read_back_and_a_gate_not_fitted_leaves_no_file(tmp_path: Path) -> None:
    rows = [
        *_rows("UNANSWERABLE", "answer", 12, 0.2, 1),
        *_rows("ANSWERABLE", "answer", 60, 0.8, 2),
    ]
    fitted = fit_gates(rows, "x")
    stale = tmp_path / "ask_gate_model.json"
    stale.write_text("{}")  # an earlier fit's ask gate: this fit has none
    written = write_gates(fitted, tmp_path)
    assert written["abstain"].startswith(f"{tmp_path / 'abstain_gate_model.json'}: fitted on 72 ")
    # 60 answerable turns cannot measure a 1% false rate: the fit says so
    assert "only 60 other turns, fewer than the 100 that measure a 0.01" in written["abstain"]
    assert written["ask"].startswith("not fitted") and not stale.exists()
    gate = fitted["abstain"]
    assert isinstance(gate, Scorer)
    assert own_gate(str(tmp_path), "abstain") == Scorer.from_json(gate.to_json())
    assert own_gate(str(tmp_path), "ask") is None  # the shipped one decides
    assert own_gate("", "abstain") is None


def test_a_folder_that_is_not_a_fit_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"gate_models: .*nowhere' is not a folder"):
        own_gate(str(tmp_path / "nowhere"), "abstain")
    (tmp_path / "abstain_gate_model.json").write_text("{not json")
    with pytest.raises(ConfigError, match="is not a gate's weights"):
        own_gate(str(tmp_path), "abstain")
    other = replace(abstain_gate.shipped(), features=("top_cosine",), weights=(1.0,),
                    mean=(0.0,), scale=(1.0,))  # fmt: skip
    (tmp_path / "abstain_gate_model.json").write_text(json.dumps(other.to_json()))
    with pytest.raises(ConfigError, match="fit it again with this version"):
        own_gate(str(tmp_path), "abstain")


@pytest.mark.model
def test_a_turn_reads_the_gate_fitted_into_the_folder(
    budgets_project: Path, tmp_path: Path, minilm: Any
) -> None:
    """The shipped gate answers the learning budget; a gate fitted elsewhere that says
    abstain on every answered turn (threshold 0) withholds it, and the trace says so."""
    folder = tmp_path / "gates"
    folder.mkdir()
    always = replace(abstain_gate.shipped(), threshold=0.0)
    (folder / "abstain_gate_model.json").write_text(json.dumps(always.to_json()))
    shipped = budgets_assistant(budgets_project, tmp_path / "a", minilm)
    own = budgets_assistant(budgets_project, tmp_path / "b", minilm, gate_models=str(folder))
    try:
        assert not shipped.session().ask(ANSWERED).abstained
        withheld = own.session().ask(ANSWERED)
        assert withheld.abstained
        assert own.trace(withheld.trace_id)["decided_by"] == "learned_abstain"
    finally:
        shipped.close()
        own.close()
