"""Why `answer.clarify.ask_back` did not ask: the first failing condition, per turn.

    .venv/bin/python bench/ask_back_causes.py --cache /work/cache/bench_md \
        [--retrieved bench/results/behaviour_features.json] [--domains clapnq] [--text]

Reads the hits `bench/behaviour_features.py` kept per labelled MTRAG-UN turn (rebuilt from
the index, as `behaviour_replay.py` does) and walks the rule's conditions in order:
no unanchored description (`answer.unanchored`) and why each description was dropped; the
resolver bound a referent; fewer than `SUBJECTS_TO_ASK` subjects of the kind; too many words
used before; a subject picked by the conversation; fewer than two options. Counts by cause
and label; `--text` prints each UNDERSPECIFIED turn (only for a domain rules may be read
from: clapnq; cloud is held out, counts only).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from behaviour_features import DATA  # noqa: E402
from behaviour_replay import FEATURES, kept_hits, open_domain  # noqa: E402

from tellmemore.answer import clarify  # noqa: E402
from tellmemore.answer import unanchored as U  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.conversation.text import GENERIC_NOUNS, RELATIONAL_NOUNS  # noqa: E402
from tellmemore.index.embedders import load_embedder  # noqa: E402
from tellmemore.types import Resolution  # noqa: E402


def dropped(message: str, history: list[Any]) -> str:
    """Why `unanchored` found nothing: the first reason met by any description."""
    ds = U.descriptions(message)
    if not ds:
        return "no description: no definite/demonstrative run"
    said = {U._form(w) for t in history for w in U._words(t.content)}
    why = []
    for d in ds:
        if any(w in U.UNIQUE or (w.endswith("est") and len(w) > 5) for w in d.words):
            why.append("unique")
        elif d.complement and not d.demonstrative:
            why.append("complement")
        elif d.head in GENERIC_NOUNS or d.head in RELATIONAL_NOUNS:
            why.append("generic head")
        elif U._named(message, d):
            why.append("capitalised")
        elif any(U._form(w) in said for w in d.words):
            why.append("word said before")
    return "no description: " + ",".join(why)


def cause(message: str, history: list[Any], resolution: Resolution, hits: list[Any]) -> str:
    if clarify.just_asked(history):
        return "just asked"
    found = clarify.unanchored_evidence(message, history, resolution, hits)
    if found is None:
        return dropped(message, history)
    if found.bound:
        return "resolver bound a referent"
    if found.subjects < clarify.SUBJECTS_TO_ASK:
        n = len(clarify.subjects(hits))
        any_kind = f"{n}" if n < 3 else "3+"
        return f"subjects of the kind < {clarify.SUBJECTS_TO_ASK} (any kind: {any_kind})"
    if not (found.demonstrative or found.shared <= clarify.MAX_SHARED):
        return "words used before"
    if clarify.picked(message, history, hits, found.description):
        return "picked by the conversation"
    if len(clarify.options(message, history, hits, found.description)) < 2:
        return "fewer than two options"
    return "asks"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--retrieved", type=Path, default=FEATURES)
    parser.add_argument("--domains", default="clapnq,cloud")
    parser.add_argument("--text", action="store_true")
    args = parser.parse_args()
    payload = json.loads(args.retrieved.read_text())
    settings = Settings()
    embedder = load_embedder(settings.embedder)
    for domain in args.domains.split(","):
        index, turns = open_domain(domain, args.data, args.cache, settings, embedder)
        seen: Counter[str] = Counter()
        counts: Counter[tuple[str, str]] = Counter()
        for row in (r for r in payload["rows"] if r["domain"] == domain):
            k = seen[row["task_id"]]
            seen[row["task_id"]] += 1
            label = "UNDERSPECIFIED" if row["label"] == "UNDERSPECIFIED" else "others"
            if "retrieved" not in row:
                counts[(label, row["path"])] += 1
                continue
            turn = turns[row["task_id"]][k]
            got = row["retrieved"]
            hits, _ = kept_hits(got, index)
            res = Resolution(query=row["query"], bindings=got["bindings"])
            c = cause(turn.message, list(turn.history), res, hits)
            if c != "asks" and clarify.ask_back(turn.message, list(turn.history), res, hits):
                c = "asks (titled)"
            counts[(label, c)] += 1
            if args.text and label == "UNDERSPECIFIED" and domain == "clapnq":
                print(f"[{c}] ({len(turn.history) // 2} turns) {turn.message}")
                print("    subjects:", [s.name for s in clarify.subjects(hits)][:5])
                print("    bindings:", got["bindings"])
        index.close()
        print(f"## {domain}")
        for (label, c), n in sorted(counts.items()):
            print(f"{label:15} {n:4}  {c}")


if __name__ == "__main__":
    main()
