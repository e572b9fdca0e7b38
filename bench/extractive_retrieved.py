"""The offline extractive answer on RETRIEVED passages, with and without `retrieval.spread_gap`.

    HF_HUB_OFFLINE=1 nice -n 5 .venv/bin/python bench/extractive_retrieved.py \
        --cache /work/cache/bench_md --out bench/results/extractive_retrieved

`bench/extractive_answers.py` hands the answer its gold passages without retrieval scores,
so the dense-cosine gate of `extractive.spread` never closes there. Here each turn's top
k=5 hits come from the cached eval index (default hybrid retriever, one phrasing: MTRAG's
human rewrite, MTRAG-UN's message as typed), then the answer is built with each gap and
scored against the reference (`answer.overlap.score_text`, content-word recall and F1),
all with the shipped sentence weights (MTRAG's three domains are in their fit: the gaps are
compared with each other, not with extractive_answers.md's held-out figures).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from behaviour_features import corpus_dir  # noqa: E402
from extractive_answers import (  # noqa: E402
    DATA,
    DOMAINS,
    SELECTION,
    UN_DOMAINS,
    WEIGHTS,
    CachedEmbed,
    Case,
    _corpus,
    _hits,
    add_selection_flags,
    mtrag_cases,
    set_selection,
)

from tellmemore.answer import extractive, lists, scoring  # noqa: E402
from tellmemore.answer.overlap import score_text  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.eval.corpus import ensure_index  # noqa: E402
from tellmemore.eval.datasets import load_dataset  # noqa: E402
from tellmemore.retrieval import Retriever  # noqa: E402

OUT = ROOT / "bench" / "results" / "extractive_retrieved"
GAPS: tuple[float | str | None, ...] = (
    None,
    0.05,
    0.1,
    0.15,
    "0.1/0.05",
    "0.1/0.02",
    "0.15/0.05",
    "0.1/0.05 kinds",
)
"""Gaps: one for every question, or "wide/single": `wide` for a question asking for several
things (`lists.asks_several`), `single` otherwise (`retrieval.spread_gap_single`); "kinds":
several only by `lists.listed_class` (the members or kinds of a class), for comparison."""
K = 5
UN_LABELS = ("ANSWERABLE", "PARTIAL")


def un_cases(data: Path, domain: str) -> Iterator[Case]:
    """MTRAG-UN's ANSWERABLE and PARTIAL turns with a `target` (extractive_answers.un_cases
    keeps ANSWERABLE only); the domain names the label, e.g. "clapnq/PARTIAL"."""
    corpus = _corpus(data / "mtrag" / domain / "corpus.jsonl")
    with (data / "mtrag-un" / domain / "behaviour.jsonl").open(encoding="utf-8") as f:
        for t in map(json.loads, f):
            label = next((x for x in UN_LABELS if x in t["answerability"]), None)
            if label and t.get("target") and _hits(t["gold"], corpus):
                yield Case(f"{domain}/{label}", t["message"], [], t["target"].strip())


def retrieve(cases: list[Case], domain: str, data: Path, cache: Path, every: int) -> list[Case]:
    """`cases` (every `every`-th) with their top K hits from the domain's cached index."""
    settings = Settings()
    from tellmemore.index.embedders import load_embedder

    embedder = load_embedder(settings.embedder)
    dataset = load_dataset(corpus_dir(data / "mtrag" / domain), skip_invalid=True)
    index, _ = ensure_index(dataset, embedder=embedder, settings=settings, cache_dir=cache)
    try:
        retriever = Retriever(index, embedder, settings.retrieval)
        return [
            replace(c, hits=list(retriever.search([c.query], k=K).hits)) for c in cases[::every]
        ]
    finally:
        index.close()


def answer(case: Case, embed: CachedEmbed, scorer: scoring.Scorer, gap: float | str | None) -> str:
    wide, single = (gap, None) if not isinstance(gap, str) else _split(gap)
    several = lists.asks_several
    if isinstance(gap, str) and gap.endswith("kinds"):
        lists.asks_several = lambda q: lists.listed_class(q.strip().rstrip("?.! ")) is not None
    try:
        extracts = _answer(case, embed, scorer, wide, single)
    finally:
        lists.asks_several = several
    return " ".join(e.sentence for e in extracts)


def _split(gap: str) -> tuple[float, float]:
    wide, single = gap.split()[0].split("/")
    return float(wide), float(single)


def _answer(
    case: Case,
    embed: CachedEmbed,
    scorer: scoring.Scorer,
    wide: float | None,
    single: float | None,
) -> list[extractive.Extract]:
    return extractive.best_sentences(
        case.query,
        case.hits,
        embed=embed,
        scorer=scorer,
        spread_gap=wide,
        single_gap=single,
        opening=SELECTION["opening"],
        headed=SELECTION["headed"],
    )


