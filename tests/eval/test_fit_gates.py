"""`tellmemore eval DATA --fit-gates DIR`: the learned gates fitted on a dataset's labelled
turns (behaviour.jsonl) and read back through `retrieval.gate_models` (real MiniLM)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tellmemore.answer import own_gates
from tellmemore.cli.eval import app

from .test_behaviour import HISTORY, TINY, _line

TURNS = [
    ("a", "Can I get a refund for it?", "ANSWERABLE", HISTORY),
    ("u", "What is the capital of Mongolia?", "UNANSWERABLE", HISTORY),  # the floor abstains
    ("s", "When do the shops close?", "UNDERSPECIFIED", []),
    ("i", "How much does theft insurance cost?", "UNANSWERABLE", []),  # the floor answers
    ("h", "Are helmets free?", "ANSWERABLE", []),
]


@pytest.fixture
def labelled(tmp_path: Path) -> Path:
    root = tmp_path / "tiny"
    shutil.copytree(TINY, root)
    lines = [_line(task, message, label, history) for task, message, label, history in TURNS]
    (root / "behaviour.jsonl").write_text("\n".join(lines) + "\n")
    return root


def _eval(data: Path, tmp_path: Path, *extra: str, env: dict[str, str] | None = None) -> dict:  # type: ignore[type-arg]
    result = CliRunner().invoke(
        app,
        [str(data), "--strategies", "raw", "--retrievers", "bm25", "--cache",
         str(tmp_path / "cache"), "--out", str(tmp_path / "out"), "--json", *extra],
        env=env,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    details = json.loads((tmp_path / "out" / "details.json").read_text())
    return {"gates": json.loads(result.stdout).get("gates"), **details}


@pytest.mark.model
def test_gates_fitted_on_labelled_turns_are_written_and_read_back(
    labelled: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Five labelled turns (the minimums lowered for a tiny set): the floor answered four,
    one unanswerable ("theft insurance cost") among them, so the abstain gate is fitted and,
    read back, abstains on it too; the floor's one abstention is no answerable turn, so the
    override gate is not fitted and the shipped one stays."""
    monkeypatch.setattr(own_gates, "MIN_POSITIVES", 1)
    monkeypatch.setattr(own_gates, "MIN_NEGATIVES", 2)
    gates = tmp_path / "gates"
    shipped = _eval(labelled, tmp_path, "--fit-gates", str(gates))
    assert shipped["gates"]["abstain"].startswith(f"{gates / 'abstain_gate_model.json'}: fitted")
    assert shipped["gates"]["override"].startswith("not fitted: 0 ANSWERABLE/PARTIAL and 1 ")
    assert "\n  5-fold on your turns: acts on " in shipped["gates"]["abstain"]
    assert not (gates / "abstain_override_model.json").exists()
    fitted = json.loads((gates / "abstain_gate_model.json").read_text())
    assert fitted["fitted_on"].startswith("4 labelled turns of tiny (1 UNANSWERABLE)")

    def unanswerable_abstained(report: dict) -> int:  # type: ignore[type-arg]
        behaviour = report["datasets"][0]["behaviour"]
        return int(behaviour["by_label"]["UNANSWERABLE"]["abstained"])

    assert unanswerable_abstained(shipped) == 1  # Mongolia only
    own = _eval(labelled, tmp_path, env={"TELLMEMORE_RETRIEVAL__GATE_MODELS": str(gates)})
    assert unanswerable_abstained(own) == 2
    assert own["datasets"][0]["behaviour"]["by_label"]["ANSWERABLE"]["abstained"] == 0


def test_fit_gates_without_labelled_turns_says_so(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        [str(TINY), "--strategies", "raw", "--retrievers", "bm25", "--cache",
         str(tmp_path / "cache"), "--out", str(tmp_path / "out"), "--limit", "1",
         "--fit-gates", str(tmp_path / "gates")],
    )  # fmt: skip
    assert result.exit_code != 0
    assert "no dataset has a behaviour.jsonl" in str(result.exception) + result.output


def test_a_gates_folder_it_cannot_write_stops_the_run_before_it_starts(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = CliRunner().invoke(
        app,
        [str(TINY), "--strategies", "raw", "--retrievers", "bm25", "--cache",
         str(tmp_path / "cache"), "--out", str(tmp_path / "out"),
         "--fit-gates", str(blocker / "gates")],
    )  # fmt: skip
    assert result.exit_code != 0
    assert "--fit-gates: cannot write to" in str(result.exception) + result.output
    assert not (tmp_path / "out").exists()  # nothing ran
