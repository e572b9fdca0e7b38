"""The labelled handbook conversations are well formed and their labels point at real text.

bench/handbook_trial.py judges the system against these labels; a label that names a missing
file, or an `expect` string the gold files do not hold, would blame the system for the
label's fault.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "bench" / "data" / "clef_handbook"
CONVERSATIONS = ROOT / "bench" / "data" / "clef_handbook_conversations.jsonl"
LABELS = {"ANSWERABLE", "UNANSWERABLE", "UNDERSPECIFIED"}
FIELDS = {"message", "answerability", "gold", "expect", "rewrite", "binding", "check", "note"}


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def _conversations() -> list[dict]:  # type: ignore[type-arg]
    lines = CONVERSATIONS.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


CASES = [(c["id"], i, t) for c in _conversations() for i, t in enumerate(c["turns"])]


def test_conversations_have_unique_ids_and_a_sensible_mix() -> None:
    ids = [c["id"] for c in _conversations()]
    assert len(ids) == len(set(ids))
    labels = [t["answerability"] for _, _, t in CASES]
    assert 90 <= len(labels) <= 130
    assert 0.08 <= labels.count("UNANSWERABLE") / len(labels) <= 0.2
    assert 0.05 <= labels.count("UNDERSPECIFIED") / len(labels) <= 0.15


@pytest.mark.parametrize(("conversation", "index", "turn"), CASES)
def test_turn_is_well_formed(conversation: str, index: int, turn: dict) -> None:  # type: ignore[type-arg]
    assert set(turn) <= FIELDS, set(turn) - FIELDS
    assert turn["message"].strip()
    assert turn["answerability"] in LABELS
    for path in turn["gold"]:
        assert (CORPUS / path).is_file(), path
    if turn["answerability"] == "ANSWERABLE":
        assert turn["gold"], "an answerable turn names the file that answers it"
        text = _squash(" ".join((CORPUS / p).read_text(encoding="utf-8") for p in turn["gold"]))
        for want in turn["expect"]:
            options = want if isinstance(want, list) else [want]
            assert any(_squash(o) in text for o in options), options
    else:
        assert not turn["expect"]
    if index == 0:
        assert "binding" not in turn, "a first turn has nothing to bind to"
    for referent, antecedent in turn.get("binding", {}).items():
        assert referent.strip() and antecedent.strip()
    assert turn.get("check") in (None, "shorter", "new_sentences")


def _trial(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """The bench module, imported with bench/ on the path for this test only."""
    import importlib

    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    return importlib.import_module("handbook_trial")


def _row(message: str, reply: str, **over: object) -> dict:  # type: ignore[type-arg]
    row = {
        "conversation": "c",
        "turn": 1,
        "message": message,
        "label": "ANSWERABLE",
        "rewrite": None,
        "gold": ["Benefits and Perks/Sabbatical.md"],
        "expect": ["12"],
        "labelled_binding": None,
        "check": None,
        "action": "answer",
        "standalone": message,
        "bindings": {},
        "cited": ["Benefits and Perks/Sabbatical.md"],
        "hits": [{"id": "p1", "doc": "Benefits and Perks/Sabbatical.md"}],
        "reply": reply,
    }
    return {**row, **over}


PASSAGES = {"p1": "Employees take a one-quarter (12 contiguous weeks) paid sabbatical."}


def test_trial_judge_puts_each_failure_in_its_category(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bench's verdicts on hand-made outcomes: one per category it can give."""
    trial = _trial(monkeypatch)

    def verdict(row: dict, shown: tuple[str, ...] = ()) -> str | None:  # type: ignore[type-arg]
        return trial.judge(row, list(shown), PASSAGES)["category"]

    assert verdict(_row("How long is it?", "It is 12 contiguous weeks.")) is None
    assert verdict(_row("How long?", "It takes a while.")) == "right passage, wrong sentences"
    assert (
        verdict(_row("How long?", "It takes a while.", hits=[])) == "right passage, wrong sentences"
    )
    assert verdict(_row("How long?", "12 weeks.", cited=["Policy Changes.md"])) == (
        "wrong/missing retrieval"
    )
    assert verdict(_row("How long?", "I found nothing.", action="abstain")) == "false abstention"
    assert verdict(_row("Which?", "Which one?", action="ask")) == "false ask-back"
    bound = {"rewrite": "Is the sabbatical paid?", "labelled_binding": {"it": "sabbatical"}}
    assert verdict(_row("is it paid?", "12 weeks paid.", standalone="is it paid?", **bound)) is None
    wrong = _row(
        "is it paid?", "12 weeks paid.", standalone="is 12 weeks paid?", bindings={"it": "12 weeks"}
    )
    assert verdict({**wrong, **bound}) == "wrong binding"
    right = _row("is it paid?", "12 weeks.", standalone="is the sabbatical paid?", **bound)
    assert trial.judge(right, [], PASSAGES)["binding"] == "right"
    assert (
        verdict(_row("Gym?", "A stipend.", label="UNANSWERABLE", expect=[])) == "missed abstention"
    )
    assert (
        verdict(_row("Gym?", "Nothing.", label="UNANSWERABLE", expect=[], action="abstain")) is None
    )
    assert verdict(_row("Cap?", "A cap.", label="UNDERSPECIFIED", expect=[])) == "missed ask-back"
    shorter = _row("make that shorter", "12 weeks, paid.", check="shorter", expect=[])
    assert verdict(shorter, ("It is 12 contiguous weeks, paid, every 5 years.",)) is None
    assert verdict(shorter, ("12 weeks.",)) == "answer edit"
    assert verdict(_row("How long?", "**12** weeks")) == "display"
