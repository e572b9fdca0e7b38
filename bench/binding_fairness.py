"""Is the binding-recall comparison with concat fair? What each strategy shows and searches.

    .venv/bin/python bench/binding_fairness.py

`tellmemore eval` scores binding on the query a strategy *shows* (`Resolution.query`,
eval/planning.py): for concat that is the last two user turns glued to the message (on the
turns the gate sends to a resolver: the eval gates concat as it gates embedded), so its
"binding" is every content word of those turns, whatever the message points at. This
script scores, on the MTRAG follow-ups, with the eval's own `binding()`:
- concat's query, gated as the eval runs it, and on every follow-up;
- embedded's shown query (what `tellmemore eval` reports);
- embedded's searched text: every phrasing `search_phrasings` searches (the resolved
  query, the message as typed, the history phrasing of the user's last and first turns);
and the recall restricted to the terms concat can reach at all (expected terms that occur
in the last two user turns). No retrieval: term statistics from the pooled corpus in
memory (bench/resolver_latency.py). The shipped selector was fitted on these domains, so
embedded's figures here are in sample (the held-out ones are in loo_eval.md).
Results: bench/results/binding_fairness.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from resolver_latency import DATA, OUT, corpus_stats, load_turns  # noqa: E402

from tellmemore.conversation.gate import gate  # noqa: E402
from tellmemore.conversation.phrasings import search_phrasings  # noqa: E402
from tellmemore.conversation.preamble import without_preamble  # noqa: E402
from tellmemore.conversation.resolvers import (  # noqa: E402
    ConcatResolver,
    EmbeddedResolver,
    ResolveContext,
)
from tellmemore.conversation.spelling import correct_spelling  # noqa: E402
from tellmemore.eval.measures import (  # noqa: E402
    Binding,
    binding,
    pooled_binding,
    probe_over_binding,
)
from tellmemore.eval.terms import content_terms  # noqa: E402
from tellmemore.types import Resolution, Turn  # noqa: E402

VIEWS = ("concat, gated (as tellmemore eval)", "concat, every follow-up", "embedded shown",
         "embedded searched")  # fmt: skip


def reachable(b: Binding, last_two: str) -> tuple[int, int]:
    """(expected terms concat can carry, of them bound): terms of the last two user turns."""
    have = {w.lower() for w in content_terms(last_two).values()}
    exp = [w for w in b.expected if w.lower() in have]
    return len(exp), sum(1 for w in exp if w in b.carried)


def run(domain: Path) -> dict[str, dict[str, float | None]]:
    stats = corpus_stats(domain / "corpus.jsonl")
    ctx = ResolveContext(term_stats=stats)
    found: dict[str, list[Binding]] = {v: [] for v in VIEWS}
    reach = {v: [0, 0] for v in VIEWS}
    for row in load_turns(domain / "conversations.jsonl"):
        if row["turn"] == 1:
            continue
        history = [Turn(t["role"], t["content"]) for t in row["history"]]
        texts = [t.content for t in history]
        message = row["message"]
        fixed, _ = correct_spelling(message, stats)
        asked = without_preamble(fixed)
        verdict = gate(asked, history, stats)
        res = (
            EmbeddedResolver().resolve(fixed, history, ctx)
            if verdict.needs_resolution
            else Resolution(query=asked)
        )
        searched = search_phrasings(message, res, history, stats, searched=fixed)
        last_two = "\n".join([t.content for t in history if t.role == "user"][-2:])
        glued = ConcatResolver().resolve(message, history, ctx).query
        queries = {
            VIEWS[0]: glued if verdict.needs_resolution else message,
            VIEWS[1]: glued,
            "embedded shown": res.query,
            "embedded searched": "\n".join(searched.queries),
        }
        for view, query in queries.items():
            b = binding(message, texts, row["rewrite"], query)
            found[view].append(b)
            n, k = reachable(b, last_two)
            reach[view][0] += n
            reach[view][1] += k
    out: dict[str, dict[str, float | None]] = {}
    for view in VIEWS:
        pooled = pooled_binding(found[view])
        probe, n = probe_over_binding(found[view])
        out[view] = {
            **pooled,
            "probe_over_binding": probe,
            "probes": n,
            "reachable_recall": reach[view][1] / reach[view][0] if reach[view][0] else None,
            "reachable_share": reach[view][0] / max(sum(len(b.expected) for b in found[view]), 1),
        }
    return out


def fmt(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}"


def main() -> None:
    rows = {d: run(DATA / d) for d in ("clapnq", "cloud", "govt")}
    lines = [
        "# Binding recall: what concat's figure measures (issue 20)",
        "",
        "`bench/binding_fairness.py`. Follow-up turns of MTRAG; binding scored with the "
        "eval's `binding()` against the human rewrite. Embedded in sample (shipped selector).",
        "",
        "| domain | view | binding recall | over-binding | probe over-binding | recall on "
        "terms concat can reach | share of expected terms concat can reach |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for d, r in rows.items():
        for view in VIEWS:
            x = r[view]
            lines.append(
                f"| {d} | {view} | {fmt(x['recall'])} | {fmt(x['over_binding'])} | "
                f"{fmt(x['probe_over_binding'])} | {fmt(x['reachable_recall'])} | "
                f"{fmt(x['reachable_share'])} |"
            )
    (OUT / "binding_fairness.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
