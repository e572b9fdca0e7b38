"""Replay a handbook trial's conversations through the resolver alone, in seconds.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/binding_replay.py TRIAL.json [--quiet]

`bench/handbook_trial.py` keeps every turn's message and the reply the system gave. Here
each conversation is asked again of the resolver only (`TurnRunner._resolve`: the gate,
the resolver and the stored resolutions of the earlier turns, as a stored session reads
them), with the trial's replies as the assistant turns, on a copy of the corpus's index
(ingested once into bench/.cache/binding_replay/<corpus>). Each labelled binding is judged
as the trial judges it. So a resolver change is measured on every labelled follow-up without
retrieving or answering again. The replay reproduces the trial's verdicts on Clef, TTS and
Sourcegraph exactly, except where a stored answer's list items decide (they are not in the
trial). Prints the counts, and with no `--quiet` the turns whose verdict differs from the
trial's (a held-out corpus, PostHog or GitLab, is always quiet).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from handbook_corpora import corpus_for, held_out_trial  # noqa: E402
from handbook_trial import _binding, _resolution  # noqa: E402

from tellmemore.assistant import Assistant  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.turn import TurnRequest  # noqa: E402
from tellmemore.types import Resolution, Turn  # noqa: E402

CACHE = ROOT / "bench" / ".cache" / "binding_replay"


def project_for(corpus: str) -> Path:
    """The corpus ingested once (default settings), kept under bench/.cache."""
    project = CACHE / corpus
    if not (project / "index.db").exists():
        assistant = Assistant.open(project, settings=Settings())
        assistant.ingest([corpus_for(corpus).root])
        assistant.close()
    return project


def resolved_turns(trial: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any], Resolution]]:
    """Each turn of the trial's conversations, in order, with its resolution when the resolver
    alone runs the conversation again (the trial's replies as the assistant turns), on a copy
    of the corpus's index."""
    for _, cid, row, res, _ in replayed(trial, Settings()):
        yield cid, row, res


def replayed(
    trial: dict[str, Any], settings: Settings
) -> Iterator[tuple[Assistant, str, dict[str, Any], Resolution, list[Turn]]]:
    """`resolved_turns` with `settings`, also giving the assistant asked and each turn's
    history before it (a bench that reads the index at a turn, `gate_replay.py`)."""
    corpus = str(trial["corpus"]["name"] if isinstance(trial["corpus"], dict) else trial["corpus"])
    work = Path(tempfile.mkdtemp(prefix="binding-replay-")) / "project"
    shutil.copytree(project_for(corpus), work)
    assistant = Assistant.open(work, settings=settings)
    conversations: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in trial["rows"]:
        conversations[row["conversation"]].append(row)
    try:
        for cid, rows in conversations.items():
            history: list[Turn] = []
            for row in sorted(rows, key=lambda r: r["turn"]):
                req = TurnRequest(message=row["message"], history=history)
                res, _ = assistant.runner._resolve(row["message"], list(history), req)
                yield assistant, cid, row, res, list(history)
                history += [
                    Turn("user", row["message"], resolution=res),
                    Turn("assistant", row["reply"]),
                ]
    finally:
        assistant.close()
        shutil.rmtree(work.parent, ignore_errors=True)


def replay(trial: dict[str, Any]) -> tuple[Counter[str], list[str]]:
    """The labelled bindings' verdicts (and, per follow-up with a rewrite, its resolution)
    when the resolver alone runs each conversation again; the turns that changed."""
    counts: Counter[str] = Counter()
    changed: list[str] = []
    for cid, row, res in resolved_turns(trial):
        new = {**row, "standalone": res.query, "bindings": dict(res.bindings)}
        if row["labelled_binding"]:
            verdict = _binding(new)
            counts[f"binding {verdict}"] += 1
            if verdict != _binding(row):
                changed.append(
                    f"{cid}.{row['turn']}: {_binding(row)} -> {verdict} | "
                    f"{row['message']} | {res.query} | {dict(res.bindings)}"
                )
        if row["rewrite"] and not row["check"]:
            counts[f"resolution {_resolution(new)}"] += 1
    return counts, changed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trial", type=Path)
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    trial = json.loads(args.trial.read_text(encoding="utf-8"))
    counts, changed = replay(trial)
    print(f"{args.trial.name}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    print(f"labelled bindings whose verdict differs from the trial's: {len(changed)}")
    if not (args.quiet or held_out_trial(trial)):
        print("\n".join(changed))


if __name__ == "__main__":
    main()
