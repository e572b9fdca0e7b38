"""Abstain when the documents do not hold what the question asks about (issue 22).

    .venv/bin/python bench/focus_coverage.py --cache /work/cache/bench          # collect + report
    .venv/bin/python bench/focus_coverage.py --report-only                      # report again

`answer.focus` reads a question's focus words that no top passage holds, that at most a
share of the index's chunks hold, and that no word of the top passages is close to. This
bench measures that rule on:

- **MTRAG negatives**: every MTRAG turn (clapnq, cloud, govt; 597, all with gold
  passages) run as a turn runs it (typos fixed, embedded resolver, the searched phrasings
  fused): an abstention there is a false one;
- **foreign positives**: the same turns with the message replaced by another domain's
  first question (as bench/abstention.py): answering is a missed abstention;
- **MTRAG-UN**: the labelled last turns of clapnq and cloud, from the hits
  bench/behaviour_features.py kept (bench/results/behaviour_features.json);
- **real documents**: the licences of bench/real_documents.py (not tuned on), and
  ordinary questions a new user asks of the bundled sample docs (`SAMPLE_ANSWERABLE`,
  `SAMPLE_UNANSWERABLE`).

The thresholds (share, nearness) are chosen on MTRAG's negatives of every domain but the
held-out one plus one MTRAG-UN domain (most UNANSWERABLE abstentions with at most
`--max-false` of the fitting negatives abstaining), and reported on the other MTRAG-UN
domain, both ways, and on the licences. A turn abstains when the shipped floor rule does
(`retrieval.abstention = "floor"`) or the focus rule does. Results:
bench/results/focus_coverage.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from behaviour_features import corpus_dir  # noqa: E402
from real_documents import CASES, DOCS, LICENCES  # noqa: E402

from tellmemore.answer import focus  # noqa: E402
from tellmemore.answer.abstain import evidence_hits, lexical_coverage  # noqa: E402
from tellmemore.assistant import Assistant  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.conversation.phrasings import search_phrasings  # noqa: E402
from tellmemore.conversation.resolvers import EmbeddedResolver, ResolveContext  # noqa: E402
from tellmemore.conversation.spelling import correct_spelling  # noqa: E402
from tellmemore.eval.corpus import ensure_index  # noqa: E402
from tellmemore.eval.datasets import load_dataset  # noqa: E402
from tellmemore.index.embedders import load_embedder  # noqa: E402
from tellmemore.retrieval import Retriever  # noqa: E402
from tellmemore.types import Hit, Turn  # noqa: E402

MTRAG = ROOT.parent / "shared" / "bench" / "mtrag"
MTRAG_UN = ROOT.parent / "shared" / "bench" / "mtrag-un"
KEPT = ROOT / "bench" / "results" / "behaviour_features.json"
OUT = ROOT / "bench" / "results" / "focus_coverage"
DOMAINS = ("clapnq", "cloud", "govt")
UN_DOMAINS = ("clapnq", "cloud")
COLLECT_SHARE = 0.01
"""Unheld focus words up to this share of the chunks are kept (the sweep reads below)."""
SHARES = (0.0, 0.0001, 0.0003, 0.001, 0.003, 0.01)
NEARS = (0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7)
CEILINGS = (1.0, 0.55, 0.5, 0.45)
"""The focus rule acts only when the question's best cosine is below this."""


def best_dense(hits: list[Hit]) -> float:
    return max((h.dense for h in hits if h.dense is not None), default=0.0)


def case(
    question_hits: list[Hit], asked: list[str], per_query: dict, index: Any, embed: Any
) -> dict[str, Any]:
    """What the floor rule and the focus rule read of one turn."""
    own = evidence_hits(question_hits, per_query, asked)
    question = next((q for q in asked if q.strip()), "")
    words = focus.unheld(question, own, index.term_stats, embed, max_share=COLLECT_SHARE)
    return {
        "question": question,
        "cos": best_dense(own),
        "coverage": lexical_coverage(asked, per_query, index.term_stats),
        "unheld": [
            [f.word, f.share, round(f.near, 4), f.named, f.in_phrase, f.misspelt] for f in words
        ],
    }


