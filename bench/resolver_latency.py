"""Added latency of gate + embedded resolution, over every turn of the MTRAG dev conversations.

    .venv/bin/python bench/resolver_latency.py --sweeps 5               # the committed run
    .venv/bin/python bench/resolver_latency.py --sweeps 5 --stateless   # a stateless caller
    .venv/bin/python bench/resolver_latency.py --sweeps 5 --stateless --served

Each turn runs once per sweep, in conversation order, as a service meets it: the history
texts were analysed on earlier turns (`conversation/analysis.py` keeps one analysis per
text), the newest question was not. By default the conversation is a stored session, as
`tellmemore ask`/`serve` run it: each earlier user turn carries the resolution it got
(state.db), and the last answer was analysed when the previous turn stored it
(`conversation/prepare.py`, called by turn.py; untimed here, as it is off the next turn's
path). `--stateless`: no stored resolutions and no prepared answer (an API caller that
sends the whole history to a process that did not produce its last answer: the cold
case). `--stateless --served`: no stored resolutions, but the last answer was analysed
when this process produced it, as a server answering a stateless caller does (the OpenAI
door or /v1/chat with `history`: turn.py prepares every answer it sends, and the caller
sends it back as history; untimed, as for a stored session). Every sweep starts from
empty text caches; per turn the least time over the sweeps is kept, which takes the
loaded machine's noise out without warming anything (a best-of-N run of one turn would
time the caches instead). Wall time and the thread's CPU time are both reported.

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
Results: bench/results/resolver_latency.{json,md} (resolver_latency_stateless.* with
--stateless).
"""

from __future__ import annotations

import argparse
import functools
import gc
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
from tellmemore.conversation.prepare import prepare_answer  # noqa: E402
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


def clear_caches() -> None:
    """Empty every text-keyed cache of the package (analyses, tokens, sentences, stems): a
    new sweep meets every turn as the first sweep did. What a running service loads once
    (the lexicon, the English word list, the selector's weights: unbounded or single-entry
    caches) stays loaded."""
    for obj in gc.get_objects():
        if not isinstance(obj, functools._lru_cache_wrapper):
            continue
        if not getattr(obj, "__module__", "").startswith("tellmemore"):
            continue
        size = obj.cache_parameters()["maxsize"]
        if size is not None and size > 64:
            obj.cache_clear()


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


def time_turn(
    message: str, history: list[Turn], stats: Callable[[Iterable[str]], TermStats]
) -> tuple[float, float, Resolution | None, Resolution]:
    """What the turn pipeline adds before retrieval, timed: (wall ms, CPU ms, the
    resolution or None when the gate skipped it, what the session stores for the turn)."""
    ctx = ResolveContext(term_stats=stats)
    c0 = time.thread_time()
    t0 = time.perf_counter()
    fixed, _ = correct_spelling(message, stats)  # as turn.py: the gate reads the question
    asked = without_preamble(fixed)
    verdict = gate(asked, history, stats)
    res = EmbeddedResolver().resolve(fixed, history, ctx) if verdict.needs_resolution else None
    stored = res or Resolution(query=asked, resolver="none")
    search_phrasings(message, stored, history, stats, searched=fixed)
    wall = (time.perf_counter() - t0) * 1000.0
    return wall, (time.thread_time() - c0) * 1000.0, res, stored


Stored = dict[tuple[str, int], tuple[str, Resolution]]
"""A session's stored resolutions: (conversation, turn) -> (message, its resolution)."""


def history_of(row: dict, stored: Stored | None, served: bool = False) -> list[Turn]:
    """The row's history; with `stored`, each user turn carries the resolution it got when
    it was asked, as a session read from state.db does, and the last answer was analysed
    when it was stored (`turn.py` calls `prepare_answer` as it records the turn, while the
    user reads the answer). None: a stateless caller, whose history is all analysed here
    unless `served` (this process produced the last answer and prepared it then)."""
    out = []
    n = 0
    for t in row["history"]:
        res = None
        if t["role"] == "user":
            n += 1
            if stored is not None:
                said = stored.get((row["conversation_id"], n))
                res = said[1] if said is not None and said[0] == t["content"] else None
        out.append(Turn(t["role"], t["content"], resolution=res))
    if (stored is not None or served) and out and out[-1].role == "assistant":
        prepare_answer(out[-1].content)  # untimed: the previous turn did it
    return out


