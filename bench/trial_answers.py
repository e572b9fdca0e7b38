"""Replay a handbook trial's answers with this checkout's sentence choice, in seconds.

    .venv/bin/python bench/trial_answers.py TRIAL.json [--vectors FILE] [--quiet]

`bench/handbook_trial.py` keeps, for every turn, the standalone query, its top-5 hits (id,
dense cosine) and every passage's text. Here each ANSWERABLE turn with `expect` strings
(not "tell me more", whose answer depends on what was shown) is answered again from those
same hits by `extractive.best_sentences` with the shipped defaults, and judged as the trial
judges it (every `expect` string in the answer). So a change of sentence choice is measured
over the whole trial, every turn where the conversation layer and retrieval did what they
did, without re-running them. Prints the replayed count against the trial's own, and with
no `--quiet` the turns that changed (a held-out corpus, PostHog or GitLab, is always quiet).
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import re
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path[:0] = [os.getcwd(), str(Path(__file__).resolve().parent)]

from handbook_corpora import held_out_trial  # noqa: E402
from sentence_screen import CachedEmbed, shipped_sentences  # noqa: E402

from tellmemore.answer import edits  # noqa: E402
from tellmemore.types import Chunk, Hit  # noqa: E402

MODE = "floor (default)"


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def holds(text: str, expect: list[Any]) -> bool:
    """Every `expect` string (or one of its alternatives) in `text`, as the trial judges."""
    low = _squash(text)
    return all(any(_squash(o) in low for o in (e if isinstance(e, list) else [e])) for e in expect)


def hits_of(row: dict[str, Any], passages: dict[str, str]) -> list[Hit]:
    """The turn's hits rebuilt from the trial's record (header line, text, dense cosine)."""
    out = []
    for i, h in enumerate(row["hits"]):
        text = passages.get(h["id"], "")
        header = text.split("\n", 1)[0]
        title, *section = header.split(" > ")
        chunk = Chunk(id=h["id"], doc_id=h["doc"], text=text, title=title, section=tuple(section))
        out.append(Hit(chunk=chunk, score=h["score"], rank=i + 1, dense=h.get("dense")))
    return out


def answerable_rows(trial: dict[str, Any]) -> list[dict[str, Any]]:
    """The trial's turns an answer's sentence choice decides: default mode, ANSWERABLE with
    `expect` strings, answered (no abstention or ask-back), not "tell me more", with hits."""
    return [
        row
        for row in trial["rows"]
        if row["mode"] == MODE
        and row["label"] == "ANSWERABLE"
        and row["expect"]
        and row["action"] == "answer"
        and not edits.asks_for_more(row["message"])
        and row["hits"]
    ]


def replay(row: dict[str, Any], passages: dict[str, str], embed: Any, scorer: Any = None) -> str:
    """The answer `extractive.best_sentences` gives `row`'s standalone query over its kept
    hits, with the shipped settings and `scorer` (None: the shipped weights)."""
    return " ".join(shipped_sentences(row["standalone"], hits_of(row, passages), embed, scorer))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("trial", type=Path)
    parser.add_argument("--vectors", type=Path, help="a pickle of embedded texts, kept")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    trial = json.loads(args.trial.read_text(encoding="utf-8"))
    quiet = args.quiet or held_out_trial(trial)  # a held-out corpus: counts only
    passages = trial["passages"]
    vectors = (
        pickle.loads(args.vectors.read_bytes()) if args.vectors and args.vectors.exists() else {}
    )
    embed = CachedEmbed(vectors)
    was = now = n = 0
    changed = []
    for row in answerable_rows(trial):
        before, after = bool(row["expect_ok"]), holds(replay(row, passages, embed), row["expect"])
        n += 1
        was += before
        now += after
        if before != after:
            changed.append(f"{row['conversation']}.{row['turn']}: {before} -> {after}")
    if args.vectors:
        args.vectors.write_bytes(pickle.dumps(vectors))
    print(f"{args.trial.name}: every expect string {was} (trial) -> {now} (replayed) of {n}")
    if not quiet:
        print("\n".join(changed))


if __name__ == "__main__":
    main()
