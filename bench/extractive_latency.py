"""CPU time per turn of the offline answer's sentence choice, as a turn runs it.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/extractive_latency.py [--label NAME]

`extractive.best_sentences` on the first 20 MTRAG turns of each domain (their gold
passages, the human rewrite), with the candidates embedded on the query runtime (ONNX,
`embed_queries`, what `turn.py` passes) and without an embedder (the hand-set ranking).
CPU time (`time.process_time`, all threads), the best of two passes: the machine is
shared, and wall time says more about the neighbours than about the code. Appends a row
to bench/results/extractive_latency.md.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from extractive_answers import DATA, DOMAINS, mtrag_cases  # noqa: E402

from tellmemore.answer import extractive  # noqa: E402
from tellmemore.index.embedders import SentenceTransformerEmbedder  # noqa: E402

OUT = ROOT / "bench" / "results" / "extractive_latency.md"
TURNS = 20


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--label", default="")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    embed = SentenceTransformerEmbedder().embed_queries
    cases = [c for d in DOMAINS for c in list(mtrag_cases(DATA, d))[:TURNS]]
    extractive.best_sentences(cases[0].query, cases[0].hits, embed=embed)  # warm
    passes = []
    for _ in range(2):
        start = time.process_time()
        for c in cases:
            extractive.best_sentences(c.query, c.hits, embed=embed)
        passes.append((time.process_time() - start) / len(cases) * 1000)
    start = time.process_time()
    for c in cases:
        extractive.best_sentences(c.query, c.hits, embed=None)
    plain = (time.process_time() - start) / len(cases) * 1000
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    row = (
        f"| {args.label or commit} | {len(cases)} | {min(passes):.1f} | "
        f"{' / '.join(f'{p:.1f}' for p in passes)} | {plain:.1f} |"
    )
    if not args.out.exists():
        args.out.write_text(
            "# Extractive answer: CPU time per turn\n\n"
            "`bench/extractive_latency.py` (see its docstring). ms of CPU per turn.\n\n"
            "| code | turns | with MiniLM (best) | passes | without embedder |\n"
            "| --- | --- | --- | --- | --- |\n"
        )
    with args.out.open("a", encoding="utf-8") as f:
        f.write(row + "\n")
    print(row)


if __name__ == "__main__":
    main()
