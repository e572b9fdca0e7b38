"""Abstention mid-conversation: answer the follow-ups, abstain on a question from elsewhere.

    .venv/bin/python bench/abstention.py

On each MTRAG domain's cached index (`tellmemore eval` builds it), every follow-up turn is
run as a tellmemore turn runs it (typos fixed, embedded resolver, the searched phrasings
fused). Two cases per turn:

- **answerable**: the turn as recorded; every MTRAG turn here has gold passages, so an
  abstention is a false one.
- **out of scope**: the same history, but the message is the first question of a
  conversation from another domain (Wikipedia asked of IBM Cloud docs, and so on). The
  documents do not hold its answer, so answering it is a missed abstention. (clapnq and
  govt share some general topics; cloud against either is the clean pair.)

The evidence score is the best dense cosine similarity, read two ways: over the fused
hits of every phrasing (the rule before this bench: the history phrasing, the message glued
to earlier turns, matched the documents whenever the conversation did) and over the
phrasings of the user's question only (`abstain.evidence_hits`, the rule now). Rates are
given at the configured floor (`retrieval.min_dense_score`) and a few others.
Results: bench/results/abstention.{json,md}.
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

from tellmemore.answer.abstain import evidence_hits  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.conversation.phrasings import search_phrasings  # noqa: E402
from tellmemore.conversation.resolvers import EmbeddedResolver, ResolveContext  # noqa: E402
from tellmemore.conversation.spelling import correct_spelling  # noqa: E402
from tellmemore.eval.corpus import ensure_index  # noqa: E402
from tellmemore.eval.datasets import load_dataset  # noqa: E402
from tellmemore.index.embedders import load_embedder  # noqa: E402
from tellmemore.retrieval import Retriever  # noqa: E402
from tellmemore.types import Hit  # noqa: E402

DATA = ROOT.parent / "shared" / "bench" / "mtrag"
CACHE = ROOT / "bench" / ".cache"
OUT = ROOT / "bench" / "results" / "abstention"
DOMAINS = ("clapnq", "cloud", "govt")
FLOORS = (0.20, 0.25, 0.30, 0.35, 0.40)


def best_dense(hits: list[Hit]) -> float:
    return max((h.dense for h in hits if h.dense is not None), default=0.0)


def scores(domain: str, foreign: list[str], settings: Settings, embedder, data: Path) -> dict:  # type: ignore[no-untyped-def]
    """Evidence scores (fused, question only) of each follow-up, as typed and replaced."""
    dataset = load_dataset(data / domain)
    index, _ = ensure_index(dataset, embedder=embedder, settings=settings, cache_dir=CACHE)
    try:
        retriever = Retriever(index, embedder, settings.retrieval)
        context = ResolveContext(term_stats=index.term_stats, window=settings.conversation.window)
        resolver = EmbeddedResolver()
        followups = [t for t in dataset.turns if t.history]
        out: dict[str, list[tuple[float, float]]] = {"answerable": [], "out_of_scope": []}
        for i, turn in enumerate(followups):
            cases = {"answerable": turn.message, "out_of_scope": foreign[i % len(foreign)]}
            for case, message in cases.items():
                history = list(turn.history)
                searched, _ = correct_spelling(message, index.term_stats)
                resolution = resolver.resolve(searched, history, context)
                phrasings = search_phrasings(
                    message, resolution, history, index.term_stats, searched=searched
                )
                if not phrasings.queries:  # asked back: no search, no abstention question
                    continue
                result = retriever.search(phrasings.queries, weights=phrasings.weights)
                own = evidence_hits(result.hits, result.per_query, phrasings.evidence())
                out[case].append((best_dense(result.hits), best_dense(own)))
        return out
    finally:
        index.close()


def rates(pairs: list[tuple[float, float]], floor: float, which: int, *, below: bool) -> float:
    hits = [p[which] < floor if below else p[which] >= floor for p in pairs]
    return sum(hits) / len(hits) if hits else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    settings = Settings()
    embedder = load_embedder(settings.embedder)
    firsts = {
        d: [t.message for t in load_dataset(args.data / d).turns if not t.history] for d in DOMAINS
    }
    t0 = time.perf_counter()
    results = {}
    for d in DOMAINS:
        foreign = [m for other in DOMAINS if other != d for m in firsts[other]]
        results[d] = scores(d, foreign, settings, embedder, args.data)
        print(f"{d}: {len(results[d]['answerable'])} follow-ups", flush=True)
    floor = settings.retrieval.min_dense_score
    rows = []
    for d in DOMAINS:
        for which, rule in ((0, "every phrasing (before)"), (1, "the question's phrasings")):
            for f in FLOORS:
                rows.append(
                    {
                        "domain": d,
                        "rule": rule,
                        "floor": f,
                        "false_abstention": rates(results[d]["answerable"], f, which, below=True),
                        "missed_abstention": rates(
                            results[d]["out_of_scope"], f, which, below=False
                        ),
                    }
                )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    payload = {"floor": floor, "seconds": round(time.perf_counter() - t0, 1), "rows": rows}
    args.out.with_suffix(".json").write_text(json.dumps(payload, indent=1) + "\n")
    lines = [
        "# Abstention mid-conversation",
        "",
        "`.venv/bin/python bench/abstention.py` (see its docstring). MTRAG follow-up turns on "
        "their domain's pooled corpus: *false abstention* = share of the recorded turns "
        "(all answerable) on which the turn abstains; *missed abstention* = share of the "
        "same turns with the message replaced by another domain's first question on which "
        f"it answers. Configured floor: {floor}. Run time {payload['seconds']} s.",
        "",
        "| domain | evidence read over | floor | false abstention | missed abstention |",
        "| --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        mark = "**" if r["floor"] == floor else ""
        lines.append(
            f"| {r['domain']} | {r['rule']} | {mark}{r['floor']:.2f}{mark} | "
            f"{r['false_abstention']:.3f} | {r['missed_abstention']:.3f} |"
        )
    args.out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out.with_suffix('.md')}")


if __name__ == "__main__":
    main()
