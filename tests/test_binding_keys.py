"""bench/binding_keys.py audits the bindings shown to the user (issue 20, item 7); `--quiet`
must never print a held-out turn's text."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import binding_keys as BK  # noqa: E402


def test_a_whole_message_around_a_cue_and_a_conjunction_are_faults() -> None:
    assert BK.key_flaws("and if I miss that?", "and if I miss that") == [
        "conjunction",
        "whole message around a cue",
    ]
    assert BK.key_flaws("tell me more about the third one", "tell me more about the third one")
    assert BK.key_flaws("and if I miss that?", "that") == []
    assert BK.key_flaws("tell me more about the third one", "the third one") == []
    assert BK.key_flaws("what about Sundays?", "scope") == ["label"]
    assert BK.key_flaws("Sollutions", "Solutions") == []  # the typo the speller fixed


def test_a_wider_cue_around_a_referent_keyed_on_its_own_is_no_fault() -> None:
    keys = {"those hours": "core meeting hours", "outside those hours": "q?"}
    assert BK.key_flaws("and outside those hours?", "outside those hours", keys) == []
    assert BK.key_flaws("and outside those hours?", "outside those hours") == [
        "longer than its referent"
    ]


def test_links_markup_and_padding_values() -> None:
    assert BK.value_flaws("https") == ["url"]
    assert BK.value_flaws("<b>plan</b>") == ["markup"]
    assert BK.value_flaws("Score Agreement level, 0") == ["padding"]
    assert BK.value_flaws("Enterprise escalation") == []


def test_quiet_prints_no_turn_of_a_held_out_corpus(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    row = {"mode": BK.MODE, "message": "and if I miss that?"}
    row["bindings"] = {"and if I miss that": "When do I sign up?"}
    trial = tmp_path / "t.json"
    trial.write_text(json.dumps({"rows": [row]}))
    shown = BK.audit(BK.trial_rows("held", trial), quiet={"held"}, show=10)
    assert "miss" not in shown and "sign up" not in shown
    assert "| held | 1 | 0 | 1 | 1 |" in shown
