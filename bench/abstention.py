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

Three signals per case: the best dense cosine similarity over the fused hits of every
phrasing (the rule before this bench: the history phrasing, the message glued to earlier
turns, matched the documents whenever the conversation did), the same over the phrasings
of the user's question only (`abstain.evidence_hits`), and the lexical coverage of those
phrasings (`abstain.lexical_coverage`). Rules are compared at several cosine floors, with
and without the coverage rescue; the configured one (`retrieval.min_dense_score`,
`retrieval.min_lexical_coverage`) is in bold. Results: bench/results/abstention.{json,md}.
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

from tellmemore.analysis import mood  # noqa: E402
from tellmemore.answer import abstain_gate, abstain_override, phrase, turn_signals  # noqa: E402
from tellmemore.answer.abstain import evidence_hits, lexical_coverage  # noqa: E402
from tellmemore.answer.judge import Action, TurnEvidence, judge  # noqa: E402
from tellmemore.answer.scorer import Scorer  # noqa: E402
from tellmemore.answer.stated import value_share  # noqa: E402
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
"""`--cache` overrides it (a shared cache of built indexes)."""
OUT = ROOT / "bench" / "results" / "abstention"
DOMAINS = ("clapnq", "cloud", "govt")
FLOORS = (0.25, 0.30, 0.35, 0.40)
VALUES = (0.3, 0.4, 0.5, 0.6)
"""`retrieval.min_value_share` values measured on top of the configured floors."""
PHRASE_ROW = "the question's phrasings + phrase rule"
"""The phrase rule as shipped (the default since session 19)."""
COVERAGES = (None, 0.5)
"""None: the cosine alone decides."""


def best_dense(hits: list[Hit]) -> float:
    return max((h.dense for h in hits if h.dense is not None), default=0.0)


def scores(
    domain: str, foreign: list[str], settings: Settings, embedder, data: Path, cache: Path
) -> dict:  # type: ignore[no-untyped-def]
    """(fused cosine, question cosine, coverage, judged action, stated-value share, the
    phrase rule's verdict as shipped, its verdict reading remarks too) of each follow-up,
    as typed and replaced."""
    dataset = load_dataset(data / domain)
    index, _ = ensure_index(dataset, embedder=embedder, settings=settings, cache_dir=cache)
    try:
        retriever = Retriever(index, embedder, settings.retrieval)
        context = ResolveContext(term_stats=index.term_stats, window=settings.conversation.window)
        resolver = EmbeddedResolver()
        followups = [t for t in dataset.turns if t.history]
        out: dict[str, list[tuple[float, float, float, str, float, bool, bool, dict]]] = {  # type: ignore[type-arg]
            "answerable": [],
            "out_of_scope": [],
        }
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
                asked = phrasings.evidence()
                own = evidence_hits(result.hits, result.per_query, asked)
                cover = lexical_coverage(asked, result.per_query, index.term_stats)
                verdict = judge(
                    TurnEvidence(
                        message=message,
                        history=history,
                        resolution=resolution,
                        hits=result.hits,
                        per_query=result.per_query,
                        asked=asked,
                        term_stats=index.term_stats,
                        calibration=retriever.calibrator.get(),
                        embed=embedder.embed_documents,
                        min_value_share=settings.retrieval.min_value_share,
                        value_min_near=settings.retrieval.value_min_near,
                    )
                )
                question = next((q for q in asked if q.strip()), "")
                share = value_share(
                    question,
                    own,
                    index.term_stats,
                    embedder.embed_documents,
                    min_near=settings.retrieval.value_min_near,
                ).share
                s = settings.retrieval
                unstated = phrase.lacking(
                    question,
                    own,
                    embedder.embed_documents,
                    min_near=s.phrase_min_near,
                    max_cos=s.phrase_max_cos,
                    kinds_only=s.phrase_kinds_only,
                )
                remark = not mood.asks(message)
                values = turn_signals.of_turn(
                    message, history, resolution, result.hits, retriever.calibrator.get()
                )
                out[case].append(
                    (
                        best_dense(result.hits),
                        best_dense(own),
                        cover,
                        verdict.action.value,
                        share,
                        unstated is not None and not remark,
                        unstated is not None,
                        {
                            k.removeprefix("abstain."): v
                            for k, v in verdict.features.items()
                            if k.startswith("abstain.")
                        },
                        abstain_gate.abstains(values) if result.hits else False,
                        abstain_override.answers(values) if result.hits else False,
                    )
                )
        return out
    finally:
        index.close()


