"""The phrase rule with and without `kinds_only`, over the cases bench/phrase_dump.py keeps.

    .venv/bin/python bench/phrase_kinds.py --dump DUMP.json [DUMP.json ...] [--out FILE]

`answer.phrase` abstains when a top passage holds the head noun of a two-word phrase of
the question ("stipend") and no passage holding the head holds its modifier ("gym").
With `kinds_only` (`retrieval.phrase_kinds_only`) only a modifier that names a kind is
read: a noun ("gym stipend", "citizenship ceremony"), not an adjective that grades or
picks out ("daily commute", "second monitor", "a certain browser"), and no head that is a
particle or a phrasal verb's ("money back", "if the commit turns out"). Each cell counts
the turns the floor (`min_dense_score`, `min_lexical_coverage`) or the rule abstains on:
unanswerable (UNANSWERABLE, or a foreign question on MTRAG) · answerable
(ANSWERABLE+PARTIAL, or MTRAG's own turn) · UNDERSPECIFIED. The ceiling and the nearness
are chosen on one MTRAG-UN domain (most UNANSWERABLE abstentions whose answerable
abstentions stay at the floor's count plus `--max-added`) and reported on the other.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from phrase_coverage import floor, group, hits_of  # noqa: E402

from tellmemore.analysis import mood  # noqa: E402
from tellmemore.answer import phrase  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.index.embedders import load_embedder  # noqa: E402

OUT = ROOT / "bench" / "results" / "phrase_kinds"
DUMPS = """\
.venv/bin/python bench/phrase_dump.py --only handbook,licences --out /tmp/a22/dump_clef.json
.venv/bin/python bench/phrase_dump.py --only handbook --handbook bench/data/tts_handbook \\
    --conversations bench/data/tts_handbook_conversations.jsonl --handbook-name tts \\
    --out /tmp/a22/dump_tts.json
.venv/bin/python bench/behaviour_features.py --data ../shared/bench/mtrag-un \\
    --cache /work/cache/bench --out /tmp/a22/bf.json   # the kept hits, chunker 3 indexes