def measure(cases: Sequence[Case], embed: CachedEmbed, scorer: scoring.Scorer) -> dict:
    """Mean recall/F1 per gap, the turns whose answer the gap changed, and how many turns
    the gate could close on (all of the top 3 hits with a dense cosine)."""
    texts = {g: [answer(c, embed, scorer, g) for c in cases] for g in GAPS}
    base = [score_text(a, c.reference)[1] for a, c in zip(texts[None], cases, strict=True)]
    n = len(cases)
    out: dict = {
        "n": n,
        "cosines_known": sum(all(h.dense is not None for h in c.hits[:3]) for c in cases),
        "several": sum(lists.asks_several(c.query) for c in cases),
    }
    for g in GAPS:
        pairs = [score_text(a, c.reference) for a, c in zip(texts[g], cases, strict=True)]
        f1 = [f for _, f in pairs]
        out[str(g)] = {
            "recall": round(sum(r for r, _ in pairs) / n, 4) if n else 0.0,
            "f1": round(sum(f1) / n, 4) if n else 0.0,
            "words": round(sum(len(a.split()) for a in texts[g]) / n, 1) if n else 0.0,
            "changed": sum(a != b for a, b in zip(texts[g], texts[None], strict=True)),
            "better": sum(a > b + 1e-9 for a, b in zip(f1, base, strict=True)),
            "worse": sum(a < b - 1e-9 for a, b in zip(f1, base, strict=True)),
            "per_turn_f1": [round(f, 4) for f in f1],  # for paired tests (bench/paired_f1.py)
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--every", type=int, default=1, help="MTRAG: every n-th turn only")
    parser.add_argument(
        "--embeddings", type=Path, default=ROOT / "bench" / ".cache" / "extractive_vectors.npz"
    )
    parser.add_argument(
        "--weights",
        type=Path,
        default=WEIGHTS,
        help="the sentence weights (the shipped ones by default)",
    )
    add_selection_flags(parser)
    args = parser.parse_args()
    set_selection(args)
    t0 = time.perf_counter()
    embed = CachedEmbed(args.embeddings)
    scorer = scoring.Scorer.from_json(args.weights.read_text(encoding="utf-8"))
    groups: dict[str, list[Case]] = {}
    for d in DOMAINS:
        cases = list(mtrag_cases(args.data, d))
        groups[f"mtrag/{d}"] = retrieve(cases, d, args.data, args.cache, args.every)
        if d in UN_DOMAINS:
            un = list(un_cases(args.data, d))
            got = retrieve(un, d, args.data, args.cache, 1)
            for label in UN_LABELS:
                groups[f"mtrag-un/{d}/{label}"] = [c for c in got if c.domain.endswith(label)]
        print(d, "retrieved", round(time.perf_counter() - t0), "s", flush=True)
    results: dict = {
        "k": K,
        "every": args.every,
        "opening": args.opening,
        "headed": args.headed,
        "weights": str(args.weights.resolve().relative_to(ROOT))
        if args.weights.resolve().is_relative_to(ROOT)
        else str(args.weights),
        "groups": {},
    }
    for name, cases in groups.items():
        embed.warm(cases)
        results["groups"][name] = measure(cases, embed, scorer)
        print(name, results["groups"][name], flush=True)
    results["seconds"] = round(time.perf_counter() - t0, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(results, indent=1) + "\n")
    args.out.with_suffix(".md").write_text(report(results))


def report(results: dict) -> str:
    lines = [
        "# The extractive answer on retrieved passages, by `retrieval.spread_gap` (issue 21)",
        "",
        f"`bench/extractive_retrieved.py`: top k={results['k']} hits of the default hybrid "
        "retriever on the cached eval index; MTRAG: the human rewrite as the query, the "
        "assistant's reply as the reference ("
        + ("every turn" if results["every"] == 1 else f"every {results['every']}-th turn")
        + "); MTRAG-UN: the message as typed, `target` as the "
        "reference. Sentence weights for every set: "
        + results.get("weights", "tellmemore/answer/sentence_weights.json (shipped)")
        + ". F1 / recall: "
        "`answer.overlap.score_text`. changed = turns whose answer differs from gap None "
        "(better / worse F1). known = turns whose 3 quoted hits all have a dense cosine "
        f"(else the gate stays open). Run time {results['seconds']:.0f} s."
        + (
            " With `retrieval.quote_opening` (`--opening`, opt-in)."
            if results.get("opening")
            else ""
        )
        + (" With `retrieval.quote_headed` (`--headed`, opt-in)." if results.get("headed") else ""),
        "",
        "| set | turns | known | "
        + " | ".join(f"F1 gap {g}" for g in GAPS)
        + " | "
        + " | ".join(f"changed {g} (+/-)" for g in GAPS[1:])
        + " |",
        "| --- " * (3 + 2 * len(GAPS) - 1) + "|",
    ]
    for name, r in results["groups"].items():
        f1 = " | ".join(f"{r[str(g)]['f1']:.4f}" for g in GAPS)
        ch = " | ".join(
            f"{r[str(g)]['changed']} (+{r[str(g)]['better']}/-{r[str(g)]['worse']})"
            for g in GAPS[1:]
        )
        lines.append(f"| {name} | {r['n']} | {r['cosines_known']} | {f1} | {ch} |")
    lines += ["", COMMAND]
    return "\n".join(lines) + "\n"


COMMAND = (
    "Command: `HF_HUB_OFFLINE=1 nice -n 5 .venv/bin/python bench/extractive_retrieved.py "
    "--cache /work/cache/bench_md --out bench/results/extractive_retrieved` (eval indexes "
    "built by bench/loo_eval.py; the query vectors were cached there too)."
)


if __name__ == "__main__":
    main()
