"""Compare two runs of `bench/handbook_trial.py`: fully right, category counts, changed turns.

    .venv/bin/python bench/trial_diff.py BEFORE.json AFTER.json [--mode "floor (default)"] [--quiet]

A trial's JSON holds one row per turn and mode (`category` is None for a turn answered
fully right). This prints the ANSWERABLE turns fully right before and after, each category
whose count changed (every category without `--quiet`), and the turns whose category
changed, with both standalone queries and bindings. `--quiet` prints the counts alone and
how many turns changed, never a turn's text. A trial of a held-out corpus (PostHog, GitLab,
or one of them written in another format: "gitlab_pdf") is always read quietly: its
conversations must not be read to write rules.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from handbook_corpora import held_out_trial

Row = dict[str, Any]


def load(path: Path, mode: str) -> dict[tuple[str, int], Row]:
    """The rows of one mode, keyed by (conversation, turn)."""
    rows = json.loads(path.read_text(encoding="utf-8"))["rows"]
    picked = {(r["conversation"], r["turn"]): r for r in rows if r["mode"] == mode}
    if not picked:
        modes = sorted({r["mode"] for r in rows})
        raise SystemExit(f"{path}: no rows in mode {mode!r}; modes there: {modes}")
    return picked


def held_out(path: Path) -> bool:
    """Whether the trial at `path` ran on a held-out corpus, in any format."""
    return held_out_trial(json.loads(path.read_text(encoding="utf-8")))


def fully_right(rows: dict[tuple[str, int], Row]) -> tuple[int, int]:
    answerable = [r for r in rows.values() if r["label"] == "ANSWERABLE"]
    return sum(1 for r in answerable if not r["category"]), len(answerable)


def report(
    before: dict[tuple[str, int], Row], after: dict[tuple[str, int], Row], quiet: bool
) -> str:
    ok_a, n = fully_right(before)
    ok_b, _ = fully_right(after)
    lines = [f"fully right (ANSWERABLE): {ok_a}/{n} -> {ok_b}/{n}"]
    ca = Counter(r["category"] or "OK" for r in before.values())
    cb = Counter(r["category"] or "OK" for r in after.values())
    for name in sorted(set(ca) | set(cb)):
        if ca[name] != cb[name] or not quiet:
            lines.append(f"  {name:40s} {ca[name]:3d} -> {cb[name]:3d}")
    changed = [
        k for k in sorted(set(before) & set(after)) if before[k]["category"] != after[k]["category"]
    ]
    if quiet:
        better = sum(1 for k in changed if not after[k]["category"])
        worse = sum(1 for k in changed if not before[k]["category"])
        lines.append(
            f"turns whose category changed: {len(changed)} ({better} now right, {worse} no longer)"
        )
        return "\n".join(lines)
    for key in changed:
        ra, rb = before[key], after[key]
        lines += [
            "",
            f"{key} [{ra['label']}] {ra['message']!r}",
            f"  {ra['category']} -> {rb['category']}",
            f"  A: {ra['standalone']!r} {ra['bindings']}",
            f"  B: {rb['standalone']!r} {rb['bindings']}",
        ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--mode", default="floor (default)")
    parser.add_argument("--quiet", action="store_true", help="counts only, no turn text")
    args = parser.parse_args()
    quiet = args.quiet or held_out(args.before) or held_out(args.after)
    print(report(load(args.before, args.mode), load(args.after, args.mode), quiet))


if __name__ == "__main__":
    main()