def abstains(case: tuple, rule: dict) -> bool:  # type: ignore[type-arg]
    fused, own, cover, action, share, unstated, unstated_or_remark, features, *gates = case
    if rule.get("learned"):  # the learned gates on the rule's decision (answer.abstain_gate)
        gate_abstains, gate_answers = gates
        if abstains(case, {**rule, "learned": False}):
            return not gate_answers
        return bool(gate_abstains)
    if rule.get("phrase") == "remarks too" and unstated_or_remark:
        return True  # as before session 19: a remark read as a question
    if rule["evidence"] == "judged":
        return action != Action.ANSWER.value  # asked back or abstained: did not answer
    if rule.get("value") and share < rule["value"]:
        return True  # a question for a value no sentence about it states (answer.stated)
    if rule.get("phrase") and unstated:
        return True  # the passages holding its head noun never say its kind (answer.phrase)
    if rule.get("model") is not None:  # a fitted scorer in the floor's place
        return not features or rule["model"].decide(features)
    dense = fused if rule["evidence"] == "every phrasing" else own
    if dense >= rule["floor"]:
        return False
    return rule["coverage"] is None or cover < rule["coverage"]


def share(cases: list[tuple], rule: dict, *, abstain: bool) -> float:  # type: ignore[type-arg]
    return sum(abstains(c, rule) == abstain for c in cases) / len(cases) if cases else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument(
        "--domains",
        default=",".join(DOMAINS),
        help="the domains whose follow-ups are measured (foreign questions: from all three)",
    )
    parser.add_argument(
        "--abstain-model",
        type=Path,
        help="also a row with this fitted abstain scorer (JSON) in the floor's place",
    )
    args = parser.parse_args()
    settings = Settings()
    embedder = load_embedder(settings.embedder)
    firsts = {
        d: [t.message for t in load_dataset(args.data / d).turns if not t.history] for d in DOMAINS
    }
    t0 = time.perf_counter()
    results = {}
    measured = [d.strip() for d in args.domains.split(",") if d.strip()]
    for d in measured:
        foreign = [m for other in DOMAINS if other != d for m in firsts[other]]
        results[d] = scores(d, foreign, settings, embedder, args.data, args.cache)
        print(f"{d}: {len(results[d]['answerable'])} follow-ups", flush=True)
    configured = (settings.retrieval.min_dense_score, settings.retrieval.min_lexical_coverage)
    rules = [{"evidence": "every phrasing", "floor": 0.25, "coverage": None}]  # before
    rules += [
        {"evidence": "the question's phrasings", "floor": f, "coverage": c}
        for c in COVERAGES
        for f in FLOORS
    ]
    rules += [
        {
            "evidence": "the question's phrasings",
            "floor": configured[0],
            "coverage": configured[1],
            "value": v,
        }
        for v in VALUES
    ]
    rules.append(
        {
            "evidence": "the question's phrasings + phrase rule, remarks read too (before)",
            "floor": configured[0],
            "coverage": configured[1],
            "phrase": "remarks too",
        }
    )
    rules.append(
        {
            "evidence": PHRASE_ROW,
            "floor": configured[0],
            "coverage": configured[1],
            "phrase": True,
        }
    )
    rules.append(
        {
            "evidence": "the question's phrasings + learned gates (default since session 47)",
            "floor": configured[0],
            "coverage": configured[1],
            "learned": True,
        }
    )
    rules.append({"evidence": "judged", "floor": None, "coverage": None})  # opt-in
    if args.abstain_model:
        model = Scorer.from_json(json.loads(args.abstain_model.read_text()))
        rules.append(
            {
                "evidence": f"{PHRASE_ROW}, scorer {args.abstain_model.name} for the floor",
                "floor": None,
                "coverage": None,
                "phrase": True,
                "model": model,
            }
        )
    rows = []
    for d in measured:
        for rule in rules:
            rows.append(
                {
                    "domain": d,
                    **{k: v for k, v in rule.items() if k != "model"},
                    "false_abstention": share(results[d]["answerable"], rule, abstain=True),
                    "missed_abstention": share(results[d]["out_of_scope"], rule, abstain=False),
                }
            )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "configured": configured,
        "seconds": round(time.perf_counter() - t0, 1),
        "cases": {d: len(results[d]["answerable"]) for d in measured},
        "rows": rows,
        "value_share": settings.retrieval.min_value_share,
        "phrase_default": settings.retrieval.phrase,
        "learned_default": settings.retrieval.learned_abstain and settings.retrieval.learned_answer,
    }
    args.out.with_suffix(".json").write_text(json.dumps(payload, indent=1) + "\n")
    args.out.with_suffix(".md").write_text(render(payload))
    print(f"wrote {args.out.with_suffix('.md')}")