def run_turn(index, retriever, resolver, settings, message, history, embed) -> dict | None:  # type: ignore[no-untyped-def]
    context = ResolveContext(term_stats=index.term_stats, window=settings.conversation.window)
    searched, _ = correct_spelling(message, index.term_stats)
    resolution = resolver.resolve(searched, history, context)
    phrasings = search_phrasings(message, resolution, history, index.term_stats, searched=searched)
    if not phrasings.queries:
        return None
    result = retriever.search(phrasings.queries, weights=phrasings.weights)
    if not result.hits:
        return None
    asked = list(phrasings.evidence())
    return case(list(result.hits), asked, dict(result.per_query), index, embed)


def collect_mtrag(data: Path, cache: Path, settings: Settings, embedder) -> list[dict]:  # type: ignore[no-untyped-def]
    firsts = {
        d: [t.message for t in load_dataset(data / d).turns if not t.history] for d in DOMAINS
    }
    rows: list[dict] = []
    for d in DOMAINS:
        dataset = load_dataset(data / d)
        index, _ = ensure_index(dataset, embedder=embedder, settings=settings, cache_dir=cache)
        foreign = [m for other in DOMAINS if other != d for m in firsts[other]]
        try:
            retriever = Retriever(index, embedder, settings.retrieval)
            resolver = EmbeddedResolver()
            for i, turn in enumerate(dataset.turns):
                cases = {"answerable": turn.message, "foreign": foreign[i % len(foreign)]}
                for kind, message in cases.items():
                    got = run_turn(
                        index,
                        retriever,
                        resolver,
                        settings,
                        message,
                        list(turn.history),
                        embedder.embed_documents,
                    )
                    if got is not None:
                        rows.append(
                            {"set": "mtrag", "domain": d, "kind": kind, "message": message, **got}
                        )
        finally:
            index.close()
        print(f"mtrag {d}: {sum(r['domain'] == d for r in rows)} cases", flush=True)
    return rows


def _hits(rows: list[list[Any]], chunks: dict[str, Any]) -> list[Hit]:
    return [
        Hit(chunks[cid], score, rank + 1, bm25, dense)
        for rank, (cid, score, bm25, dense) in enumerate(rows)
        if cid in chunks
    ]


def collect_un(kept: Path, data: Path, cache: Path, settings: Settings, embedder) -> list[dict]:  # type: ignore[no-untyped-def]
    payload = json.loads(kept.read_text())
    rows: list[dict] = []
    for d in UN_DOMAINS:
        dataset = load_dataset(corpus_dir(data / d), skip_invalid=True)
        index, _ = ensure_index(dataset, embedder=embedder, settings=settings, cache_dir=cache)
        try:
            for r in payload["rows"]:
                if r["domain"] != d or "retrieved" not in r:
                    continue
                got = r["retrieved"]
                ids = {c[0] for c in got["hits"]} | {
                    c[0] for hs in got["per_query"].values() for c in hs
                }
                chunks = {c.id: c for c in index.get(sorted(ids))}
                hits = _hits(got["hits"], chunks)
                per_query = {q: _hits(hs, chunks) for q, hs in got["per_query"].items()}
                rows.append(
                    {
                        "set": "mtrag-un",
                        "domain": d,
                        "kind": r["label"],
                        "message": r["message"],
                        **case(hits, got["asked"], per_query, index, embedder.embed_documents),
                    }
                )
        finally:
            index.close()
        print(f"mtrag-un {d}: {sum(r['domain'] == d for r in rows)} turns", flush=True)
    return rows


