"""The table of bench/fusion_floor.sh: follow-up nDCG@5 with and without the dense floor.

.venv/bin/python bench/fusion_floor.py bench/results/fusion_floor clapnq cloud govt
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

MEASURES = ("nDCG@5", "R@5", "R@10")
KEEP_IF = 0.005
"""The new default stays only if follow-up nDCG@5 drops by no more than this anywhere."""


def figures(report: Path) -> dict[tuple[str, str], dict[str, float]]:
    data = json.loads(report.read_text())
    return {
        (r["strategy"], r["slice"]): r["measures"]
        for r in data["results"]
        if r["retriever"] == "hybrid"
    }


def main() -> None:
    out = Path(sys.argv[1])
    domains = sys.argv[2:]
    lines = [
        "# Hybrid fusion with a calibrated dense floor",
        "",
        "```",
        f"bench/fusion_floor.sh CACHE {' '.join(domains)}",
        "```",
        "",
        "Convex fusion (BM25 weight 0.35) scales the dense scores to [0, 1] against "
        "`max(best, floor + 0.1)` instead of their own best, the floor being the 90th "
        "percentile of the best cosine that everyday questions written from no corpus get "
        "in this index (`answer.calibration`): when every dense hit is that weak, the dense "
        "signal stays small and a strong BM25 match wins. Off = plain min-max (the rule "
        "before). Hybrid retriever, MTRAG turns, measured by `tellmemore eval`; the default "
        f"stays on only if follow-up nDCG@5 drops by no more than {KEEP_IF} on every domain.",
        "",
        "| domain | strategy | slice | "
        + " | ".join(f"{m} off | {m} on" for m in MEASURES)
        + " | Δ nDCG@5 |",
        "| --- | --- | --- | " + " | ".join("--- | ---" for _ in MEASURES) + " | --- |",
    ]
    worst = 0.0
    for d in domains:
        off = figures(out / f"{d}-false" / "report.json")
        on = figures(out / f"{d}-true" / "report.json")
        for key in sorted(off):
            a, b = off[key], on[key]
            delta = b["nDCG@5"] - a["nDCG@5"]
            if key[1] == "followup":
                worst = min(worst, delta)
            cells = " | ".join(f"{a[m]:.4f} | {b[m]:.4f}" for m in MEASURES)
            lines.append(f"| {d} | {key[0]} | {key[1]} | {cells} | {delta:+.4f} |")
    verdict = "kept" if worst >= -KEEP_IF else "not kept"
    lines += ["", f"Largest follow-up nDCG@5 drop: {worst:+.4f}: the floor is {verdict}.", ""]
    (out.parent / "fusion_floor.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
