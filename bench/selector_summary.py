"""Append the held-out retrieval and binding figures of bench/run_selector_cross_domain.sh
to its markdown report (stdout): one row per domain, the selector fit on the other two."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(work: Path) -> None:
    print("\n## Held-out `tellmemore eval` (the resolver with the selector fit on the others)\n")
    print(
        "Follow-up turns, hybrid retriever. Probe over-binding = share of topic-switch probes "
        "that carried anything; strict = probes whose human rewrite stands alone.\n"
    )
    print(
        "| held out | raw nDCG@5 | embedded nDCG@5 | oracle nDCG@5 | embedded / oracle "
        "| binding recall | over-binding | probe over-binding (n) | strict (n) |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for path in sorted(work.glob("eval-*/report.json")):
        domain = path.parent.name.removeprefix("eval-")
        report = json.loads(path.read_text())
        details = json.loads((path.parent / "details.json").read_text())
        ndcg, bind = {}, {}
        for r in report["results"]:
            if r["retriever"] == "hybrid" and r["slice"] == "followup":
                ndcg[r["strategy"]] = r["measures"]["nDCG@5"]
                bind[r["strategy"]] = r["binding"]
        probe = next(p for p in details["topic_switch"] if p["strategy"] == "embedded")
        print(
            f"| {domain} | {ndcg['raw']:.3f} | {ndcg['embedded']:.3f} | {ndcg['oracle']:.3f} "
            f"| {ndcg['embedded'] / ndcg['oracle']:.2f}x | {bind['embedded']['recall']:.3f} "
            f"| {bind['embedded']['over_binding']:.3f} | {probe['over_binding']:.3f} "
            f"({probe['n']}) | {probe['strict_over_binding']:.3f} ({probe['strict_n']}) |"
        )


if __name__ == "__main__":
    main(Path(sys.argv[1]))