.venv/bin/python bench/phrase_dump.py --only un,mtrag --kept /tmp/a22/bf.json \\
    --cache /work/cache/bench --out /tmp/a22/dump_un_mtrag.json"""
"""How the dumps were made (this run opened each domain's cached index.db directly, one
domain a file, while the cache was still being built; the cases are the same)."""
READING = """\
**Reading (the default since session 19).** One signal, measured everywhere: the question
names a kind of thing by a *noun* modifier and a head noun ("gym stipend", "citizenship
ceremony", "parking subsidy", "retention bonus"), a top passage holds the head, and no
passage holding the head holds the modifier. Reading only noun modifiers (a word-class
guess without a tagger: no adjective ending, none of the lexicon's grading and picking
words) removes the false abstentions the rule had on generic adjectives and misparses
("daily commute" over "normal commute", "a second monitor", "money back", "commit
turns", "a certain browser", "the second user", "What a terrible war!") and keeps most of
its catches. Since session 19 the rule reads only a message that asks (a question or a
request: `analysis.mood.asks`, from the lexicon's lists), never a remark: "So, no game
meat from now on!" (MTRAG govt, answerable) got "nothing about game meat" before. Of the
benchmark messages it reads as remarks 0/120 Clef, 0/114 TTS, 1/140 MTRAG-UN clapnq,
3/129 cloud and 6-10 of each MTRAG domain's ~250 (statements and exclamations: "I am in
Sacramento.", "What a terrible war !"). At the shipped nearness and ceiling (0.6, cosine
< 0.45, chosen before either change), on top of the floor:

- MTRAG-UN, held out: clapnq UNANSWERABLE 3 -> 4 of 22, cloud 3 = 3 of 36, answerable
  1/83 and 1/86 as the floor. The one clapnq catch is a misparse, not the signal at work:
  "Should I leave some windows open ..." read as the phrase "windows open". The
  every-phrase rule found 5/22 and 5/36 at the same false counts ("high tower", "small
  businesses", "completely safe"): its adjectives were real catches there. Chosen on one
  domain, reported on the other: fitted on clapnq (0.5, < 0.45) cloud stays 3/36; fitted
  on cloud (0.5, < 0.55) clapnq 4/22; no added false abstention either way.
- Real handbooks, turn by turn as a user runs them (bench/handbook_trial.py at session 19,
  the rule on against the floor alone at ee507ae): Clef (dev) missed abstentions 10 -> 8
  of 14, false abstentions 4 = 4; TTS (partly held out: the kinds test was written after
  reading its phrase false abstentions) 12 -> 10 of 13 missed, false 7 = 7 of 93; PostHog
  (held out, aggregate only) missed 11 -> 10 of 14, false 3 = 3, fully right 50 = 50/99;
  nothing else changes on any of the three. The every-phrase rule on TTS: false 7 -> 11.
- The licences 4 -> 5 of 10 at 0/14; the sample docs unchanged.
- MTRAG: foreign questions refused clapnq 56 -> 60 of 208, cloud 136 -> 143 of 188, govt
  149 -> 162 of 201; every own turn answerable: clapnq 0 = 0 of 206, govt 4 = 4 of 201
  (5 before the remark test), cloud 1 -> 2 of 188 false abstentions (a garbled rewrite of
  a repair, "Excuse me, I meant source code example, rather." -> "any example of source
  code example for cart ahh sauce rather?"). The every-phrase rule: 1, 4, 6.

So the signal is precise on real documents (handbooks: +2, +2, +1 unanswerable at no
added false abstention; licences +1), adds refusals of foreign questions on every MTRAG
domain, finds nothing on MTRAG-UN (its one catch there is a misparse; cloud is unchanged)
and costs one of MTRAG cloud's 188 answerable turns. The lead's bar for a default (missed
abstentions better or equal everywhere and better on the handbooks, at most one added
false abstention in any MTRAG domain) is met, so `retrieval.phrase` is on by default
(`retrieval.phrase = false` turns it off). It is far from the issue's target (>= 50% of
UNANSWERABLE): MTRAG-UN's unanswerable questions mostly name things the passages hold.
"""
NEARS = (0.5, 0.6, 0.7, 1.01)
CEILINGS = (0.45, 0.5, 0.55, 0.6, 1.0)
SHIPPED = (0.6, 0.45)
"""`phrase_min_near`, `phrase_max_cos` as shipped (chosen before this change)."""
UN = ("mtrag-un/clapnq", "mtrag-un/cloud")


def collect(rows: list[dict[str, Any]], embed: Any) -> None:
    """Each row's unstated phrase per (kinds_only, nearness); the ceiling is read later."""
    for r in rows:
        hits = hits_of(r)
        r["unstated"] = {}
        for kinds in (False, True):
            for near in NEARS:
                got = phrase.unstated(r["question"], hits, embed, min_near=near, kinds_only=kinds)
                r["unstated"][f"{int(kinds)}/{near}"] = got.text if got is not None else None


Rule = tuple[bool, float, float] | None
"""(kinds_only, nearness, ceiling), or None for the floor alone."""


def abstains(r: dict[str, Any], settings: Settings, rule: Rule, remarks: bool = False) -> bool:
    """The floor or the rule abstains; the rule reads only a message that asks
    (`analysis.mood.asks`) unless `remarks` (as before session 19)."""
    if floor(r, settings):
        return True
    if rule is None or not (remarks or mood.asks(r["message"])):
        return False
    kinds, near, ceiling = rule
    return bool(r["cos"] < ceiling and r["unstated"][f"{int(kinds)}/{near}"] is not None)


def counts(
    rows: list[dict[str, Any]], settings: Settings, rule: Rule, remarks: bool = False
) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for r in rows:
        c = out.setdefault(group(r), [0, 0])
        c[0] += abstains(r, settings, rule, remarks)
        c[1] += 1
    return out


def cell(c: dict[str, list[int]], base: str) -> str:
    parts = []
    for label in ("POS", "NEG", "UND"):
        k, n = c.get(f"{base}/{label}", [0, 0])
        parts.append(f"{k}/{n}" if n else "–")
    return " · ".join(parts)


def choose(
    rows: list[dict[str, Any]], settings: Settings, fit: str, kinds: bool, max_added: int
) -> tuple[bool, float, float]:
    """The (nearness, ceiling) with the most unanswerable abstentions on `fit` whose
    answerable abstentions stay within `max_added` of the floor's; ties to the lower
    ceiling, then the lower nearness (reads less)."""
    base = counts(rows, settings, None).get(f"{fit}/NEG", [0, 0])[0]
    best: tuple[int, float, float] | None = None
    for ceiling in CEILINGS:
        for near in NEARS:
            c = counts(rows, settings, (kinds, near, ceiling))
            if c.get(f"{fit}/NEG", [0, 0])[0] > base + max_added:
                continue
            pos = c.get(f"{fit}/POS", [0, 0])[0]
            if best is None or pos > best[0]:
                best = (pos, near, ceiling)
    assert best is not None  # the floor's own count always fits at the lowest ceiling
    return kinds, best[1], best[2]


def report(rows: list[dict[str, Any]], settings: Settings, max_added: int, cmd: str) -> str:
    bases = sorted({group(r).rsplit("/", 1)[0] for r in rows})
    head = "| rule | " + " | ".join(bases) + " |"
    lines = [
        "# The phrase rule reading only a modifier that names a kind",
        "",
        "```",
        cmd,
        "```",
        "",
        "The dumps:",
        "",
        "```",
        DUMPS,
        "```",
        "",
        READING,
        (__doc__ or "").split("\n\n", 2)[2].strip(),
        "",
        "## Shipped nearness and ceiling (0.6, cosine < 0.45)",
        "",
        head,
        "| --- |" + " --- |" * len(bases),
    ]
    named: list[tuple[str, Rule, bool]] = [
        ("floor alone (the default before session 19)", None, False),
        ("+ phrase, every phrase (opt-in before session 18)", (False, *SHIPPED), True),
        ("+ phrase, kinds only, remarks read too (before session 19)", (True, *SHIPPED), True),
        ("+ phrase, kinds only (the default)", (True, *SHIPPED), False),
    ]
    for name, rule, remarks in named:
        c = counts(rows, settings, rule, remarks)
        lines.append(f"| {name} | " + " | ".join(cell(c, b) for b in bases) + " |")
    lines += [
        "",
        "## Chosen on one MTRAG-UN domain (answerable abstentions at most the floor's"
        f" + {max_added}), reported on all",
        "",
        head,
        "| --- |" + " --- |" * len(bases),
    ]
    for fit in (u for u in UN if any(b == u for b in bases)):
        for kinds in (False, True):
            rule = choose(rows, settings, fit, kinds, max_added)
            c = counts(rows, settings, rule)
            name = (
                f"{'kinds only' if kinds else 'every phrase'} fitted on {fit}"
                f" (near {rule[1]}, cos < {rule[2]})"
            )
            lines.append(f"| {name} | " + " | ".join(cell(c, b) for b in bases) + " |")
    lines += ["", "## Grid, kinds only", "", head, "| --- |" + " --- |" * len(bases)]
    for ceiling in CEILINGS:
        for near in NEARS:
            c = counts(rows, settings, (True, near, ceiling))
            name = f"near {near}, cos < {ceiling}"
            lines.append(f"| {name} | " + " | ".join(cell(c, b) for b in bases) + " |")
    lines += [
        "",
        "## Turns the two rules read differently (shipped nearness and ceiling, floor aside)",
        "",
        "| set | cosine | every phrase | kinds only | question |",
        "| --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        if floor(r, settings) or r["cos"] >= SHIPPED[1]:
            continue
        a, b = r["unstated"][f"0/{SHIPPED[0]}"], r["unstated"][f"1/{SHIPPED[0]}"]
        if a != b:
            q = r["question"].replace("|", "\\|")[:100]
            lines.append(f"| {group(r)} | {r['cos']:.2f} | {a or ''} | {b or ''} | {q} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--dump", type=Path, nargs="+", required=True)
    parser.add_argument("--max-added", type=int, default=0)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    settings = Settings()
    rows: list[dict[str, Any]] = []
    for path in args.dump:
        rows += json.loads(path.read_text())["rows"]
    collect(rows, load_embedder(settings.embedder).embed_documents)
    cmd = (
        ".venv/bin/python bench/phrase_kinds.py --dump "
        + " ".join(str(p) for p in args.dump)
        + (f" --max-added {args.max_added}" if args.max_added else "")
    )
    text = report(rows, settings, args.max_added, cmd)
    args.out.with_suffix(".md").write_text(text)
    fields = ("set", "domain", "kind", "message", "question", "cos", "coverage", "unstated")
    keep = [{k: r.get(k) for k in fields} for r in rows]
    args.out.with_suffix(".json").write_text(json.dumps(keep, ensure_ascii=False) + "\n")
    print(f"wrote {args.out.with_suffix('.md')}")


if __name__ == "__main__":
    main()
