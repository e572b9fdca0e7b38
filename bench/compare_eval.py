"""Follow-up nDCG@5 of two `tellmemore eval` reports side by side (e.g. torch fp32 vs the
default encoder paths), per dataset, strategy and retriever, with the difference.

    .venv/bin/python bench/compare_eval.py BASE/report.json NEW/report.json --out FILE.md
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def followup(report: dict[str, Any], measure: str) -> dict[tuple[str, str, str], float]:
    return {
        (r["dataset"], r["strategy"], r["retriever"]): r["measures"][measure]
        for r in report["results"]
        if r["slice"] in ("followup", "follow-up", "fu")
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("base", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--measure", default="nDCG@5")
    parser.add_argument("--base-label", default="torch fp32")
    parser.add_argument("--new-label", default="default paths")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    base = json.loads(args.base.read_text(encoding="utf-8"))
    new = json.loads(args.new.read_text(encoding="utf-8"))
    a, b = followup(base, args.measure), followup(new, args.measure)
    keys = [k for k in a if k in b]
    lines = [
        f"Follow-up {args.measure}: `{args.base}` ({args.base_label}) vs `{args.new}` "
        f"({args.new_label}).",
        "",
        f"| dataset | strategy | retriever | {args.base_label} | {args.new_label} | difference |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for k in keys:
        lines.append(f"| {k[0]} | {k[1]} | {k[2]} | {a[k]:.4f} | {b[k]:.4f} | {b[k] - a[k]:+.4f} |")
    worst = max((abs(b[k] - a[k]) for k in keys), default=0.0)
    lines += ["", f"Largest absolute difference: {worst:.4f} over {len(keys)} rows."]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
