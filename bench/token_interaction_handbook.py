"""The token features' sentence scorer on the handbooks' sentence choice (held-out check of
bench/token_interaction_f1.py's `+token` variant; bench only, nothing shipped).

    HF_HUB_OFFLINE=1 nice -n 5 .venv/bin/python bench/token_interaction_handbook.py \
        --out bench/results/token_interaction_handbook.json

Two scorers are fitted on all three MTRAG domains' retrieved passages exactly as
bench/token_interaction_f1.py fits them (`extractive_fit_retrieved.fitted`, L2 10, threshold
chosen on MTRAG): `base` (the shipped features, refitted: the control) and `+token` (plus
the five token features). Each then answers the handbooks' labelled turns as
bench/handbook_sentences.py asks them (the shipped selection settings), with
`scoring.shipped` and `scoring.features_and_vectors` wrapped. Clef is dev, TTS partly held
out, PostHog held out: only its aggregate count is read.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import extractive_fit_retrieved as efr  # noqa: E402
import token_interaction_f1 as tif  # noqa: E402
from extractive_answers import DOMAINS, CachedEmbed  # noqa: E402
from handbook_sentences import run  # noqa: E402
from token_interaction import TokenEmbed  # noqa: E402

from tellmemore.answer import scoring  # noqa: E402
from tellmemore.config import Settings  # noqa: E402

SHIPPED = scoring.shipped
SCORERS = ROOT / "bench" / ".cache" / "tok_scorers.pkl"
"""The two fitted scorers (bench scratch)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=Path, default=ROOT / "bench" / ".cache" / "tok_cases.pkl")
    parser.add_argument(
        "--embeddings", type=Path, default=ROOT / "bench" / ".cache" / "extractive_vectors.npz"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=ROOT / "bench" / "results" / "token_interaction_handbook.json",
    )
    parser.add_argument("--corpora", default="clef,tts,posthog")
    args = parser.parse_args()
    t0 = time.perf_counter()
    got = pickle.loads(args.cases.read_bytes())
    embed = CachedEmbed(args.embeddings)
    te = TokenEmbed()
    r = Settings().retrieval
    results: dict[str, Any] = {"command": " ".join(sys.argv[1:]), "variants": {}}
    scorers: dict[str, scoring.Scorer] = {}
    for name in ("base", "+token"):
        tif.wrap(te, tif.VARIANTS[name])
        scorers[name] = efr.fitted([c for d in DOMAINS for c in got[d]], embed, 10.0)
    SCORERS.write_bytes(pickle.dumps(scorers))  # for bench/token_interaction_turns.py
    print("fitted", round(time.perf_counter() - t0), flush=True)
    for name, scorer in scorers.items():
        tif.wrap(te, tif.VARIANTS[name])
        scoring.shipped = lambda scorer=scorer: scorer  # type: ignore[misc]
        row: dict[str, Any] = {"threshold": scorer.threshold}
        for corpus in args.corpora.split(","):
            out = run(
                corpus,
                r.spread_gap,
                r.quote_nearest,
                r.quote_continuation,
                r.quote_opening,
                r.spread_gap_single,
            )
            row[corpus] = f"{out['answer_holds_expect']}/{out['passages_hold_expect']}"
            if corpus != "posthog":  # held out: the aggregate only
                row[f"{corpus}_answered"] = [x["turn"] for x in out["rows"] if x["answered"]]
            print(name, corpus, row[corpus], round(time.perf_counter() - t0), flush=True)
        results["variants"][name] = row
    scoring.shipped = SHIPPED  # type: ignore[assignment]
    scoring.features_and_vectors = tif.ORIGINAL  # type: ignore[assignment]
    results["seconds"] = round(time.perf_counter() - t0, 1)
    args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
