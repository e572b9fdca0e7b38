"""CPU time of the stated-value check (`answer.stated.value_share`) per MTRAG-UN turn.

    .venv/bin/python bench/stated_cost.py --data ../shared/bench/mtrag-un \
        --cache /work/cache/bench

From the hits `bench/behaviour_features.py` kept: each judged turn's check timed once,
with the index's term statistics cold for its words (a turn's coverage usually asks for
them first). Prints the figures quoted in bench/results/stated_value.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from behaviour_features import DATA, corpus_dir  # noqa: E402
from behaviour_replay import FEATURES, _hits  # noqa: E402

from tellmemore.answer.abstain import evidence_hits  # noqa: E402
from tellmemore.answer.stated import value_share  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.eval.corpus import ensure_index  # noqa: E402
from tellmemore.eval.datasets import load_dataset  # noqa: E402
from tellmemore.index.embedders import load_embedder  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache")
    args = parser.parse_args()
    settings = Settings()
    embedder = load_embedder(settings.embedder)  # the index key only: nothing is embedded
    rows = json.loads(FEATURES.read_text())["rows"]
    for d in dict.fromkeys(r["domain"] for r in rows):
        ds = load_dataset(corpus_dir(args.data / d), skip_invalid=True)
        index, _ = ensure_index(ds, embedder=embedder, settings=settings, cache_dir=args.cache)
        every: list[float] = []
        quantity: list[float] = []
        try:
            for r in rows:
                if r["domain"] != d or "retrieved" not in r:
                    continue
                got = r["retrieved"]
                ids = {c[0] for c in got["hits"]}
                ids |= {c[0] for hs in got["per_query"].values() for c in hs}
                chunks = {c.id: c for c in index.get(sorted(ids))}
                hits = _hits(got["hits"], chunks)
                per_query = {q: _hits(hs, chunks) for q, hs in got["per_query"].items()}
                own = evidence_hits(hits, per_query, got["asked"])
                question = next((q for q in got["asked"] if q.strip()), "")
                t0 = time.process_time()
                found = value_share(question, own, index.term_stats)
                every.append((time.process_time() - t0) * 1000)
                if found.kind is not None:
                    quantity.append(every[-1])
        finally:
            index.close()
        every.sort()
        quantity.sort()
        print(
            f"{d}: {len(every)} turns, CPU ms median {every[len(every) // 2]:.3f}, "
            f"p90 {every[int(len(every) * 0.9)]:.3f}; {len(quantity)} ask for a quantity: "
            f"median {quantity[len(quantity) // 2]:.2f}, max {quantity[-1]:.2f}"
        )


if __name__ == "__main__":
    main()