def collect_licences(docs: Path, settings: Settings) -> list[dict]:
    tmp = Path(tempfile.mkdtemp(prefix="tellmemore-focus-"))
    corpus = tmp / "docs"
    corpus.mkdir()
    for name in LICENCES:
        shutil.copyfile(docs / name, corpus / f"{name}.txt")
    assistant = Assistant.open(tmp / "project", settings=settings)
    rows: list[dict] = []
    try:
        assistant.ingest([corpus])
        index, retriever = assistant.index, assistant.retriever
        resolver = EmbeddedResolver()
        for label, earlier, message in CASES:
            history: list[Turn] = []
            for said in earlier:
                reply = assistant.ask(said, history=history)
                history += [Turn("user", said), Turn("assistant", reply.answer)]
            got = run_turn(
                index,
                retriever,
                resolver,
                settings,
                message,
                history,
                retriever.embedder.embed_documents,
            )
            if got is not None:
                rows.append(
                    {
                        "set": "licences",
                        "domain": "licences",
                        "kind": label,
                        "message": message,
                        **got,
                    }
                )
    finally:
        assistant.close()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"licences: {len(rows)} turns", flush=True)
    return rows


SAMPLE_ANSWERABLE = (
    "what escalation options do we have on cloud connect",
    "Which routers are supported?",
    "How do I rent a bike?",
    "what happens if I return the bike late?",
    "can I get a refund?",
    "what is the SLA uptime?",
    "how do I get notified about incidents?",
    "what if my bike gets a flat tyre?",
    "is there a student discount?",
    "how do I cancel my subscription?",
    "what regions is cloud connect available in?",
    "how long does onboarding take?",
    "how do I troubleshoot a tunnel that keeps going down?",
    "what payment methods do you accept?",
    "how much is a day pass?",
    "what's the penalty for returning late?",
    "do I need a helmet?",
    "what if I damage the bike?",
    "can children ride?",
    "what happens if my bike is stolen?",
    "is there an uptime guarantee?",
    "how fast do you respond to a sev 1 incident?",
    "can I pay by invoice?",
    "how do I upgrade my plan?",
    "what is aster labs?",
    "how much is the monthly pass?",
    "is the helmet free?",
    "what compensation do I get if the SLA is missed?",
    "can I get money back?",
)
"""Ordinary questions a new user asks of the bundled sample docs, each answered there
(written for this bench while probing the rule, not tuned on)."""
SAMPLE_UNANSWERABLE = (
    "can I bring my dog on the bike?",
    "Do you offer a free trial?",
    "what is the capital of Australia?",
    "Do we get a gym membership reimbursement?",
)


def collect_sample(settings: Settings) -> list[dict]:
    from tellmemore.ingest import sample_corpus_path

    tmp = Path(tempfile.mkdtemp(prefix="tellmemore-focus-sample-"))
    assistant = Assistant.open(tmp / "project", settings=settings)
    rows: list[dict] = []
    try:
        assistant.ingest([sample_corpus_path()])
        index, retriever = assistant.index, assistant.retriever
        resolver = EmbeddedResolver()
        labelled = [("ANSWERABLE", q) for q in SAMPLE_ANSWERABLE]
        labelled += [("UNANSWERABLE", q) for q in SAMPLE_UNANSWERABLE]
        for label, message in labelled:
            got = run_turn(
                index, retriever, resolver, settings, message, [],
                retriever.embedder.embed_documents,
            )  # fmt: skip
            if got is not None:
                rows.append(
                    {"set": "sample", "domain": "sample", "kind": label, "message": message, **got}
                )
    finally:
        assistant.close()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"sample docs: {len(rows)} turns", flush=True)
    return rows


# -- the decision and the sweep ----------------------------------------------------------


def floor_abstains(r: dict, settings: Settings) -> bool:
    s = settings.retrieval
    return r["cos"] < s.min_dense_score and r["coverage"] < s.min_lexical_coverage


def focus_abstains(r: dict, share: float | None, near: float, ceiling: float = 1.0) -> bool:
    if share is None or r["cos"] >= ceiling:
        return False
    return any(
        focus.is_missing(focus.FocusWord(*u), max_share=share, min_near=near) for u in r["unheld"]
    )


def abstains(
    r: dict, settings: Settings, share: float | None, near: float, ceiling: float = 1.0
) -> bool:
    return floor_abstains(r, settings) or focus_abstains(r, share, near, ceiling)


