"""The CPU cost of one turn under hostile histories (issue 24, item 6): bounded by the caps
of `tellmemore.limits`. Measured on the sample corpus with the FakeEmbedder (the
conversation layer's own cost: resolver, gate, typo fixer, retrieval, extractive answer).

    .venv/bin/python bench/history_cost.py --out   # writes bench/results/history_cost.md
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ["TELLMEMORE_CONFIG"] = "/nonexistent/tellmemore.toml"

from tellmemore.assistant import Assistant  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.ingest import sample_corpus_path  # noqa: E402
from tellmemore.testing.fakes import FakeEmbedder  # noqa: E402

QUESTION = "does it include e-bikes?"


def histories() -> dict[str, list[dict[str, str]]]:
    short = [
        {"role": "user", "content": "how much is the monthly pass?"},
        {"role": "assistant", "content": "The monthly pass costs 30 euros. [1]"},
    ]
    item = "the monthly pass " * 112_000  # 1.9 MB in one history item
    what_about = list(short)
    for i in range(349):
        what_about.append({"role": "user", "content": f"what about plan{i}?"})
        what_about.append({"role": "assistant", "content": f"Plan{i} costs {i} euros. [1]"})
    wide = [
        {"role": r, "content": f"the monthly pass {i} " * 400}
        for i, r in zip(range(1000), ["user", "assistant"] * 500, strict=True)
    ]
    return {
        "2 short turns": short,
        "one 1.9 MB history item": [short[0], {"role": "assistant", "content": item}],
        "700 'what about X?' turns": what_about,
        "1,000 turns of 8,000 characters (the edge's limit)": wide,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", action="store_true")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp())
    assistant = Assistant(Settings.load(tmp / "p"), embedder=FakeEmbedder())
    assistant.ingest([sample_corpus_path()])
    assistant.ask("warm up")
    rows = []
    for name, history in histories().items():
        cpu, wall = [], []
        for _ in range(args.runs):
            c0, w0 = time.process_time(), time.perf_counter()
            answer = assistant.ask(QUESTION, history=history)
            cpu.append(time.process_time() - c0)
            wall.append(time.perf_counter() - w0)
        rows.append((name, statistics.median(cpu), max(cpu), answer.degraded))
        print(rows[-1], flush=True)
    conv = assistant.settings.conversation
    lines = [
        "# The cost of one turn under hostile histories",
        "",
        "`python bench/history_cost.py --out` (sample corpus, FakeEmbedder: the conversation",
        f"layer's own CPU). Caps: {conv.max_history_turns} newest turns, "
        f"{conv.max_history_item_chars:,} characters each, {conv.max_history_chars:,} in all "
        "(`conversation.max_history_*`, `tellmemore/limits.py`).",
        "",
        "| history | CPU s per turn (median) | max | degraded |",
        "| --- | --- | --- | --- |",
        *(f"| {n} | {m:.3f} | {x:.3f} | {', '.join(d) or '-'} |" for n, m, x, d in rows),
        "",
        "Before the caps (main at 9c43237, this script, 1 run): one 1.9 MB history item cost",
        "3.65 s of CPU per turn here (the attacker measured 23 s with MiniLM embedding it), and",
        "700 'what about X?' turns ended in a RecursionError whose text reached `degraded`.",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if args.out:
        (ROOT / "bench" / "results" / "history_cost.md").write_text(text, encoding="utf-8")
    assistant.close()


if __name__ == "__main__":
    main()