def render(payload: dict) -> str:  # type: ignore[type-arg]
    """The results table (bench/results/abstention.md) from the payload."""
    configured = tuple(payload["configured"])
    value = payload.get("value_share", 0.0)
    rows = payload["rows"]
    lines = [
        "# Abstention mid-conversation",
        "",
        "`.venv/bin/python bench/abstention.py --cache /work/cache/bench` (see its docstring). "
        "MTRAG follow-up turns on their domain's pooled corpus: *false abstention* = share "
        "of the recorded turns (all answerable) on which the turn abstains; *missed "
        "abstention* = share of the same turns with the message replaced by another "
        "domain's first question on which it answers. The turn abstains when the cosine is "
        "below the floor and, with the coverage rescue, the lexical coverage is below it "
        "too; with a stated-value share, also when the question asks for a quantity (a count, "
        "an amount, a duration) and no sentence of its top five passages that states one "
        "holds that share of its focus words (`answer.stated`, `retrieval.min_value_share`). "
        f"The default (bold): floor {configured[0]}, coverage {configured[1]}, stated value "
        f"{value}. The judged mode (`retrieval.abstention = "
        '"judged"`, opt-in, last row of each domain) is `answer.judge` with the shipped '
        "scorers (fitted on MTRAG-UN, whose conversations are not these) and the same "
        "stated-value rule; there a turn that asks back counts as not answering. The phrase "
        "rule (`retrieval.phrase`, on by default since session 19) also abstains when the "
        "passages holding the question's head noun never hold its modifier, a noun naming "
        "a kind (`answer.phrase`, kinds only, near "
        f"{Settings().retrieval.phrase_min_near}, below cosine "
        f"{Settings().retrieval.phrase_max_cos}), when the message asks (a remark is no "
        "question: `analysis.mood.asks`; the row before reads remarks too). Run time "
        f"{payload['seconds']} s.",
        "",
        "| domain | cosine read over | floor | coverage rescue | stated value | "
        "false abstention | missed abstention |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    default = (*configured, value)
    phrase_default = payload.get("phrase_default", False)
    for r in rows:
        n = payload["cases"][r["domain"]]
        wrong = round(r["false_abstention"] * n)
        if r["evidence"] == "judged":
            lines.append(
                f"| {r['domain']} | judged: answer.judge, shipped scorers | – | – | "
                f"{value or 'off'} | {r['false_abstention']:.3f} ({wrong}/{n}) "
                f"| {r['missed_abstention']:.3f} |"
            )
            continue
        on = (
            bool(r.get("learned")) == payload.get("learned_default", False)
            and (
                r.get("learned")
                or r["evidence"] == (PHRASE_ROW if phrase_default else "the question's phrasings")
            )
            and (
                r["floor"],
                r["coverage"],
                r.get("value") or 0.0,
            )
            == default
        )
        b = "**" if on else ""
        cover = "off" if r["coverage"] is None else f"{r['coverage']:.2f}"
        stated = r.get("value") or "off"
        floor = "scorer" if r["floor"] is None else f"{r['floor']:.2f}"
        lines.append(
            f"| {r['domain']} | {r['evidence']} | {floor} | {cover} | {stated} | "
            f"{b}{r['false_abstention']:.3f} ({wrong}/{n}){b} | "
            f"{b}{r['missed_abstention']:.3f}{b} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
