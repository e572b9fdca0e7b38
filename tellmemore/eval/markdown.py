"""report.md: the tables a person reads (report.json and details.json hold the same figures)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tellmemore.eval.measures import PRIMARY


def _f(value: Any, digits: int = 3) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    out += ["| " + " | ".join(_f(c) for c in row) + " |" for row in rows]
    return [*out, ""]


def render_markdown(report: dict[str, Any], details: dict[str, Any], *, chart: str) -> str:
    run = details["run"]
    results = report["results"]
    names = list(results[0]["measures"]) if results else []
    datasets = [d["name"] for d in details["datasets"]]
    lines = ["# tellmemore eval", ""]
    if run.get("command"):
        lines += ["```", run["command"], "```", ""]
    r = run["settings"].get("retrieval", {})
    lines += [
        f"Embedder `{run['embedder']}`; retrievers {', '.join(run['retrievers'])} "
        f"(hybrid = {r.get('fusion')} fusion, BM25 weight {r.get('bm25_weight')}); "
        f"strategies {', '.join(run['strategies'])}. Primary measure: {PRIMARY} "
        "(higher is better). Follow-up turns are turns after the first.",
        "",
        "Measures come from ir_measures on passage ids (chunk scores rolled up to their "
        "passage, best chunk first); a turn whose gold is never retrieved scores 0 and "
        "stays in the mean. Binding is measured on content terms (stopwords out, Porter "
        "stems) against the human rewrite: binding recall = share of the terms the human "
        "carried over from the history that the query carries; over-binding = share of "
        "the terms the query carries over from the history that the human did not add. "
        "Topic-switch probes are follow-up turns on which the human carried nothing: there "
        "the figure is the share of probe turns on which the strategy carried anything. "
        "The strict figure counts only probes whose human rewrite stands alone (no "
        'referent or ellipsis left in it: an annotator who left "does he have an infinity '
        'gem" as typed did not judge the turn a topic switch).',
        "",
        "Resolver strategies (concat, embedded, llm) run as a tellmemore turn runs them: "
        "typos are fixed against the index vocabulary, the gate decides whether to resolve; "
        "the resolved query, the message as typed (when they differ) and, on follow-ups, a "
        "lower-weight history phrasing (the message + the user's last and first turns), "
        "when the gate resolved the conversation's own wording (the last two user turns + "
        "the message), and when a referent was bound the message + the start of the last "
        "reply (these three context phrasings are not shown and not counted in binding) "
        "are searched and fused by weighted reciprocal rank, "
        "each weight scaled by how close its best hit is; a resolution that asks "
        "the user back retrieves nothing and scores 0. `raw` is the message alone; `oracle` "
        "(the human rewrite) and `all_user` (every user turn glued to the message) are "
        "single-phrasing references. The gating table compares each resolver with the gate "
        "bypassed.",
        "",
    ]
    if run["strategies_not_run"]:
        for name, why in run["strategies_not_run"].items():
            lines.append(f"- `{name}` not run: {why}")
        lines.append("")
    lines += [f"![{PRIMARY} by strategy]({chart})", ""]

    # Overview: follow-up primary measure, every dataset side by side.
    lines += [f"## Follow-up turns, {PRIMARY}", ""]
    key = {(x["dataset"], x["strategy"], x["retriever"], x["slice"]): x for x in results}
    combos = list(dict.fromkeys((x["strategy"], x["retriever"]) for x in results))
    lines += _table(
        ["strategy", "retriever", *datasets],
        [
            [
                s,
                rt,
                *(
                    key.get((d, s, rt, "followup"), {}).get("measures", {}).get(PRIMARY)
                    for d in datasets
                ),
            ]
            for s, rt in combos
        ],
    )

    lat_ret = "hybrid" if "hybrid" in run["retrievers"] else run["retrievers"][0]
    probes = {(p["dataset"], p["strategy"]): p for p in details["topic_switch"]}
    res_info = {(p["dataset"], p["strategy"]): p for p in details["resolution"]}
    for ds in details["datasets"]:
        name = ds["name"]
        idx = ds["index"]
        skipped = ", ".join(f"{k}: {v}" for k, v in ds["skipped_turns"].items()) or "none"
        built = (
            "reused from the cache"
            if idx["reused"]
            else f"built in {idx['seconds']:.0f} s ({idx['chunks_embedded']} chunks embedded)"
        )
        lines += [
            f"## {name}",
            "",
            f"{ds['turns']} turns ({ds['followup_turns']} follow-ups), {ds['passages']} "
            f"passages in {idx['chunks']} chunks of <= {idx['chunk_tokens']} tokens; index "
            f"{built}. Skipped turns: {skipped}. Passages not indexed: {len(idx['skipped'])}. "
            f"Turns the retrieve/no-retrieve rule would answer without searching (each a "
            f"miss, since every turn has gold): {len(ds['no_retrieval'])}.",
            "",
            "### Retrieval: all turns | follow-up turns",
            "",
        ]
        rows = []
        for s, rt in combos:
            a = key.get((name, s, rt, "all"))
            f = key.get((name, s, rt, "followup"))
            if a is None or f is None:
                continue
            rows.append(
                [s, rt, *(a["measures"][m] for m in names), *(f["measures"][m] for m in names)]
            )
        lines += _table(
            ["strategy", "retriever", *(f"all {m}" for m in names), *(f"fu {m}" for m in names)],
            rows,
        )
        lines += ["### Binding and cost (follow-up turns)", ""]
        rows = []
        for s in dict.fromkeys(s for s, _ in combos):
            fu = [
                key[(name, s, rt, "followup")]
                for rt in run["retrievers"]
                if (name, s, rt, "followup") in key
            ]
            if not fu:
                continue
            first = fu[0]
            p = probes.get((name, s), {})
            info = res_info.get((name, s), {})
            lat = first["latency_ms"]
            shown = next((x for x in fu if x["retriever"] == lat_ret), first)
            rows.append(
                [
                    s,
                    first["binding"]["recall"],
                    first["binding"]["over_binding"],
                    f"{_f(p.get('over_binding'))} (n={p.get('n', 0)})",
                    f"{_f(p.get('strict_over_binding'))} (n={p.get('strict_n', 0)})",
                    first["gate_skip_share"],
                    info.get("changed_share"),
                    info.get("clarified_share"),
                    f"{_f(lat['resolve_p50'], 3)} / {_f(lat['resolve_p95'], 3)}",
                    f"{_f(shown['latency_ms']['retrieve_p50'], 1)} / "
                    f"{_f(shown['latency_ms']['retrieve_p95'], 1)}",
                ]
            )
        lines += _table(
            [
                "strategy",
                "binding recall",
                "over-binding",
                "topic-switch over-binding",
                "… with a standalone human rewrite",
                "gate skip share",
                "query changed",
                "asked back",
                "resolve p50 / p95 ms",
                f"retrieve p50 / p95 ms ({lat_ret})",
            ],
            rows,
        )
        gating = [g for g in details["gating"] if g["dataset"] == name]
        if gating:
            lines += [f"### Gating (follow-up turns, {PRIMARY})", ""]
            lines += _table(
                ["strategy", "retriever", "gate skip share", "gated", "always resolve", "kept"],
                [
                    [
                        g["strategy"],
                        g["retriever"],
                        g["gate_skip_share"],
                        g["gated"][PRIMARY],
                        g["always_resolve"][PRIMARY],
                        g["kept"],
                    ]
                    for g in gating
                ],
            )
        depth_rows = [d for d in details["by_depth"] if d["dataset"] == name]
        depths = list(dict.fromkeys(d["depth"] for d in depth_rows))
        if depth_rows:
            ns = {d["depth"]: d["n"] for d in depth_rows}
            lines += [f"### By turn depth ({PRIMARY})", ""]
            cell = {(d["strategy"], d["retriever"], d["depth"]): d for d in depth_rows}
            lines += _table(
                ["strategy", "retriever", *(f"turn {d} (n={ns[d]})" for d in depths)],
                [
                    [
                        s,
                        rt,
                        *(
                            cell.get((s, rt, d), {}).get("measures", {}).get(PRIMARY)
                            for d in depths
                        ),
                    ]
                    for s, rt in combos
                ],
            )
    lines += _behaviour(details)
    lines += [
        "## Run",
        "",
        f"{run['seconds']:.0f} s in all. Retrieve latency is the index search and fusion "
        "of a turn's phrasings; query vectors are encoded beforehand in batches "
        f"({_f(run['encode_ms_per_query'], 2)} ms per query string, amortised, when any "
        "was encoded in this run) and kept between runs, as are the rankings. Resolve "
        "latency includes the gate for gated strategies.",
        "",
    ]
    for ds in details["datasets"]:
        lines.append(
            f"- {ds['name']}: {ds['searches']} searches run, {ds['searches_cached']} reused, "
            f"{ds['queries_encoded']} query strings encoded; corpus sha256 "
            f"`{ds['corpus_hash'][:16]}`, index key `{ds['index']['key']}`"
        )
    lines.append("")
    return "\n".join(lines)


def _behaviour(details: dict[str, Any]) -> list[str]:
    """Abstain and ask back by label, for the datasets with a behaviour.jsonl."""
    with_labels = [d for d in details["datasets"] if d.get("behaviour")]
    if not with_labels:
        return []
    lines = [
        "## Abstain and ask back (behaviour.jsonl)",
        "",
        "Every labelled turn run as a real turn (embedded resolver, extractive answer). "
        "Abstain should hit UNANSWERABLE turns, ask back UNDERSPECIFIED ones; the false "
        "rates are abstaining on ANSWERABLE + PARTIAL turns and asking back on any other "
        "label.",
        "",
    ]
    rows = []
    for d in with_labels:
        b = d["behaviour"]
        for label, v in b["by_label"].items():
            rows.append([d["name"], label, v["turns"], v["abstain_rate"], v["ask_rate"]])
    lines += _table(["dataset", "label", "turns", "abstained", "asked back"], rows)
    rows = []
    for d in with_labels:
        b = d["behaviour"]
        for action in ("abstain", "ask_back"):
            v = b[action]
            rows.append(
                [
                    d["name"],
                    action.replace("_", " "),
                    v["label"],
                    v["acted"],
                    v["precision"],
                    v["recall"],
                    v["false_rate"],
                ]
            )
    lines += _table(
        ["dataset", "action", "on", "turns acted on", "precision", "recall", "false rate"], rows
    )
    return lines
