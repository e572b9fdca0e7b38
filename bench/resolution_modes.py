"""Every MTRAG and MTRAG-UN turn through the timed turn path of bench/resolver_latency.py
(spelling, gate, embedded resolution, phrasings), in each caller mode, one JSON line per
turn: so a speed change can show that it changes no output (issue 20: identical
standalone queries and bindings before and after).

    .venv/bin/python bench/resolution_modes.py OUT.jsonl
    diff A.jsonl B.jsonl     # empty: the two trees resolve every turn alike

Modes, in this order in one process: "cold" (stateless, from empty caches), "stored"
(each earlier user turn carries its stored resolution, the last answer prepared),
"served" (stateless, the last answer prepared), then "cold-warm" (stateless again, with
every cache the earlier modes filled): a cache that changed an output would show as a
difference between "cold" and "cold-warm" or against the other tree. Each line: mode,
id, the whole Resolution (less its latency) and the phrasings searched.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TextIO

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import resolver_latency as RL  # noqa: E402
from resolution_dump import DATA, each_turn  # noqa: E402

from tellmemore.conversation.gate import gate  # noqa: E402
from tellmemore.conversation.phrasings import search_phrasings  # noqa: E402
from tellmemore.conversation.preamble import without_preamble  # noqa: E402
from tellmemore.conversation.resolvers import EmbeddedResolver, ResolveContext  # noqa: E402
from tellmemore.conversation.spelling import correct_spelling  # noqa: E402
from tellmemore.types import Resolution  # noqa: E402

MODES = {"cold": (True, False), "stored": (False, False), "served": (True, True)}


def run(
    mode: str, stateless: bool, served: bool, stats: dict, f: TextIO, data: Path = DATA
) -> None:
    stores: dict[tuple[str, str], RL.Stored] = {}
    for ds, d, row in each_turn(stats, data):
        stored = stores.setdefault((ds, d), {})
        history = RL.history_of(row, None if stateless else stored, served)
        message = row["message"]
        fixed, _ = correct_spelling(message, stats[d])
        asked = without_preamble(fixed)
        verdict = gate(asked, history, stats[d])
        ctx = ResolveContext(term_stats=stats[d])
        res = None
        if verdict.needs_resolution:
            res = EmbeddedResolver().resolve(fixed, history, ctx)
        kept = res or Resolution(query=asked, resolver="none")
        stored[(row["conversation_id"], row["turn"])] = (message, kept)
        ph = search_phrasings(message, kept, history, stats[d], searched=fixed)
        out = kept.to_dict()
        out.pop("latency_ms", None)
        rec = {
            "mode": mode,
            "id": f"{ds}/{d}/{row['task_id']}",
            "gate": verdict.needs_resolution,
            "resolution": out,
            "phrasings": [list(ph.queries), list(ph.weights), list(ph.context)],
        }
        f.write(json.dumps(rec, sort_keys=True) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--data", type=Path, default=DATA, help="the folder holding mtrag/, mtrag-un/")
    args = ap.parse_args()
    stats: dict = {}
    with args.out.open("w") as f:
        for mode, (stateless, served) in MODES.items():
            run(mode, stateless, served, stats, f, args.data)
        run("cold-warm", True, False, stats, f, args.data)


if __name__ == "__main__":
    main()