POSITIVE = {"UNANSWERABLE", "foreign"}
NEGATIVE = {"ANSWERABLE", "PARTIAL", "answerable"}


def rate(
    rows: list[dict], settings: Settings, share: float | None, near: float, ceiling: float = 1.0
) -> tuple[int, int]:
    return sum(abstains(r, settings, share, near, ceiling) for r in rows), len(rows)


def choose(rows: list[dict], settings: Settings, fit_un: str, max_false: float) -> tuple:  # type: ignore[type-arg]
    """The (share, near) with the most UNANSWERABLE abstentions on `fit_un` whose false
    rate stays at most `max_false` on the fitting negatives (MTRAG's turns of every domain
    but the held-out one, and `fit_un`'s answerable turns), each set on its own."""
    held_out = next(d for d in UN_DOMAINS if d != fit_un)
    negatives = [
        [r for r in rows if r["set"] == "mtrag" and r["domain"] == d and r["kind"] in NEGATIVE]
        for d in DOMAINS
        if d != held_out
    ]
    negatives.append(
        [
            r
            for r in rows
            if r["set"] == "mtrag-un" and r["domain"] == fit_un and r["kind"] in NEGATIVE
        ]
    )
    positives = [
        r
        for r in rows
        if r["set"] == "mtrag-un" and r["domain"] == fit_un and r["kind"] == "UNANSWERABLE"
    ]
    best: tuple = (None, 1.0, 1.0, -1, 1.0)
    for ceiling in CEILINGS:
        for share in SHARES:
            for near in NEARS:
                worst = max(
                    rate(n, settings, share, near, ceiling)[0] / max(len(n), 1) for n in negatives
                )
                if worst > max_false:
                    continue
                found = rate(positives, settings, share, near, ceiling)[0]
                # ties: the stricter rule (fewer words count as missing)
                if found > best[3] or (found == best[3] and worst < best[4]):
                    best = (share, near, ceiling, found, worst)
    return best[0], best[1], best[2]


READING = """**Reading (a negative result on MTRAG-UN; opt-in, not the default).** Held out,
the focus rule adds no UNANSWERABLE abstention on either MTRAG-UN domain, at any
threshold the fitting negatives allow (fitted on clapnq: cloud 2/36 as the floor; fitted on
cloud: clapnq 3/22 as the floor): most of their UNANSWERABLE turns use only words the top
passages hold ("What will happen if I exceed the limit?", "How many people were arrested
during the protests?"): the documents lack the answer, not the subject, and word coverage
cannot see that. Where the question's subject is absent it works: with the opt-in settings
(`retrieval.focus = true`: share 0, near 0.5, only below cosine 0.5) the licences abstain on
8/10 UNANSWERABLE (floor 4/10) at 0/20 others, foreign questions are refused far more often
(clapnq 56 -> 76 of 208, cloud 136 -> 149 of 188, govt 149 -> 159 of 201), MTRAG false
abstention rises by one turn (cloud 1 -> 2 of 188), and the sample docs' ordinary questions
abstain no more than under the floor (3/29, all the floor's). The cosine ceiling was added
after probing the sample docs: without it, ordinary questions worded otherwise than the
documents abstained ("uptime guarantee" over "Uptime commitment" at cosine 0.51, "penalty"
over "late fee", "compensation" over "service credits": 6/29), since in a corpus of a few
dozen chunks most English words are absent and MiniLM puts such word pairs at 0.33-0.46, as
far apart as "gym" and "health" (0.42). The shipped rule does not change (the floor)."""


def pct(k: int, n: int) -> str:
    return f"{k}/{n} ({100 * k / n:.1f}%)" if n else "0/0"


