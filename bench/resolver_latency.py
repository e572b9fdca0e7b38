"""Added latency of gate + embedded resolution, over every turn of the MTRAG dev conversations.

    .venv/bin/python bench/resolver_latency.py              # the committed run
    .venv/bin/python bench/resolver_latency.py --repeat 3   # best of 3: warm parse caches

Each turn runs once, in conversation order, as a service meets it: the history texts
were parsed on earlier turns (`binding.phrases` and `text.words` are cached by text),
the newest answer was not. A best-of-N run would time the caches instead.

For each turn the timed work is what the turn pipeline adds before retrieval:
`correct_spelling(message, term_stats)`, `gate(message, history, term_stats)`, when it
says so `EmbeddedResolver.resolve`, and `search_phrasings` (the phrasings and their weights).
Term statistics come from the pooled corpus of the same domain (document frequency
of Porter stems, as SQLite FTS5's porter tokenizer counts them) held in a dict, so the
lookup costs what an in-memory cache would; the SQLite index's own `term_stats` adds
one FTS5 vocabulary query on top (measured by the index's bench, not here).

For development only (not a retrieval metric; `tellmemore eval` measures that), the
script also compares the terms each resolver ADDS to the message with the terms the
human rewrite adds: precision and recall of added terms, and how often a resolver
adds anything where the human added nothing (a proxy for over-binding).
Results: bench/results/resolver_latency.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tellmemore.conversation.gate import gate  # noqa: E402
from tellmemore.conversation.phrasings import search_phrasings  # noqa: E402
from tellmemore.conversation.preamble import without_preamble  # noqa: E402
from tellmemore.conversation.resolvers import (  # noqa: E402
    ConcatResolver,
    EmbeddedResolver,
    ResolveContext,
)
from tellmemore.conversation.spelling import correct_spelling  # noqa: E402
from tellmemore.eval.terms import content_terms, stem, words  # noqa: E402
from tellmemore.types import Resolution, TermStats, Turn  # noqa: E402

DATA = Path("/work/shared/bench/mtrag")
OUT = ROOT / "bench" / "results"


def corpus_stats(path: Path) -> Callable[[Iterable[str]], TermStats]:
    """A term_stats lookup over one pooled corpus: df of Porter stems."""
    df: dict[str, int] = {}
    stems: dict[str, str] = {}
    n = 0
    with path.open() as f:
        for line in f:
            rec = json.loads(line)
            n += 1
            seen = set()
            for w in words(f"{rec.get('title', '')} {rec.get('text', '')}"):
                s = stems.get(w)
                if s is None:
                    s = stems[w] = stem(w)
                seen.add(s)
            for s in seen:
                df[s] = df.get(s, 0) + 1

    def lookup(terms: Iterable[str]) -> TermStats:
        out = {}
        for t in terms:
            low = t.lower()
            s = stems.get(low)
            if s is None:
                s = stem(low)
            out[t] = df.get(s, 0)
        return TermStats(n, out)

    return lookup


def load_turns(path: Path) -> list[dict]:
    with path.open() as f:
        return [json.loads(line) for line in f]


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    values = sorted(values)
    k = max(0, min(len(values) - 1, round(q / 100 * (len(values) - 1))))
    return values[k]


def added_terms(message: str, query: str) -> set[str]:
    return set(content_terms(query)) - set(content_terms(message))


def run_domain(domain: Path, repeat: int) -> dict:
    stats = corpus_stats(domain / "corpus.jsonl")
    rows = load_turns(domain / "conversations.jsonl")
    embedded = EmbeddedResolver()
    concat = ConcatResolver()
    all_ms: list[float] = []
    follow_ms: list[float] = []
    skipped = 0
    resolved_follow = 0
    overlap = {
        name: {"tp": 0, "fp": 0, "fn": 0, "over": 0, "none_turns": 0}
        for name in ("embedded", "concat")
    }
    examples = []
    for row in rows:
        history = [Turn(t["role"], t["content"]) for t in row["history"]]
        message = row["message"]
        ctx = ResolveContext(term_stats=stats)
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            fixed, _ = correct_spelling(message, stats)  # as turn.py: the gate reads the question
            asked = without_preamble(fixed)
            verdict = gate(asked, history, stats)
            res = embedded.resolve(fixed, history, ctx) if verdict.needs_resolution else None
            search_phrasings(
                message, res or Resolution(query=asked), history, stats, searched=fixed
            )
            best = min(best, (time.perf_counter() - t0) * 1000.0)
        all_ms.append(best)
        if row["turn"] > 1:
            follow_ms.append(best)
            if verdict.needs_resolution:
                resolved_follow += 1
        if not verdict.needs_resolution:
            skipped += 1
        if row["turn"] == 1:
            continue
        human = added_terms(message, row["rewrite"])
        queries = {
            "embedded": res.query if res is not None else message,
            "concat": concat.resolve(message, history, ctx).query,
        }
        for name, query in queries.items():
            mine = added_terms(message, query)
            o = overlap[name]
            o["tp"] += len(mine & human)
            o["fp"] += len(mine - human)
            o["fn"] += len(human - mine)
            if not human:
                o["none_turns"] += 1
                o["over"] += bool(mine)
        if res is not None and len(examples) < 8 and res.query != message:
            examples.append({"message": message, "embedded": res.query, "human": row["rewrite"]})
    out = {
        "turns": len(all_ms),
        "follow_up_turns": len(follow_ms),
        "skip_share": skipped / max(len(all_ms), 1),
        "follow_ups_resolved_share": resolved_follow / max(len(follow_ms), 1),
        "all_ms": {
            "p50": pct(all_ms, 50),
            "p95": pct(all_ms, 95),
            "max": max(all_ms),
            "mean": statistics.fmean(all_ms),
        },
        "follow_up_ms": {"p50": pct(follow_ms, 50), "p95": pct(follow_ms, 95)},
        "added_terms": {},
        "examples": examples,
        "_samples": all_ms,
    }
    for name, o in overlap.items():
        p = o["tp"] / max(o["tp"] + o["fp"], 1)
        r = o["tp"] / max(o["tp"] + o["fn"], 1)
        out["added_terms"][name] = {
            "precision": p,
            "recall": r,
            "adds_where_human_adds_nothing": o["over"] / max(o["none_turns"], 1),
            "turns_where_human_adds_nothing": o["none_turns"],
        }
    return out


def write_md(results: dict, path: Path) -> None:
    lines = [
        "# Resolver latency: gate + embedded resolution + phrasings",
        "",
        f"Machine: {results['machine']}. Python {results['python']}. "
        f"Best of {results['repeat']} run(s) per turn, in conversation order (1: each turn once, "
        "as a service meets it); term statistics from the domain's pooled "
        "corpus (Porter-stem document frequencies in memory).",
        "",
        "| domain | turns | follow-ups | p50 ms (all) | p95 ms (all) | max ms | "
        "p50 ms (follow-ups) | p95 ms (follow-ups) | turns skipping resolution |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, r in results["domains"].items():
        a, f = r["all_ms"], r["follow_up_ms"]
        lines.append(
            f"| {name} | {r['turns']} | {r['follow_up_turns']} | {a['p50']:.3f} | "
            f"{a['p95']:.3f} | {a['max']:.2f} | {f['p50']:.3f} | {f['p95']:.3f} | "
            f"{r['skip_share']:.0%} |"
        )
    p = results["pooled"]
    lines += [
        f"| **pooled** | {p['turns']} | | **{p['p50']:.3f}** | **{p['p95']:.3f}** | "
        f"{p['max']:.2f} | | | {p['skip_share']:.0%} |",
        "",
        f"Target: p50 <= 1 ms. Pooled p50 = {p['p50']:.3f} ms "
        f"({'met' if p['p50'] <= 1.0 else 'NOT met'}).",
        "",
        "## Development signal: terms added to the message vs the human rewrite",
        "",
        "Not a retrieval metric (see `tellmemore eval`). Precision/recall of the content "
        "terms (Porter stems) a resolver adds to the message, against the terms the human "
        "rewrite adds; 'adds where human adds nothing' is a proxy for over-binding.",
        "",
        "| domain | resolver | precision | recall | adds where human adds nothing |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name, r in results["domains"].items():
        for res_name, o in r["added_terms"].items():
            lines.append(
                f"| {name} | {res_name} | {o['precision']:.2f} | {o['recall']:.2f} | "
                f"{o['adds_where_human_adds_nothing']:.2f} "
                f"(of {o['turns_where_human_adds_nothing']}) |"
            )
    lines += ["", "## Examples (first resolved follow-ups per domain)", ""]
    for name, r in results["domains"].items():
        for ex in r["examples"][:4]:
            lines.append(
                f"- {name}: `{ex['message']}` -> `{ex['embedded']}` (human: `{ex['human']}`)"
            )
    path.write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    domains = sorted(p for p in args.data.iterdir() if (p / "conversations.jsonl").exists())
    results: dict = {
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "python": platform.python_version(),
        "repeat": args.repeat,
        "domains": {},
    }
    pooled: list[float] = []
    skipped = 0
    for d in domains:
        print(f"{d.name}: building term statistics ...", file=sys.stderr)
        r = run_domain(d, args.repeat)
        pooled += r.pop("_samples")
        skipped += round(r["skip_share"] * r["turns"])
        results["domains"][d.name] = r
        print(f"{d.name}: p50 {r['all_ms']['p50']:.3f} ms, p95 {r['all_ms']['p95']:.3f} ms",
              file=sys.stderr)  # fmt: skip
    results["pooled"] = {
        "turns": len(pooled),
        "p50": pct(pooled, 50),
        "p95": pct(pooled, 95),
        "max": max(pooled),
        "skip_share": skipped / max(len(pooled), 1),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "resolver_latency.json").write_text(json.dumps(results, indent=2) + "\n")
    write_md(results, args.out / "resolver_latency.md")
    print(f"wrote {args.out / 'resolver_latency.md'}", file=sys.stderr)


if __name__ == "__main__":
    main()
