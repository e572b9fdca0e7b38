"""bench/turn_answers.py's `--set` / `--const`: an override reaches the Settings the turns
run with, and a misspelt key fails instead of silently running the defaults."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import turn_answers  # noqa: E402

from tellmemore.conversation import constants as C  # noqa: E402


def test_set_reaches_settings() -> None:
    s = turn_answers.settings_with(
        [
            "retrieval.quote_headed=true",
            "retrieval.abstain_model=gold_removal",
            "retrieval.min_value_share=0.5",
            "retrieval.spread_gap_single=null",
            "conversation.ask_coordinated=true",
        ]
    )
    assert s.retrieval.quote_headed is True
    assert s.retrieval.abstain_model == "gold_removal"  # not JSON: kept as the string
    assert s.retrieval.min_value_share == 0.5
    assert s.retrieval.spread_gap_single is None
    assert s.conversation.ask_coordinated is True
    assert s.retrieval.k == turn_answers.Settings().retrieval.k  # the rest stays default


def test_no_set_is_the_defaults() -> None:
    assert turn_answers.settings_with([]) == turn_answers.Settings()


@pytest.mark.parametrize(
    "item",
    ["retrieval.quote_heded=true", "nosection.k=3", "quote_headed=true", "retrieval.k"],
)
def test_unknown_or_malformed_key_fails(item: str) -> None:
    with pytest.raises(ValueError):
        turn_answers.settings_with([item])


def test_wrong_type_fails() -> None:
    with pytest.raises(ValueError):
        turn_answers.settings_with(["retrieval.k=many"])


def test_const_sets_and_unknown_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(C, "TERM_CARRY", C.TERM_CARRY)  # restored after the test
    assert turn_answers.apply_constants(["TERM_CARRY=true"]) == {"TERM_CARRY": True}
    assert C.TERM_CARRY is True
    with pytest.raises(ValueError):
        turn_answers.apply_constants(["TERM_CARY=true"])
