"""Opt-in settings end to end: each `bench/turn_answers.py --set ...` run against the
defaults' run, per set, paired (`bench/paired_f1.compare`).

    .venv/bin/python bench/turn_answers_table.py BASE.json NAME=RUN.json [NAME=RUN.json ...]

Prints, per run, each set's F1 before -> after, the paired difference with its 95% bootstrap
interval and sign-test p, and the abstained / asked-back counts before -> after; then one
line per run: the worst set's difference, and whether every set stays within the issue-20
margin (no loss beyond 0.005).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from paired_f1 import compare

MARGIN = 0.005


POOLED = {"MTRAG, all": "", "MTRAG-UN, all": "un-"}
"""Pooled rows (every set whose name starts so; MTRAG's sets have no prefix); not counted
in the worst set, which reads the sets themselves."""


def answers(run: dict, name: str) -> dict:
    """A set's answer figures, or a pooled row's (turns concatenated in set order)."""
    if name not in POOLED:
        return dict(run["groups"][name]["answer"])
    prefix = POOLED[name]
    parts = [
        g["answer"]
        for k, g in run["groups"].items()
        if (k.startswith(prefix) if prefix else not k.startswith("un-"))
    ]
    f1 = [x for p in parts for x in p["per_turn_f1"]]
    return {
        "per_turn_f1": f1,
        "task_ids": [t for p in parts for t in p["task_ids"]],
        "f1": sum(f1) / len(f1),
        "abstained": sum(p["abstained"] for p in parts),
        "asked": sum(p["asked"] for p in parts),
    }


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def table(base: dict, run: dict) -> tuple[list[str], dict[str, float]]:
    lines = [
        "| set | turns | F1 | diff | better / worse | 95% interval | sign p | abstained | asked |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    diffs: dict[str, float] = {}
    for name in [*base["groups"], *POOLED]:
        a, b = answers(base, name), answers(run, name)
        if a["task_ids"] != b["task_ids"]:
            raise SystemExit(f"{name}: the two runs hold different turns")
        got = compare(a["per_turn_f1"], b["per_turn_f1"])
        if name not in POOLED:
            diffs[name] = got["mean"]
        lines.append(
            f"| {name} | {got['n']} | {a['f1']:.4f} -> {b['f1']:.4f} | {got['mean']:+.4f} | "
            f"{got['better']} / {got['worse']} | [{got['low']:+.4f}, {got['high']:+.4f}] | "
            f"{got['p_sign']:.2f} | {a['abstained']} -> {b['abstained']} | "
            f"{a['asked']} -> {b['asked']} |"
        )
    return lines, diffs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", type=Path)
    parser.add_argument("runs", nargs="+", metavar="NAME=RUN.json")
    args = parser.parse_args()
    base = load(args.base)
    summary = ["| run | overrides | worst set | worst diff | every set >= -0.005 |"]
    summary.append("| --- | --- | --- | --- | --- |")
    for item in args.runs:
        name, _, path = item.partition("=")
        run = load(Path(path))
        over = " ".join(f"`{s}`" for s in run.get("set", []) + run.get("const", []))
        lines, diffs = table(base, run)
        print(f"### {name} ({over})\n")
        print("\n".join(lines) + "\n")
        worst = min(diffs, key=lambda k: diffs[k])
        ok = "yes" if diffs[worst] >= -MARGIN else "no"
        summary.append(f"| {name} | {over} | {worst} | {diffs[worst]:+.4f} | {ok} |")
    print("### Summary\n")
    print("\n".join(summary))


if __name__ == "__main__":
    main()
