"""The cross-encoder of `bench/cross_reader.py` trained on the handbooks' own labels instead
of MTRAG's (session 43, issue 21).

    HF_HUB_OFFLINE=1 nice -n 5 .venv/bin/python bench/cross_reader_handbooks.py [--tag named40c]

MTRAG's labels are the F1 oracle's picks against long retelling references; the handbooks'
are sharp: a unit of the answer's passages holds an `expect` string or not. Each default
trial's answered ANSWERABLE turns (`trial_answers.answerable_rows`: its standalone query and
its top 3 hits' quotable units) give one listwise group. Two folds over the held-out
corpora, the dev handbooks in both trainings, so each held-out corpus is scored by the model
not trained on it. Prints held-out totals only: answers holding every `expect` string for
the shipped answer replayed, the top 3 units by the cross-encoder, and the top 3 by the MiniLM
cosine; and how often each signal's top unit holds an `expect` string.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from cross_reader import score_pairs, train  # noqa: E402
from sentence_screen import CachedEmbed, shipped_sentences  # noqa: E402
from trial_answers import _squash, answerable_rows, hits_of, holds  # noqa: E402

from tellmemore.answer.units import units  # noqa: E402
from tellmemore.injection import quotable  # noqa: E402

DEV = ("clef", "tts", "sourcegraph", "meltano")
FOLD_A = ("posthog", "gitlab", "civicactions", "fleet", "zulip", "rtd")
FOLD_B = ("k8s", "hypha", "supabase", "tuist", "nextcloud", "flowfuse", "github")
MAX_CANDIDATES = 48


def _holds_one(text: str, expect: list[Any]) -> bool:
    low = _squash(text)
    return any(any(_squash(o) in low for o in (e if isinstance(e, list) else [e])) for e in expect)


def _top3(texts: list[str], score: np.ndarray) -> str:
    """The three best-scored units, in reading order."""
    return " ".join(texts[i] for i in sorted(np.argsort(-score)[:3]))


def turns(trials: Path, tag: str, corpus: str) -> list[dict[str, Any]]:
    """Each answered ANSWERABLE turn of the trial: query, the units the answer reads, labels."""
    import json

    trial = json.loads((trials / f"trial_{tag}_{corpus}.json").read_text(encoding="utf-8"))
    out = []
    for row in answerable_rows(trial):
        hits = hits_of(row, trial["passages"])
        texts = [u.text for h in hits[:3] for u in quotable(units(h.chunk.text, h.chunk.header))]
        if len(texts) >= 2:
            out.append({"row": row, "hits": hits, "texts": texts[:MAX_CANDIDATES]})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=Path, default=ROOT / "bench" / ".trials")
    parser.add_argument("--tag", default="named40c")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--train-layers", type=int, default=2)
    parser.add_argument("--vectors", type=Path, help="a pickle of embedded texts, kept")
    args = parser.parse_args()
    data = {c: turns(args.trials, args.tag, c) for c in DEV + FOLD_A + FOLD_B}
    import pickle

    kept = args.vectors if args.vectors and args.vectors.exists() else None
    vectors = pickle.loads(kept.read_bytes()) if kept else {}
    embed = CachedEmbed(vectors)
    got: Counter[str] = Counter()
    for train_on, test_on in ((DEV + FOLD_A, FOLD_B), (DEV + FOLD_B, FOLD_A)):
        groups = []
        for c in train_on:
            for d in data[c]:
                expect = d["row"]["expect"]
                member = np.array([_holds_one(t, expect) for t in d["texts"]], np.float32)
                if 0 < member.sum() < len(member):
                    groups.append((d["row"]["standalone"], d["texts"], member))
        start = time.time()
        tokenizer, model = train(groups, epochs=args.epochs, seed=0, lr=3e-5,
                                 train_layers=args.train_layers)  # fmt: skip
        print(f"trained on {len(groups)} turns in {time.time() - start:.0f} s", flush=True)
        for c in test_on:
            pairs = [(d["row"]["standalone"], t) for d in data[c] for t in d["texts"]]
            cross = score_pairs(tokenizer, model, pairs)
            for d in data[c]:
                query, texts, expect = d["row"]["standalone"], d["texts"], d["row"]["expect"]
                ce = np.array([cross[(query, t)] for t in texts])
                cos = embed(texts) @ embed([query])[0]
                shipped = " ".join(shipped_sentences(query, d["hits"], embed))
                got["turns"] += 1
                got["shipped"] += holds(shipped, expect)
                got["cross top 3"] += holds(_top3(texts, ce), expect)
                got["cosine top 3"] += holds(_top3(texts, cos), expect)
                positive = [i for i, t in enumerate(texts) if _holds_one(t, expect)]
                if positive:
                    got["turns with a positive unit"] += 1
                    got["cross top unit positive"] += int(np.argmax(ce)) in positive
                    got["cosine top unit positive"] += int(np.argmax(cos)) in positive
    print("held out (each corpus scored by the fold not trained on it):", dict(got))
    if args.vectors:
        args.vectors.write_bytes(pickle.dumps(vectors))


if __name__ == "__main__":
    main()
