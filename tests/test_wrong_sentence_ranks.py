"""bench/wrong_sentence_ranks.py tells why an answer missed its expected string: the passage
holding it was not read, it was no sentence, the scorer ranked it low, or no hit held it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import wrong_sentence_ranks  # noqa: E402

PASSAGES = {
    "a": "Leave > Sick leave\n\nYou accrue four hours of sick leave per pay period. "
    "Sick leave can be used for appointments.",
    "b": "Interviews > Technical Interview — 2 Hour\n\nThe lead prepares two exercises.",
    "c": "Travel\n\nBook travel in Concur.",
    "d": "Leave > Jury duty\n\nCourt leave lasts however long you serve.",
}


def _row(expect: list[Any], query: str = "how much sick leave do I accrue?") -> dict[str, Any]:
    hits = [{"id": k, "doc": f"{k}.md", "score": 0.1, "dense": 0.5} for k in "abcd"]
    return {"standalone": query, "expect": expect, "hits": hits}


def test_each_cause_is_told_apart(minilm) -> None:  # type: ignore[no-untyped-def]
    embed = minilm.embed_documents
    ranked, ranks = wrong_sentence_ranks.cause(_row(["four hours"]), PASSAGES, embed)
    assert ranked.startswith("ranked") and len(ranks) == 1
    # only the fourth hit holds it: the answer reads the first three
    assert wrong_sentence_ranks.cause(_row(["however long you serve"]), PASSAGES, embed) == (
        "not read",
        [],
    )
    # only a heading holds it: no candidate sentence does
    assert wrong_sentence_ranks.cause(_row(["2 Hour"]), PASSAGES, embed) == ("not a sentence", [])
    assert wrong_sentence_ranks.cause(_row(["KeePassXC"]), PASSAGES, embed) == ("nowhere", [])
