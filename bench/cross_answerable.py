"""Does the cross-encoder reader know when the passages do not answer? (issue 22)

    HF_HUB_OFFLINE=1 nice -n 5 .venv/bin/python bench/cross_answerable.py \
        --cache /work/cache/bench_md --models /work/cache/cross_B \
        --out bench/results/cross_answerable

Reads every labelled MTRAG-UN turn as `bench/behaviour_features.py` ran it (its standalone
query and the hits it kept, in bench/results/behaviour_features.json), the sentences of the
top 3 hits the offline answer reads, and scores them with the cross-encoder of
`bench/cross_reader.py` that was trained WITHOUT the turn's corpus domain. The turn's signal
is its best sentence's score. Reported against the pooled best-sentence cosine
(`abstain.raw_sentence`, the floor's own signal):

- AUC of UNANSWERABLE against ANSWERABLE + PARTIAL;
- abstentions at a threshold chosen on the OTHER domain (at most `--max-false` of its
  ANSWERABLE + PARTIAL turns abstain), as issue 22's targets count them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from cross_reader import CrossEncoder, model_dir, score_pairs  # noqa: E402
from token_interaction import auc  # noqa: E402

from tellmemore.answer import extractive  # noqa: E402
from tellmemore.index.sqlite import SQLiteIndex  # noqa: E402
from tellmemore.injection import quotable  # noqa: E402

FEATURES = ROOT / "bench" / "results" / "behaviour_features.json"
OUT = ROOT / "bench" / "results" / "cross_answerable"


def load_model(path: Path):
    """The fold's cross-encoder: the bundled MiniLM with its trained layers and head."""
    import torch
    from transformers import AutoTokenizer

    model = CrossEncoder()
    missing = model.load_state_dict(torch.load(path), strict=False)
    assert not missing.unexpected_keys, missing.unexpected_keys
    model.eval()
    return AutoTokenizer.from_pretrained(model_dir()), model


def candidates(index: SQLiteIndex, ids: list[str]) -> list[str]:
    chunks = index.get(ids[: extractive.MAX_CHUNKS])
    units = [quotable(extractive.units(c.text, c.header)) for c in chunks]
    return [k.text for k in extractive.candidates_of(units)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--models", type=Path, required=True)
    parser.add_argument("--max-false", type=float, default=0.05)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    rows = json.loads(FEATURES.read_text())["rows"]
    signal: dict[str, dict[str, list[tuple[str, float, float]]]] = {}
    for domain in sorted({r["domain"] for r in rows}):
        (home,) = (args.cache / "index").glob(f"{domain}-*")
        index = SQLiteIndex(home / "index.db", dimension=384, background_build=False)
        tokenizer, model = load_model(args.models / f"model_{domain}.pt")
        got = signal.setdefault(domain, {})
        for r in rows:
            if r["domain"] != domain or "retrieved" not in r:  # not retrieved: nothing to read
                continue
            texts = candidates(index, [h[0] for h in r["retrieved"]["hits"]])
            scores = score_pairs(tokenizer, model, [(r["query"], t) for t in texts])
            best = max(scores.values(), default=-10.0)
            got.setdefault(r["label"], []).append(
                (r["query"], best, r["features"]["abstain.raw_sentence"])
            )
        index.close()
    report: dict[str, dict] = {}
    for domain, by_label in signal.items():
        un = by_label.get("UNANSWERABLE", [])
        ans = by_label.get("ANSWERABLE", []) + by_label.get("PARTIAL", [])
        report[domain] = {
            name: round(auc([-u[i] for u in un], [-a[i] for a in ans]) or 0.5, 4)
            for i, name in ((1, "cross_auc"), (2, "cosine_auc"))
        }
    for held, fitting in (("clapnq", "cloud"), ("cloud", "clapnq")):
        for i, name in ((1, "cross"), (2, "cosine")):
            neg = np.sort(
                [a[i] for lab in ("ANSWERABLE", "PARTIAL") for a in signal[fitting].get(lab, [])]
            )
            threshold = float(neg[int(args.max_false * len(neg))])  # abstain below it
            un = [u[i] for u in signal[held]["UNANSWERABLE"]]
            ans = [a[i] for lab in ("ANSWERABLE", "PARTIAL") for a in signal[held].get(lab, [])]
            report[held][f"{name}_abstain"] = f"{sum(v < threshold for v in un)}/{len(un)}"
            report[held][f"{name}_false"] = f"{sum(v < threshold for v in ans)}/{len(ans)}"
    print(json.dumps(report, indent=1))
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
