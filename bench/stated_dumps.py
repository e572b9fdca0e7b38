"""The stated-value rule (`answer.stated`) before and after leaving out the words no chunk
holds, over the cases bench/phrase_dump.py keeps (every set at once, no index needed).

    .venv/bin/python bench/stated_dumps.py --dump DUMP.json [DUMP.json ...] [--out FILE]

Each cell counts the turns the default (the floor and the phrase rule, as shipped) or the
stated-value rule on top of it abstains on: unanswerable (UNANSWERABLE, or a foreign
question on MTRAG) · answerable (ANSWERABLE+PARTIAL, or MTRAG's own turn). *before*
weighs every focus word of the question (the rule as it was: a word no chunk holds gets
the largest IDF); *after* leaves those words out (`stated._weights`). The threshold
(`retrieval.min_value_share`) is also chosen on one MTRAG-UN domain (most UNANSWERABLE
abstentions whose answerable abstentions stay at the default's count; the smaller value
on a tie) and reported on the other. The dumps' document frequencies are those of the
question's words in the index the case was run on.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from phrase_coverage import NEGATIVE, POSITIVE, floor, hits_of  # noqa: E402

from tellmemore.answer import phrase, stated  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.index.embedders import load_embedder  # noqa: E402
from tellmemore.types import TermStats  # noqa: E402

SHARES = (0.3, 0.4, 0.5, 0.6, 0.7)


class _EveryWordHeld(TermStats):
    """The statistics as the rule read them before: a word no chunk holds counts as held
    (so it is weighed), with the IDF of a word no chunk holds (the largest)."""

    def __init__(self, n_chunks: int, df: Mapping[str, int]) -> None:
        super().__init__(n_chunks, {w: max(d, 1) for w, d in df.items()})
        object.__setattr__(self, "true_df", dict(df))

    def idf(self, term: str) -> float:
        return TermStats(self.n_chunks, self.true_df).idf(term)  # type: ignore[attr-defined]


def stats_of(row: dict[str, Any], before: bool) -> Callable[[list[str]], TermStats]:
    df, n = row["df"], row["n_chunks"]

    def term_stats(words: list[str]) -> TermStats:
        got = {w: int(df.get(w, 0)) for w in words}
        return _EveryWordHeld(n, got) if before else TermStats(n, got)

    return term_stats


def label(row: dict[str, Any]) -> str:
    return "pos" if row["kind"] in POSITIVE else "neg" if row["kind"] in NEGATIVE else "und"


def collect(rows: list[dict[str, Any]], settings: Settings, embed: Any) -> None:
    s = settings.retrieval
    for r in rows:
        hits, q = hits_of(r), r["question"]
        r["default"] = bool(
            floor(r, settings)
            or (
                hits
                and q
                and phrase.lacking(
                    q,
                    hits,
                    embed,
                    min_near=s.phrase_min_near,
                    max_cos=s.phrase_max_cos,
                    kinds_only=s.phrase_kinds_only,
                    message=r["message"],
                )
            )
        )
        for when in ("before", "after"):
            got = stated.value_share(q, hits, stats_of(r, when == "before")) if hits and q else None
            r[when] = got.share if got is not None else 1.0


def cell(rows: list[dict[str, Any]], abstains: Callable[[dict[str, Any]], bool]) -> str:
    pos = [r for r in rows if label(r) == "pos"]
    neg = [r for r in rows if label(r) == "neg"]
    return f"{sum(map(abstains, pos))}/{len(pos)} · {sum(map(abstains, neg))}/{len(neg)}"


def rule(when: str, share: float) -> Callable[[dict[str, Any]], bool]:
    return lambda r: bool(r["default"] or r[when] < share)


def chosen(rows: list[dict[str, Any]], when: str) -> float:
    """The share most UNANSWERABLE abstentions allow at the default's answerable count."""
    base = sum(1 for r in rows if label(r) == "neg" and r["default"])
    best = (-1, 0.0)
    for share in SHARES:
        f = rule(when, share)
        if sum(1 for r in rows if label(r) == "neg" and f(r)) > base:
            continue
        caught = sum(1 for r in rows if label(r) == "pos" and f(r))
        if caught > best[0]:
            best = (caught, share)
    return best[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dump", type=Path, nargs="+", required=True)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "stated_dumps.md")
    args = ap.parse_args()
    settings = Settings()
    embed = load_embedder(settings.embedder).embed_documents
    rows: list[dict[str, Any]] = []
    for path in args.dump:
        rows += json.loads(path.read_text())["rows"]
    collect(rows, settings, embed)
    groups = sorted({f"{r['set']}/{r['domain']}" for r in rows})
    by = {g: [r for r in rows if f"{r['set']}/{r['domain']}" == g] for g in groups}
    lines = ["| rule | " + " | ".join(groups) + " |", "| --- |" + " --- |" * len(groups)]
    lines.append(
        "| default (floor + phrase) | "
        + " | ".join(cell(by[g], rule("after", 0.0)) for g in groups)
        + " |"
    )
    for share in SHARES:
        for when in ("before", "after"):
            name = f"+ stated {share} ({when})"
            lines.append(
                f"| {name} | " + " | ".join(cell(by[g], rule(when, share)) for g in groups) + " |"
            )
    held = [
        "",
        "| chosen on | share (before) | reported on | before | share (after) | after |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for fit, other in (
        ("mtrag-un/clapnq", "mtrag-un/cloud"),
        ("mtrag-un/cloud", "mtrag-un/clapnq"),
    ):
        if fit in by and other in by:
            b, a = chosen(by[fit], "before"), chosen(by[fit], "after")
            before, after = cell(by[other], rule("before", b)), cell(by[other], rule("after", a))
            held.append(f"| {fit} | {b} | {other} | {before} | {a} | {after} |")
    changed = ["", "| set | kind | before | after | question |", "| --- | --- | --- | --- | --- |"]
    for r in rows:
        if (r["before"] < 0.5) != (r["after"] < 0.5) and not r["default"]:
            shares = f"{r['before']:.2f} | {r['after']:.2f}"
            where = f"{r['set']}/{r['domain']}"
            changed.append(f"| {where} | {r['kind']} | {shares} | {r['question'][:100]} |")
    head = [
        "# The stated-value rule before and after leaving out the words no chunk holds",
        "",
        "```",
        ".venv/bin/python bench/stated_dumps.py --dump " + " ".join(str(d) for d in args.dump),
        "```",
        "",
        "Unanswerable abstained · answerable abstained (bench/stated_dumps.py's docstring).",
        "",
    ]
    text = "\n".join(
        [
            *head,
            *lines,
            *held,
            "",
            "Turns whose verdict at 0.5 changed (the default aside):",
            *changed,
            "",
        ]
    )
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
