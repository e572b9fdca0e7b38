"""Every MTRAG and MTRAG-UN follow-up resolved by the embedded resolver, one JSON line each,
so two code trees can be compared query by query (issue 20: a restructuring must not
change what is searched, or must say which queries it changed).

    .venv/bin/python bench/resolution_dump.py OUT.jsonl            # dump this tree
    .venv/bin/python bench/resolution_dump.py --diff A.jsonl B.jsonl

Term statistics: the domain's pooled corpus (bench/resolver_latency.py's `corpus_stats`).
Each line: id, message, query, bindings, ambiguous, passes. Also prints the CPU-time
p50/p95 (ms) of spelling + gate + resolve per follow-up (thread time: stable on a loaded
machine, unlike wall time).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import resolver_latency as RL  # noqa: E402

from tellmemore.conversation.gate import gate  # noqa: E402
from tellmemore.conversation.preamble import without_preamble  # noqa: E402
from tellmemore.conversation.resolvers import EmbeddedResolver, ResolveContext  # noqa: E402
from tellmemore.conversation.spelling import correct_spelling  # noqa: E402
from tellmemore.types import Turn  # noqa: E402

SETS = [("mtrag", d) for d in ("clapnq", "cloud", "govt")] + [
    ("mtrag-un", d) for d in ("clapnq", "cloud")
]
DATA = ROOT.parent / "shared" / "bench"


def each_turn(
    stats: dict[str, Any], data: Path = DATA
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(set, domain, row) for every turn of SETS, each domain's term statistics read into
    `stats` once (bench/resolution_modes.py reads the same turns)."""
    for ds, d in SETS:
        if d not in stats:
            stats[d] = RL.corpus_stats(data / "mtrag" / d / "corpus.jsonl")
        for line in (data / ds / d / "conversations.jsonl").open():
            yield ds, d, json.loads(line)


def dump(out: Path, data: Path = DATA) -> None:
    stats = {}
    resolver = EmbeddedResolver()
    ms: list[float] = []
    with out.open("w") as f:
        for ds, d, row in each_turn(stats, data):
            if row["turn"] == 1:
                continue
            history = [Turn(t["role"], t["content"]) for t in row["history"]]
            message = row["message"]
            t0 = time.thread_time()
            fixed, _ = correct_spelling(message, stats[d])
            verdict = gate(without_preamble(fixed), history, stats[d])
            ctx = ResolveContext(term_stats=stats[d])
            res = resolver.resolve(fixed, history, ctx) if verdict.needs_resolution else None
            ms.append((time.thread_time() - t0) * 1000)
            rec = {
                "id": f"{ds}/{d}/{row['task_id']}",
                "message": message,
                "query": res.query if res else fixed,
                "bindings": dict(res.bindings) if res else {},
                "ambiguous": bool(res and res.ambiguous),
                "passes": list(getattr(res, "passes", ()) or ()) if res else [],
            }
            f.write(json.dumps(rec) + "\n")
    ms.sort()
    p50, p95 = ms[len(ms) // 2], ms[int(len(ms) * 0.95)]
    print(f"follow-ups {len(ms)}: CPU p50 {p50:.3f} ms, p95 {p95:.3f} ms")


def diff(a: Path, b: Path) -> None:
    left = [json.loads(x) for x in a.open()]
    right = [json.loads(x) for x in b.open()]
    changed = 0
    for x, y in zip(left, right, strict=True):
        if x["query"] != y["query"] or x["ambiguous"] != y["ambiguous"]:
            changed += 1
            print(f"{x['id']}\n  {x['message']!r}\n  A: {x['query']!r}\n  B: {y['query']!r}")
    print(f"changed {changed} of {len(left)}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", nargs="?", type=Path)
    ap.add_argument("--diff", nargs=2, type=Path)
    ap.add_argument("--data", type=Path, default=DATA, help="the folder holding mtrag/, mtrag-un/")
    args = ap.parse_args()
    if args.diff:
        diff(*args.diff)
    elif args.out:
        dump(args.out, args.data)
    else:
        ap.error("give OUT.jsonl or --diff A B")