def report(
    rows: list[dict], settings: Settings, max_false: float, seconds: float
) -> tuple[str, dict]:
    def part(set_: str, domain: str, kinds: set[str]) -> list[dict]:
        return [
            r for r in rows if r["set"] == set_ and r["domain"] == domain and r["kind"] in kinds
        ]

    table = []
    picks = {}
    for fit_un in UN_DOMAINS:
        held_out = next(d for d in UN_DOMAINS if d != fit_un)
        picked = choose(rows, settings, fit_un, max_false)
        picks[fit_un] = picked
        r_ = settings.retrieval
        opt_in = (r_.focus_max_share, r_.focus_min_near, r_.focus_max_cos)
        for rule, (s, n, c) in (
            ("floor (default)", (None, 0.0, 1.0)),
            ("floor + focus, fitted", picked),
            ("floor + focus, opt-in settings", opt_in),
        ):
            line = {"fitted on": fit_un, "rule": rule, "share": s, "near": n, "ceiling": c}

            def at(rows_: list[dict], s: float | None = s, n: float = n, c: float = c) -> tuple:  # type: ignore[type-arg]
                return rate(rows_, settings, s, n, c)

            for dom in (fit_un, held_out):
                line[f"un {dom} unanswerable"] = at(part("mtrag-un", dom, {"UNANSWERABLE"}))
                line[f"un {dom} answerable"] = at(part("mtrag-un", dom, NEGATIVE))
            for dom in DOMAINS:
                line[f"mtrag {dom} false"] = at(part("mtrag", dom, {"answerable"}))
                line[f"mtrag {dom} foreign"] = at(part("mtrag", dom, {"foreign"}))
            line["licences unanswerable"] = at(part("licences", "licences", {"UNANSWERABLE"}))
            line["licences answerable"] = at(
                part("licences", "licences", {"ANSWERABLE", "UNDERSPECIFIED"})
            )
            line["sample unanswerable"] = at(part("sample", "sample", {"UNANSWERABLE"}))
            line["sample answerable"] = at(part("sample", "sample", {"ANSWERABLE"}))
            table.append(line)
    lines = [
        "# Abstain when the documents do not hold what the question asks about",
        "",
        "```",
        ".venv/bin/python bench/focus_coverage.py --cache /work/cache/bench"
        f" --max-false {max_false}",
        "```",
        "",
        READING,
        "",
        (__doc__ or "").split("\n\n", 2)[2].strip(),
        "",
        f"Fitting false rate at most {max_false:.0%} on each fitting set. "
        f"Run time {seconds:.0f} s.",
        "",
        "## MTRAG-UN, held out",
        "",
        "| fitted on | rule | share ≤ | near < | cosine < | held out | UNANSWERABLE | "
        "ANSWERABLE+PARTIAL | in domain UNANSWERABLE | in domain ANS+PARTIAL |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for t in table:
        fit = t["fitted on"]
        held_out = next(d for d in UN_DOMAINS if d != fit)
        on = t["share"] is not None
        cells = [
            fit,
            t["rule"],
            str(t["share"]) if on else "–",
            str(t["near"]) if on else "–",
            str(t["ceiling"]) if on else "–",
            held_out,
            pct(*t[f"un {held_out} unanswerable"]),
            pct(*t[f"un {held_out} answerable"]),
            pct(*t[f"un {fit} unanswerable"]),
            pct(*t[f"un {fit} answerable"]),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "## MTRAG (false abstention on answerable turns; abstention on foreign questions) "
        "and the licences",
        "",
        "| fitted on | rule | clapnq false | cloud false | govt false | clapnq foreign | "
        "cloud foreign | govt foreign | licences UNANSWERABLE | licences others | "
        "sample docs UNANSWERABLE | sample docs ANSWERABLE |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for t in table:
        lines.append(
            f"| {t['fitted on']} | {t['rule']} | "
            + " | ".join(pct(*t[f"mtrag {d} false"]) for d in DOMAINS)
            + " | "
            + " | ".join(pct(*t[f"mtrag {d} foreign"]) for d in DOMAINS)
            + " | "
            f"{pct(*t['licences unanswerable'])} | {pct(*t['licences answerable'])} | "
            f"{pct(*t['sample unanswerable'])} | {pct(*t['sample answerable'])} |"
        )
    lines += ["", "## Grid (every fitting set), for the record", ""]
    lines += grid(rows, settings)
    lines += ["", "## Turns the focus rule abstains on and the floor does not", ""]
    r_ = settings.retrieval
    shown = {f"fitted on {k}": v for k, v in picks.items()}
    shown["the opt-in settings"] = (r_.focus_max_share, r_.focus_min_near, r_.focus_max_cos)
    for name, (s, n, c) in shown.items():
        lines += [f"### {name}: share ≤ {s}, near < {n}, cosine < {c}", ""]
        lines += [
            "| set | domain | label | question | missing |",
            "| --- | --- | --- | --- | --- |",
        ]
        for r in rows:
            if focus_abstains(r, s, n, c) and not floor_abstains(r, settings):
                miss = ", ".join(
                    u[0]
                    for u in r["unheld"]
                    if focus.is_missing(focus.FocusWord(*u), max_share=s, min_near=n)
                )
                q = r["question"].replace("|", "\\|")
                lines.append(f"| {r['set']} | {r['domain']} | {r['kind']} | {q} | {miss} |")
        lines.append("")
    return "\n".join(lines) + "\n", {"table": table, "picks": picks}


def grid(rows: list[dict], settings: Settings) -> list[str]:
    sets = [("mtrag", d, {"answerable"}) for d in DOMAINS]
    sets += [("mtrag-un", d, NEGATIVE) for d in UN_DOMAINS]
    sets += [("mtrag-un", d, {"UNANSWERABLE"}) for d in UN_DOMAINS]
    sets += [
        ("licences", "licences", {"UNANSWERABLE"}),
        ("licences", "licences", {"ANSWERABLE", "UNDERSPECIFIED"}),
        ("sample", "sample", {"UNANSWERABLE"}),
        ("sample", "sample", {"ANSWERABLE"}),
    ]
    head = ["cosine <", "share ≤", "near <"] + [
        f"{s} {d} {'/'.join(sorted(k))}" for s, d, k in sets
    ]
    out = ["| " + " | ".join(head) + " |", "| " + " | ".join("---" for _ in head) + " |"]
    rules: list[tuple[float | None, float, float]] = [(None, 0.0, 1.0)]
    rules += [(s, n, c) for c in CEILINGS for s in SHARES for n in NEARS]
    for share, near, ceiling in rules:
        cells = []
        for s, d, k in sets:
            part = [r for r in rows if r["set"] == s and r["domain"] == d and r["kind"] in k]
            a, n = rate(part, settings, share, near, ceiling)
            cells.append(f"{a}/{n}")
        head_cells = ["floor only", "–", "–"] if share is None else [ceiling, share, near]
        out.append("| " + " | ".join(str(x) for x in [*head_cells, *cells]) + " |")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mtrag", type=Path, default=MTRAG)
    parser.add_argument("--mtrag-un", type=Path, default=MTRAG_UN)
    parser.add_argument("--kept", type=Path, default=KEPT)
    parser.add_argument("--docs", type=Path, default=DOCS)
    parser.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--max-false", type=float, default=0.02)
    parser.add_argument("--report-only", action="store_true", help="read the collected cases")
    args = parser.parse_args()
    settings = Settings()
    cases_file = args.out.parent / (args.out.name + "_cases.json")
    t0 = time.perf_counter()
    if args.report_only:
        stored = json.loads(cases_file.read_text())
        rows, seconds = stored["rows"], stored["seconds"]
    else:
        embedder = load_embedder(settings.embedder)
        rows = collect_un(args.kept, args.mtrag_un, args.cache, settings, embedder)
        rows += collect_licences(args.docs, settings)
        rows += collect_sample(settings)
        rows += collect_mtrag(args.mtrag, args.cache, settings, embedder)
        seconds = time.perf_counter() - t0
        cases_file.write_text(
            json.dumps({"seconds": round(seconds, 1), "rows": rows}, ensure_ascii=False) + "\n"
        )
    text, payload = report(rows, settings, args.max_false, seconds)
    args.out.with_suffix(".md").write_text(text)
    args.out.with_suffix(".json").write_text(json.dumps(payload, indent=1) + "\n")
    print(f"wrote {args.out.with_suffix('.md')}")


if __name__ == "__main__":
    main()
