"""Does a question match this corpus better than a background of other handbooks? (issue 22)

Why: an unanswerable handbook question is often one another company's handbook answers ("do
we get a gym membership reimbursement?"), so its best match here is weak *relative to* what
such documents usually hold. The contrast c = (best cosine over this corpus's chunks) - (best
cosine over a background's chunks) reads the question on a scale set by other documents
rather than by a global floor. The background is the dev handbooks (Clef, TTS, Sourcegraph,
Meltano), never the corpus scored: a dev corpus gets the others, a held-out one all of them.

Rows: the default trials' ANSWERABLE and UNANSWERABLE turns (`bench/default_trials.sh TREE
TAG`), each read as the standalone query it searched. Printed per group (dev, held-out HR
handbooks, each other held-out corpus): the AUC of "unanswerable scores higher" for the own
best cosine (negated), the background's, the contrast (negated), and the floor's signal (the
best dense score among the turn's hits, negated); then on dev only, the floor OR c < t
operating curve, the decision replayed on every group at one threshold, and the own best
cosine alone as the floor. Held-out corpora are reported as totals only.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/background_contrast.py --tag base --work /work/cache/bg
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
from handbook_corpora import CORPORA
from handbook_trial import copy_corpus
from typed_follow_ups import auc

from tellmemore.assistant import Assistant
from tellmemore.config import Settings
from tellmemore.index.embedders import SentenceTransformerEmbedder

ROOT = Path(__file__).resolve().parents[1]
DEV = ("clef", "tts", "sourcegraph", "meltano")
HELD_OUT_HR = ("posthog", "gitlab", "civicactions", "fleet")
THRESHOLDS = (-0.2, -0.15, -0.1, -0.05, 0.0)


def chunk_vectors(work: Path, name: str) -> np.ndarray:
    """The corpus's chunk vectors as the product indexes it (ingested once into `work`)."""
    folder = work / name
    if not (folder / "done").exists():
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        assistant = Assistant.open(folder / "project", settings=Settings())
        assistant.ingest([copy_corpus(folder / "docs", CORPORA[name].root)])
        assistant.close()
        (folder / "done").write_text("ok", encoding="utf-8")
    with sqlite3.connect(folder / "project" / "index.db") as db:
        blobs = db.execute("select vector from chunks").fetchall()
    return np.stack([np.frombuffer(b, dtype=np.float32) for (b,) in blobs])


def scored_rows(tag: str, name: str, vectors: dict[str, np.ndarray], embedder: Any) -> list[dict]:  # type: ignore[type-arg]
    trial = json.loads((ROOT / "bench" / ".trials" / f"trial_{tag}_{name}.json").read_text())
    rows = [
        r
        for r in trial["rows"]
        if r["mode"].startswith("floor")
        and r["label"] in ("ANSWERABLE", "UNANSWERABLE")
        and r.get("standalone")
    ]
    if not rows:
        return []
    queries = embedder.embed_queries([r["standalone"] for r in rows])
    background = np.concatenate([vectors[d] for d in DEV if d != name])
    own = (queries @ vectors[name].T).max(1)
    other = (queries @ background.T).max(1)
    return [
        {
            "unanswerable": r["label"] == "UNANSWERABLE",
            "abstained": r["action"] == "abstain",
            "own": float(o),
            "background": float(b),
            "hit": max((h["dense"] or 0.0 for h in r["hits"]), default=0.0),
        }
        for r, o, b in zip(rows, own, other, strict=True)
    ]


def auc_line(group: str, rows: list[dict]) -> str:  # type: ignore[type-arg]
    signals = {
        "own": lambda r: -r["own"],
        "background": lambda r: r["background"],
        "contrast": lambda r: r["background"] - r["own"],
        "floor signal": lambda r: -r["hit"],
    }
    pos = [r for r in rows if r["unanswerable"]]
    neg = [r for r in rows if not r["unanswerable"]]
    cells = " | ".join(
        f"{auc([f(r) for r in pos], [f(r) for r in neg]):.3f}" for f in signals.values()
    )
    return f"| {group} | {len(pos)} / {len(neg)} | {cells} |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tag", default="base")
    ap.add_argument("--work", type=Path, required=True, help="where each corpus is ingested once")
    ap.add_argument(
        "--t", type=float, default=-0.15, help="the contrast threshold replayed per group"
    )
    args = ap.parse_args()
    embedder = SentenceTransformerEmbedder()
    vectors = {name: chunk_vectors(args.work, name) for name in CORPORA}
    groups = {"dev": list(DEV), "held-out HR handbooks": list(HELD_OUT_HR)}
    groups |= {
        f"held-out {n}": [n] for n in CORPORA if CORPORA[n].held_out and n not in HELD_OUT_HR
    }
    print("| group | unanswerable / answerable | own | background | contrast | floor signal |")
    print("| --- | --- | --- | --- | --- | --- |")
    rows_by_group = {}
    for group, names in groups.items():
        rows_by_group[group] = [
            r for n in names for r in scored_rows(args.tag, n, vectors, embedder)
        ]
        print(auc_line(group, rows_by_group[group]), flush=True)
    dev = rows_by_group["dev"]
    print("\nDev, the floor or c < t abstains (unanswerable caught / answerable abstained):")
    caught = sum(r["unanswerable"] and r["abstained"] for r in dev)
    false = sum(not r["unanswerable"] and r["abstained"] for r in dev)
    print(f"floor alone: {caught} / {false}")
    for t in THRESHOLDS:
        fires = [r["abstained"] or r["own"] - r["background"] < t for r in dev]
        caught = sum(f and r["unanswerable"] for f, r in zip(fires, dev, strict=True))
        false = sum(f and not r["unanswerable"] for f, r in zip(fires, dev, strict=True))
        print(f"t = {t:+.2f}: {caught} / {false}")
    print(f"\nEvery group, the floor alone -> the floor or c < {args.t:+.2f} (caught / abstained):")
    for group, rows in rows_by_group.items():
        before = (
            sum(r["unanswerable"] and r["abstained"] for r in rows),
            sum(not r["unanswerable"] and r["abstained"] for r in rows),
        )
        fires = [r["abstained"] or r["own"] - r["background"] < args.t for r in rows]
        after = (
            sum(f and r["unanswerable"] for f, r in zip(fires, rows, strict=True)),
            sum(f and not r["unanswerable"] for f, r in zip(fires, rows, strict=True)),
        )
        print(f"{group}: {before[0]} / {before[1]} -> {after[0]} / {after[1]}")
    own_floor(rows_by_group)


def own_floor(rows_by_group: dict[str, list[dict]]) -> None:  # type: ignore[type-arg]
    """The own best cosine alone as the floor: the highest threshold (0.005 steps) whose dev
    false abstentions stay at the floor's, replayed on every group."""
    dev = rows_by_group["dev"]
    allowed = sum(not r["unanswerable"] and r["abstained"] for r in dev)
    grid = [round(0.2 + 0.005 * i, 3) for i in range(80)]
    theta = max(
        t for t in grid if sum(not r["unanswerable"] and r["own"] < t for r in dev) <= allowed
    )
    print(f"\nThe own best cosine < {theta} instead of the floor (caught / abstained):")
    for group, rows in rows_by_group.items():
        caught = sum(r["unanswerable"] and r["own"] < theta for r in rows)
        false = sum(not r["unanswerable"] and r["own"] < theta for r in rows)
        print(f"{group}: {caught} / {false}")


if __name__ == "__main__":
    main()
