"""bench/trial_answers.py rebuilds a trial's hits from what the trial recorded, so a replay
quotes from the same passages and judges the way bench/handbook_trial.py judges."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import trial_answers  # noqa: E402

from tellmemore.answer import extractive  # noqa: E402


def test_hits_are_rebuilt_with_their_heading_and_cosine() -> None:
    passages = {
        "a": "Leave > Sick leave\n\nYou accrue four hours of sick leave per pay period.",
        "b": "Travel\n\nBook travel in Concur.",
    }
    row = {
        "hits": [
            {"id": "a", "doc": "leave.md", "score": 0.03, "dense": 0.7},
            {"id": "b", "doc": "travel.md", "score": 0.02, "dense": None},
        ]
    }
    hits = trial_answers.hits_of(row, passages)
    assert [h.chunk.header for h in hits] == ["Leave > Sick leave", "Travel"]
    assert hits[0].chunk.section == ("Sick leave",) and hits[1].chunk.section == ()
    assert [h.dense for h in hits] == [0.7, None]
    # the heading line is no sentence of the answer
    quoted = extractive.best_sentences("how much sick leave do I accrue?", hits)
    assert quoted[0].sentence.startswith("You accrue four hours")


def test_expect_strings_are_judged_as_the_trial_judges_them() -> None:
    answer = "You accrue four  hours\nof sick leave."
    assert trial_answers.holds(answer, ["Four hours of sick leave"])
    assert trial_answers.holds(answer, [["13 days", "four hours"]])
    assert not trial_answers.holds(answer, ["four hours", "13 days"])
