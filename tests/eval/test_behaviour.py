"""`tellmemore eval` on a dataset with a behaviour.jsonl (issue 22): every labelled turn
run as a real turn, abstain and ask back reported by label with precision and recall."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tellmemore.config import Settings
from tellmemore.errors import DatasetError
from tellmemore.eval.behaviour import (
    BehaviourResult,
    BehaviourTurn,
    load_behaviour,
    summarise,
)
from tellmemore.eval.report import write_report
from tellmemore.eval.runner import EvalOptions, run_eval
from tellmemore.testing.fakes import FakeEmbedder

TINY = Path(__file__).parents[1] / "data" / "eval" / "tiny"
HISTORY = [
    {"role": "user", "content": "How much is the monthly pass?"},
    {"role": "assistant", "content": "The monthly pass costs 30 euros."},
]


def _line(task: str, message: str, label: str, history: list[dict[str, str]]) -> str:
    row = {
        "task_id": task,
        "conversation_id": task,
        "turn": 1 + len(history) // 2,
        "history": history,
        "message": message,
        "answerability": [label],
    }
    return json.dumps(row)


@pytest.fixture
def labelled(tmp_path: Path) -> Path:
    root = tmp_path / "tiny"
    shutil.copytree(TINY, root)
    lines = [
        _line("a", "Can I get a refund for it?", "ANSWERABLE", HISTORY),
        _line("u", "What is the capital of Mongolia?", "UNANSWERABLE", HISTORY),
        _line("s", "When do the shops close?", "UNDERSPECIFIED", []),
    ]
    (root / "behaviour.jsonl").write_text("\n".join(lines) + "\n")
    return root


def test_the_report_gives_abstain_and_ask_back_by_label(labelled: Path, tmp_path: Path) -> None:
    options = EvalOptions(strategies=("raw",), cache_dir=tmp_path / "cache")
    run = run_eval([labelled], settings=Settings.load(), options=options, embedder=FakeEmbedder())
    behaviour = run.runs[0].behaviour
    assert behaviour is not None and behaviour["turns"] == 3
    by = behaviour["by_label"]
    assert {k: v["turns"] for k, v in by.items()} == {
        "ANSWERABLE": 1,
        "PARTIAL": 0,
        "UNANSWERABLE": 1,
        "UNDERSPECIFIED": 1,
    }
    assert by["UNANSWERABLE"]["abstained"] == 1  # "Mongolia" is in no passage
    assert by["ANSWERABLE"]["abstained"] == 0
    _, paths = write_report(run, tmp_path / "out", command="tellmemore eval tiny")
    md = paths["markdown"].read_text()
    assert "## Abstain and ask back (behaviour.jsonl)" in md
    assert "| tiny | UNANSWERABLE | 1 | 1.000 |" in md
    details = json.loads(paths["details"].read_text())
    assert details["datasets"][0]["behaviour"] == behaviour


def test_without_a_behaviour_file_there_is_no_section(tmp_path: Path) -> None:
    options = EvalOptions(strategies=("raw",), cache_dir=tmp_path / "cache", limit=2)
    run = run_eval([TINY], settings=Settings.load(), options=options, embedder=FakeEmbedder())
    assert run.runs[0].behaviour is None


def test_precision_and_recall_count_by_label() -> None:
    def r(label: str, abstained: bool, asked: bool) -> BehaviourResult:
        return BehaviourResult(BehaviourTurn("t", 1, (), "m", label, 1), abstained, asked, "")

    results = [
        r("UNANSWERABLE", True, False),
        r("UNANSWERABLE", False, False),
        r("ANSWERABLE", True, False),
        r("PARTIAL", False, False),
        r("UNDERSPECIFIED", False, True),
        r("ANSWERABLE", False, True),
    ]
    s = summarise(results)
    assert s["abstain"] == {
        "label": "UNANSWERABLE",
        "acted": 2,
        "precision": 0.5,
        "recall": 0.5,
        "false_rate": pytest.approx(1 / 3, abs=1e-4),
    }
    assert s["ask_back"]["precision"] == 0.5 and s["ask_back"]["recall"] == 1.0
    assert s["ask_back"]["false_rate"] == 0.2


def test_a_bad_label_names_the_file_the_line_and_the_value(tmp_path: Path) -> None:
    (tmp_path / "behaviour.jsonl").write_text(
        _line("a", "hi?", "ANSWERABLE", []) + "\n" + _line("b", "x?", "MAYBE", []) + "\n"
    )
    with pytest.raises(DatasetError, match=r"behaviour.jsonl:2: .*'MAYBE'"):
        load_behaviour(tmp_path)
