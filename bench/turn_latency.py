"""Time per turn, by stage, replaying a handbook's conversations as a served process would.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/turn_latency.py [--corpus clef|tts|DIR] [--label NAME]

Ingests the corpus into a fresh project, then, in a fresh process (as `tellmemore serve`
starts: the index opened, no runtime loaded), runs every bundled conversation through one
stored session each (`Assistant.session().ask`), in order. Reports, for first turns and
follow-ups apart, the median and 95th percentile of each stage of `Answer.latency_ms`
(wall ms, as the turn measures it), the CPU time per turn (all threads), the slowest turn,
whether torch was loaded by a turn, and the process's peak resident memory. Appends a row
to bench/results/turn_latency.md. Run it on a quiet machine: wall time includes the
neighbours.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

OUT = ROOT / "bench" / "results" / "turn_latency.md"
CORPORA = {
    "clef": ROOT / "bench" / "data" / "clef_handbook",
    "tts": ROOT / "bench" / "data" / "tts_handbook",
}
STAGES = ("total", "resolve", "retrieve", "answer")


def replay(project: Path, conversations: Path) -> dict[str, Any]:
    """Every conversation through a stored session, in this (fresh) process."""
    from tellmemore.assistant import Assistant
    from tellmemore.config import Settings

    assistant = Assistant.open(project, settings=Settings())
    turns: dict[str, list[dict[str, float]]] = {"first": [], "follow-up": []}
    slowest = (0.0, "")
    torch_at = ""
    cpu = time.process_time()
    for line in conversations.read_text(encoding="utf-8").splitlines():
        conversation = json.loads(line)
        session = assistant.session()
        for i, turn in enumerate(conversation["turns"]):
            answer = session.ask(turn["message"])
            stages = answer.latency_ms.to_dict()
            turns["first" if i == 0 else "follow-up"].append(stages)
            if stages["total"] > slowest[0]:
                slowest = (stages["total"], f"{conversation['id']}.{i}")
            if not torch_at and "torch" in sys.modules:
                torch_at = f"{conversation['id']}.{i}"
    n = sum(len(v) for v in turns.values())
    assistant.close()
    return {
        "turns": turns,
        "cpu_ms_per_turn": (time.process_time() - cpu) / max(n, 1) * 1000,
        "slowest": slowest,
        "torch_loaded_at": torch_at,
        "peak_rss_mb": _peak_rss_mb(),
    }


def _peak_rss_mb() -> float:
    """This process image's peak resident memory (VmHWM: unlike `ru_maxrss`, not the
    parent's size at the fork that started it)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def row(label: str, corpus: str, got: dict[str, Any]) -> str:
    cells = []
    for kind in ("first", "follow-up"):
        turns = got["turns"][kind]
        for stage in ("total", "answer"):
            values = [t[stage] for t in turns]
            cells.append(f"{statistics.median(values):.1f} / {_p(values, 0.95):.1f}")
    slow_ms, slow_turn = got["slowest"]
    return (
        f"| {label} | {corpus} | {len(got['turns']['first'])} + {len(got['turns']['follow-up'])} "
        f"| {' | '.join(cells)} | {got['cpu_ms_per_turn']:.0f} | {slow_ms:.0f} ({slow_turn}) "
        f"| {got['torch_loaded_at'] or 'no'} | {got['peak_rss_mb']:.0f} |"
    )


HEADER = (
    "# Time per turn, by stage (handbook conversations, one served process)\n\n"
    "`bench/turn_latency.py` (see its docstring). Wall ms as `Answer.latency_ms` measures "
    "them, median / 95th percentile; CPU ms per turn over all threads.\n\n"
    "| code | corpus | turns (first + follow-up) | first: total | first: answer "
    "| follow-up: total | follow-up: answer | CPU ms / turn | slowest turn ms | "
    "torch loaded at | peak RSS MB |\n"
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default="clef")
    parser.add_argument("--conversations", type=Path)
    parser.add_argument("--label", default="")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--project", type=Path, help=argparse.SUPPRESS)  # the child's
    args = parser.parse_args()
    root = CORPORA.get(args.corpus, Path(args.corpus))
    conversations = args.conversations or root.with_name(root.name + "_conversations.jsonl")
    if args.project is not None:  # the fresh process: replay and print the figures
        print(json.dumps(replay(args.project, conversations)))
        return
    from tellmemore.assistant import Assistant
    from tellmemore.config import Settings

    work = Path(tempfile.mkdtemp(prefix="tellmemore-latency-"))
    try:
        corpus = shutil.copytree(root, work / "docs")
        assistant = Assistant.open(work / "project", settings=Settings())
        assistant.ingest([corpus])
        assistant.close()
        child = subprocess.run(
            [
                sys.executable,
                __file__,
                "--corpus",
                str(root),
                "--project",
                str(work / "project"),
                "--conversations",
                str(conversations),
            ],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
        )
        got = json.loads(child.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    line = row(args.label or commit, root.name, got)
    if not args.out.exists():
        args.out.write_text(HEADER, encoding="utf-8")
    with args.out.open("a", encoding="utf-8") as f:
        f.write(line + "\n")
    print(line)


if __name__ == "__main__":
    main()
