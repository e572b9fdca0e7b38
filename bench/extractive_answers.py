"""The offline (extractive) answer against the reference answers of the MTRAG conversations.

    .venv/bin/python bench/extractive_answers.py

For every turn whose next turn's history holds the assistant's reference response, the
extractive answer is built from the turn's gold passages (perfect retrieval, so only the
sentence choice is measured) for the human rewrite, and compared with the reference on
content words (`answer.extractive.terms`): recall (share of the reference's words the
answer says) and F1. Reported for all turns and for the turns whose question asks for a
kind of answer (`answer.answer_types`: a duration, a price, a time, a count), with the
answer-type bonus (`extractive.ANSWER_TYPE_WEIGHT`) off and at its committed value.
No index or model needed. Results: bench/results/extractive_answers.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tellmemore.answer import extractive  # noqa: E402
from tellmemore.answer.answer_types import asked_type  # noqa: E402
from tellmemore.eval.datasets import EvalTurn, load_dataset  # noqa: E402
from tellmemore.testing.conformance import make_chunk  # noqa: E402
from tellmemore.types import Hit  # noqa: E402

DATA = ROOT.parent / "shared" / "bench" / "mtrag"
OUT = ROOT / "bench" / "results" / "extractive_answers"
DOMAINS = ("clapnq", "cloud", "govt")
GOLD_CHUNKS = 3
"""The extractive answer reads at most this many chunks (extractive.MAX_CHUNKS)."""


def cases(data: Path, domain: str) -> Iterator[tuple[EvalTurn, list[Hit], str]]:
    """(turn, its gold passages as hits, the reference answer) for each answerable turn."""
    ds = load_dataset(data / domain)
    corpus = {}
    with (data / domain / "corpus.jsonl").open(encoding="utf-8") as f:
        for line in f:
            doc = json.loads(line)
            corpus[doc["_id"]] = doc
    reference = {
        (t.conversation_id, t.turn - 1): t.history[-1].content
        for t in ds.turns
        if t.history and t.history[-1].role == "assistant"
    }
    for t in ds.turns:
        ref = reference.get((t.conversation_id, t.turn))
        hits = [
            Hit(chunk=make_chunk(g, corpus[g]["text"], title=corpus[g].get("title", "")),
                score=1.0, rank=i + 1)
            for i, g in enumerate(g for g in t.gold if g in corpus)
        ][:GOLD_CHUNKS]  # fmt: skip
        if ref and hits:
            yield t, hits, ref


def scores(answer: str, reference: str) -> tuple[float, float]:
    said, ref = set(extractive.terms(answer)), set(extractive.terms(reference))
    if not said or not ref:
        return 0.0, 0.0
    shared = len(said & ref)
    recall, precision = shared / len(ref), shared / len(said)
    return recall, (2 * recall * precision / (recall + precision) if shared else 0.0)


def run(data: Path, weight: float) -> dict[str, dict[str, float]]:
    extractive.ANSWER_TYPE_WEIGHT = weight
    groups: dict[str, list[tuple[float, float]]] = {"all": [], "typed": []}
    kinds: Counter[str] = Counter()
    for domain in DOMAINS:
        for turn, hits, ref in cases(data, domain):
            answer = " ".join(e.sentence for e in extractive.best_sentences(turn.rewrite, hits))
            pair = scores(answer, ref)
            groups["all"].append(pair)
            kind = asked_type(turn.rewrite)
            if kind is not None:
                groups["typed"].append(pair)
                kinds[str(kind)] += 1
    out = {
        name: {
            "n": len(rows),
            "recall": round(sum(r for r, _ in rows) / len(rows), 4) if rows else 0.0,
            "f1": round(sum(f for _, f in rows) / len(rows), 4) if rows else 0.0,
        }
        for name, rows in groups.items()
    }
    out["typed"]["kinds"] = dict(kinds)  # type: ignore[assignment]
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    shipped = extractive.ANSWER_TYPE_WEIGHT
    results = {"off": run(args.data, 0.0), "shipped": run(args.data, shipped)}
    extractive.ANSWER_TYPE_WEIGHT = shipped
    args.out.with_suffix(".json").write_text(json.dumps(results, indent=1) + "\n")
    lines = [
        "# Extractive answers vs the MTRAG reference answers",
        "",
        "`bench/extractive_answers.py`: the offline answer built from each turn's gold "
        "passages (perfect retrieval) for the human rewrite, against the assistant's "
        "reference response, on content words. 'typed' = turns whose question asks for a "
        f"duration, price, time or count ({results['shipped']['typed']['kinds']}).",
        "",
        "| answer-type bonus | turns | recall (all) | F1 (all) | typed turns | recall (typed) "
        "| F1 (typed) |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, label in (("off", "0 (off)"), ("shipped", f"{shipped} (shipped)")):
        r = results[name]
        lines.append(
            f"| {label} | {r['all']['n']} | {r['all']['recall']:.4f} | {r['all']['f1']:.4f} "
            f"| {r['typed']['n']} | {r['typed']['recall']:.4f} | {r['typed']['f1']:.4f} |"
        )
    args.out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