def extra_sweeps(
    rows: list[dict],
    stats: Callable[[Iterable[str]], TermStats],
    sweeps: int,
    stateless: bool,
    served: bool = False,
) -> list[tuple[float, float]]:
    """Per turn, the least (wall, CPU) of `sweeps` more sweeps over the conversations, each
    from empty caches: the same work as the reported sweep, less the machine's noise."""
    best = [(float("inf"), float("inf"))] * len(rows)
    for _ in range(sweeps):
        clear_caches()
        stored: Stored = {}
        for k, row in enumerate(rows):
            history = history_of(row, None if stateless else stored, served)
            wall, cpu, _, kept = time_turn(row["message"], history, stats)
            stored[(row["conversation_id"], row["turn"])] = (row["message"], kept)
            best[k] = (min(best[k][0], wall), min(best[k][1], cpu))
    return best


def run_domain(
    domain: Path, repeat: int, sweeps: int = 1, stateless: bool = False, served: bool = False
) -> dict:
    stats = corpus_stats(domain / "corpus.jsonl")
    rows = load_turns(domain / "conversations.jsonl")
    floor = extra_sweeps(rows, stats, sweeps - 1, stateless, served)
    clear_caches()
    stored: Stored = {}
    concat = ConcatResolver()
    all_ms: list[float] = []
    cpu_ms: list[float] = []
    follow_ms: list[float] = []
    skipped = 0
    resolved_follow = 0
    overlap = {
        name: {"tp": 0, "fp": 0, "fn": 0, "over": 0, "none_turns": 0}
        for name in ("embedded", "concat")
    }
    examples = []
    for k, row in enumerate(rows):
        history = history_of(row, None if stateless else stored, served)
        message = row["message"]
        ctx = ResolveContext(term_stats=stats)
        best, best_cpu = floor[k] if floor else (float("inf"), float("inf"))
        for _ in range(repeat):
            wall, cpu, res, kept = time_turn(message, history, stats)
            best, best_cpu = min(best, wall), min(best_cpu, cpu)
        stored[(row["conversation_id"], row["turn"])] = (message, kept)
        needs = res is not None
        all_ms.append(best)
        cpu_ms.append(best_cpu)
        if row["turn"] > 1:
            follow_ms.append(best)
            if needs:
                resolved_follow += 1
        if not needs:
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
        "cpu_ms": {"p50": pct(cpu_ms, 50), "p95": pct(cpu_ms, 95), "max": max(cpu_ms)},
        "follow_up_ms": {"p50": pct(follow_ms, 50), "p95": pct(follow_ms, 95)},
        "added_terms": {},
        "examples": examples,
        "_samples": all_ms,
        "_cpu_samples": cpu_ms,
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
        "as a service meets it), least of "
        f"{results.get('sweeps', 1)} sweep(s) over all conversations, each sweep from empty "
        "caches (every turn meets the caches as in one sweep: history texts analysed on "
        "earlier turns, the newest answer not); term statistics from the domain's pooled "
        "corpus (Porter-stem document frequencies in memory). "
        + (
            "Stateless, served: history turns carry no stored resolution (the previous "
            "question is resolved again when a pass needs it), but the last answer was "
            "analysed when this process produced it (turn.py prepares every answer it sends; "
            "a stateless caller sends it back as history), untimed here."
            if results.get("served")
            else "Stateless, cold: history turns carry no stored resolution, the previous "
            "question is resolved again when a pass needs it, and the last answer is "
            "analysed on this turn's path (a process that did not produce it)."
            if results.get("stateless")
            else "As a stored session (state.db): each earlier user turn carries the resolution "
            "it got when it was asked, so the previous question is read, not resolved again, "
            "and the last answer was analysed when the previous turn stored it "
            "(`conversation/prepare.py`, untimed here as it is off the next turn's path)."
        ),
        "",
        "Wall time and the thread's CPU time (`time.thread_time`) are both reported: on a "
        "shared, loaded machine the wall time includes waiting for a core, the CPU time "
        "is what the resolver itself costs.",
        "",
        "| domain | turns | follow-ups | p50 ms (all) | p95 ms (all) | max ms | "
        "CPU p50 ms | CPU p95 ms | p50 ms (follow-ups) | p95 ms (follow-ups) | "
        "turns skipping resolution |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, r in results["domains"].items():
        a, f = r["all_ms"], r["follow_up_ms"]
        lines.append(
            f"| {name} | {r['turns']} | {r['follow_up_turns']} | {a['p50']:.3f} | "
            f"{a['p95']:.3f} | {a['max']:.2f} | {r['cpu_ms']['p50']:.3f} | "
            f"{r['cpu_ms']['p95']:.3f} | {f['p50']:.3f} | {f['p95']:.3f} | "
            f"{r['skip_share']:.0%} |"
        )
    p = results["pooled"]
    lines += [
        f"| **pooled** | {p['turns']} | | **{p['p50']:.3f}** | **{p['p95']:.3f}** | "
        f"{p['max']:.2f} | **{p['cpu_p50']:.3f}** | **{p['cpu_p95']:.3f}** | | | "
        f"{p['skip_share']:.0%} |",
        "",
        f"Targets: p50 <= 1 ms, p95 <= 2 ms (issue 20). Pooled p50 = {p['p50']:.3f} ms "
        f"({'met' if p['p50'] <= 1.0 else 'NOT met'}), p95 = {p['p95']:.3f} ms wall "
        f"({'met' if p['p95'] <= 2.0 else 'NOT met'}), {p['cpu_p95']:.3f} ms CPU "
        f"({'met' if p['cpu_p95'] <= 2.0 else 'NOT met'}).",
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
    parser.add_argument(
        "--stateless",
        action="store_true",
        help="history turns without their stored resolutions (a stateless API caller: the "
        "previous question is resolved again when a pass needs it)",
    )
    parser.add_argument(
        "--sweeps",
        type=int,
        default=1,
        help="sweeps over the conversations, each from empty caches; per turn the least "
        "time is kept (the machine's noise out, the caches' state as in one sweep)",
    )
    parser.add_argument(
        "--served",
        action="store_true",
        help="with --stateless: the last answer was prepared when this process produced it "
        "(a server answering a stateless caller)",
    )
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    domains = sorted(p for p in args.data.iterdir() if (p / "conversations.jsonl").exists())
    results: dict = {
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "python": platform.python_version(),
        "repeat": args.repeat,
        "sweeps": args.sweeps,
        "stateless": args.stateless,
        "served": args.stateless and args.served,
        "domains": {},
    }
    pooled: list[float] = []
    pooled_cpu: list[float] = []
    skipped = 0
    for d in domains:
        print(f"{d.name}: building term statistics ...", file=sys.stderr)
        r = run_domain(d, args.repeat, args.sweeps, args.stateless, results["served"])
        pooled += r.pop("_samples")
        pooled_cpu += r.pop("_cpu_samples")
        skipped += round(r["skip_share"] * r["turns"])
        results["domains"][d.name] = r
        print(f"{d.name}: p50 {r['all_ms']['p50']:.3f} ms, p95 {r['all_ms']['p95']:.3f} ms",
              file=sys.stderr)  # fmt: skip
    results["pooled"] = {
        "turns": len(pooled),
        "p50": pct(pooled, 50),
        "p95": pct(pooled, 95),
        "max": max(pooled),
        "cpu_p50": pct(pooled_cpu, 50),
        "cpu_p95": pct(pooled_cpu, 95),
        "cpu_max": max(pooled_cpu),
        "skip_share": skipped / max(len(pooled), 1),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    name = "resolver_latency_stateless" if args.stateless else "resolver_latency"
    name += "_served" if results["served"] else ""
    (args.out / f"{name}.json").write_text(json.dumps(results, indent=2) + "\n")
    write_md(results, args.out / f"{name}.md")
    print(f"wrote {args.out / name}.md", file=sys.stderr)


if __name__ == "__main__":
    main()
