"""Follow-up nDCG@5 of the default and int8 encoder paths against torch fp32, per domain.

    .venv/bin/python bench/encode_quality.py OUT_DIR   # after bench/encode_quality.sh OUT_DIR

Reads OUT_DIR/{fp32,auto,int8}/{govt,clapnq,cloud}/report.json (one `tellmemore eval`
per path and domain, each path with its own index cache) and writes
bench/results/encode_quality.{md,json}: every strategy x retriever row, the difference to
torch fp32, and per path the largest difference on the default pipeline (embedded
resolver, hybrid retrieval) and over all rows.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from compare_eval import followup  # noqa: E402

DOMAINS = ("clapnq", "cloud", "govt")
PATHS = {
    "auto": "default paths (bulk chosen by measurement: torch bf16 here; queries ONNX fp32)",
    "int8": "ONNX int8 (documents and queries)",
}
DEFAULT_ROW = ("embedded", "hybrid")
TARGET = 0.005


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", type=Path)
    parser.add_argument("--results", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--note", default="", help="how and where the evals ran")
    args = parser.parse_args()
    table: list[dict[str, object]] = []
    lines = [
        "# Retrieval quality of the encoder paths against torch fp32",
        "",
        "Follow-up nDCG@5 from `tellmemore eval` on each MTRAG domain, one full re-embedding",
        "of the corpus per path, each in a cache of its own. Command: "
        "`bash bench/encode_quality.sh OUT_DIR` (runs the evals, then this script).",
        "",
    ]
    summary: list[str] = []
    for path, label in PATHS.items():
        lines += [
            f"## {label}",
            "",
            f"| domain | strategy | retriever | torch fp32 | {path} | difference |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        worst_default = worst_all = 0.0
        ran: list[str] = []
        for domain in DOMAINS:
            base_file = args.runs / "fp32" / domain / "report.json"
            new_file = args.runs / path / domain / "report.json"
            if not (base_file.exists() and new_file.exists()):
                lines.append(f"| {domain} | (not run) | | | | |")
                continue
            ran.append(domain)
            base = followup(json.loads(base_file.read_text(encoding="utf-8")), "nDCG@5")
            new = followup(json.loads(new_file.read_text(encoding="utf-8")), "nDCG@5")
            for key in (k for k in base if k in new):
                diff = new[key] - base[key]
                worst_all = max(worst_all, abs(diff))
                if key[1:] == DEFAULT_ROW:
                    worst_default = max(worst_default, abs(diff))
                table.append(
                    {
                        "path": path,
                        "domain": domain,
                        "strategy": key[1],
                        "retriever": key[2],
                        "fp32": base[key],
                        "value": new[key],
                        "difference": diff,
                    }
                )
                lines.append(
                    f"| {domain} | {key[1]} | {key[2]} | {base[key]:.4f} | "
                    f"{new[key]:.4f} | {diff:+.4f} |"
                )
        verdict = "within" if worst_default <= TARGET else "NOT within"
        summary.append(
            f"- **{label}**: default pipeline (embedded + hybrid) largest difference "
            f"{worst_default:.4f} ({verdict} {TARGET}); over all rows {worst_all:.4f}; "
            f"measured on {', '.join(ran) or 'nothing yet'}."
        )
        lines.append("")
    lines[5:5] = ["## Summary", "", *summary, "", *([args.note, ""] if args.note else [])]
    args.results.mkdir(parents=True, exist_ok=True)
    (args.results / "encode_quality.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (args.results / "encode_quality.json").write_text(
        json.dumps(table, indent=1) + "\n", encoding="utf-8"
    )
    print("\n".join(summary))


if __name__ == "__main__":
    main()
