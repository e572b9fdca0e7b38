"""Read the judge's features again from what `bench/behaviour_features.py` retrieved.

    .venv/bin/python bench/behaviour_replay.py --cache /work/cache/bench \
        [--retrieved bench/results/behaviour_features.json] [--out FILE]

`behaviour_features.py` runs every labelled MTRAG-UN turn (resolve, search, judge: about
half an hour on two cores) and keeps, per judged turn, the chunk ids and scores the judge
read. This script rebuilds those hits from the same index and reads the features with the
current `answer.judge.read_features`, without resolving or searching again (about a
minute): a new feature is measured on every turn, held out, before the slow run repeats.
The rows it writes have the same shape, so `scripts/fit_behaviour.py` reads them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from behaviour_features import DATA, corpus_dir, dump  # noqa: E402

from tellmemore.answer import (  # noqa: E402
    abstain_gate,
    abstain_override,
    ask_gate,
    clarify,
    turn_signals,
)
from tellmemore.answer.calibration import Calibrator  # noqa: E402
from tellmemore.answer.judge import TurnEvidence, read_features  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.eval.behaviour import load_behaviour  # noqa: E402
from tellmemore.eval.corpus import ensure_index  # noqa: E402
from tellmemore.eval.datasets import load_dataset  # noqa: E402
from tellmemore.index.embedders import load_embedder  # noqa: E402
from tellmemore.types import Hit, Resolution  # noqa: E402

FEATURES = ROOT / "bench" / "results" / "behaviour_features.json"


def _hits(rows: list[list[Any]], chunks: dict[str, Any]) -> list[Hit]:
    return [
        Hit(chunks[cid], score, rank + 1, bm25, dense)
        for rank, (cid, score, bm25, dense) in enumerate(rows)
        if cid in chunks
    ]


def open_domain(  # type: ignore[no-untyped-def]
    domain: str, data: Path, cache: Path, settings, embedder
) -> tuple[Any, dict[str, list[Any]]]:
    """The domain's cached index and its labelled turns by task id (a task may have more
    than one row: they come in file order)."""
    dataset = load_dataset(corpus_dir(data / domain), skip_invalid=True)
    index, _ = ensure_index(dataset, embedder=embedder, settings=settings, cache_dir=cache)
    turns: dict[str, list[Any]] = defaultdict(list)
    for t in load_behaviour(data / domain):
        turns[t.task_id].append(t)
    return index, turns


def kept_hits(got: dict[str, Any], index: Any) -> tuple[list[Hit], dict[str, list[Hit]]]:
    """A kept row's fused hits and each phrasing's hits, rebuilt from the index."""
    ids = {c[0] for c in got["hits"]} | {c[0] for hs in got["per_query"].values() for c in hs}
    chunks = {c.id: c for c in index.get(sorted(ids))}
    per_query = {q: _hits(hs, chunks) for q, hs in got["per_query"].items()}
    return _hits(got["hits"], chunks), per_query


def each_domain(payload: dict[str, Any], run: Any, data: Path, cache: Path) -> list[dict[str, Any]]:
    """`run(domain, rows, data, cache, settings, embedder)` over each domain's kept rows,
    in order, with one embedder: the rows it returns, all domains together."""
    settings = Settings()
    embedder = load_embedder(settings.embedder)
    t0 = time.perf_counter()
    rows: list[dict[str, Any]] = []
    for domain in dict.fromkeys(r["domain"] for r in payload["rows"]):
        mine = [r for r in payload["rows"] if r["domain"] == domain]
        rows += run(domain, mine, data, cache, settings, embedder)
        print(f"{domain}: {len(mine)} turns, {time.perf_counter() - t0:.0f} s", flush=True)
    return rows


def replay_domain(  # type: ignore[no-untyped-def]
    domain: str, rows: list[dict[str, Any]], data: Path, cache: Path, settings, embedder
) -> list[dict[str, Any]]:
    index, turns = open_domain(domain, data, cache, settings, embedder)
    seen: dict[str, int] = defaultdict(int)
    calibration = Calibrator(index, embedder).get()
    out = []
    try:
        for row in rows:
            k = seen[row["task_id"]]
            seen[row["task_id"]] += 1
            if "retrieved" not in row:
                out.append(row)
                continue
            turn = turns[row["task_id"]][k]
            got = row["retrieved"]
            hits, per_query = kept_hits(got, index)
            history = list(turn.history)
            ev = TurnEvidence(
                message=turn.message,
                history=history,
                resolution=Resolution(query=row["query"], bindings=got["bindings"]),
                hits=hits,
                per_query=per_query,
                asked=got["asked"],
                term_stats=index.term_stats,
                calibration=calibration,
                embed=embedder.embed_documents,
                min_value_share=1.0,  # the share read in full: the fit sweeps the threshold
            )
            a, c, _ = read_features(ev)
            features = {
                **{f"abstain.{n}": v for n, v in a.items()},
                **{f"clarify.{n}": v for n, v in c.items()},
            }
            options = clarify.options(turn.message, history, hits)
            asks_back = clarify.ask_back(turn.message, history, ev.resolution, hits) is not None
            # `retrieval.learned_ask` (default since session 48): the learned gate behind the
            # hand-written ones
            values = turn_signals.of_turn(turn.message, history, ev.resolution, hits, calibration)
            learned = not asks_back and bool(ask_gate.ask(turn.message, history, hits, values))
            out.append(
                {
                    **row,
                    "features": features,
                    "options": options,
                    "asks_back": asks_back,
                    "learned_asks": learned,
                    # `retrieval.learned_answer` (opt-in): read where the floor abstains
                    "learned_answers": abstain_override.answers(values),
                    # `retrieval.learned_abstain` (opt-in): read where the floor answers
                    "learned_abstains": abstain_gate.abstains(values),
                }
            )
    finally:
        index.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache")
    parser.add_argument("--retrieved", type=Path, default=FEATURES)
    parser.add_argument("--out", type=Path, default=FEATURES)
    args = parser.parse_args()
    payload = json.loads(args.retrieved.read_text())
    t0 = time.perf_counter()
    rows = each_domain(payload, replay_domain, args.data, args.cache)
    payload = {**payload, "replayed_seconds": round(time.perf_counter() - t0, 1), "rows": rows}
    args.out.write_text(dump(payload))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
