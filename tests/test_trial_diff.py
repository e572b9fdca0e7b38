"""bench/trial_diff.py compares two handbook trials; `--quiet` must never print a turn's text
(it is how a held-out corpus's trials are compared)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import trial_diff  # noqa: E402


def _trial(path: Path, categories: list[str | None]) -> Path:
    rows = [
        {
            "conversation": "leave",
            "turn": i,
            "mode": "floor (default)",
            "label": "ANSWERABLE",
            "category": c,
            "message": f"secret question {i}",
            "standalone": f"secret query {i}",
            "bindings": {},
        }
        for i, c in enumerate(categories)
    ]
    path.write_text(json.dumps({"rows": rows}), encoding="utf-8")
    return path


def test_counts_and_changed_turns(tmp_path: Path) -> None:
    a = trial_diff.load(
        _trial(tmp_path / "a.json", [None, "wrong binding", None]), "floor (default)"
    )
    b = trial_diff.load(
        _trial(tmp_path / "b.json", [None, None, "right passage, wrong sentences"]),
        "floor (default)",
    )
    full = trial_diff.report(a, b, quiet=False)
    assert full.splitlines()[0] == "fully right (ANSWERABLE): 2/3 -> 2/3"
    assert "wrong binding                              1 ->   0" in full
    assert "secret question 1" in full and "secret question 2" in full
    quiet = trial_diff.report(a, b, quiet=True)
    assert "secret" not in quiet
    assert "turns whose category changed: 2 (1 now right, 1 no longer)" in quiet


def test_a_mode_the_trial_did_not_run_is_named(tmp_path: Path) -> None:
    path = _trial(tmp_path / "a.json", [None])
    with pytest.raises(SystemExit, match="floor \\(default\\)"):
        trial_diff.load(path, "judged")
