"""Three cheap ideas for the offline answer's sentences, measured held out (issue 21).

    HF_HUB_OFFLINE=1 nice -n 5 .venv/bin/python bench/sentence_probes.py \
        --cases /work/cache/fr_cases.pkl --embeddings /work/cache/extractive_vectors.npz

Each reads the retrieved turns `bench/extractive_fit_retrieved.py --cases` keeps (MTRAG's
turns with their top hits for the human rewrite, and MTRAG-UN's answerable turns) and
scores answers by content-word F1 against the reference, as that bench does:

- `novelty`: a scorer feature, the share of a sentence's stems the previous assistant
  reply already holds (a follow-up's answer should say something new). Fitted
  leave-one-domain-out with the shipped features and without it; F1 of the best 3 units.
- `kind threshold`: the scorer's threshold (how many sentences after the first are
  quoted) chosen per asked answer type (`answer_types.asked_type`) on two MTRAG domains,
  reported on the third and on MTRAG-UN; against the shipped 0.1 for every type.
- `parentheticals`: the shipped answer with its "( ... )" spans removed (shorter answers
  for a precision gain).
- `ceiling`: the same linear scorer fitted on the held-out domain itself (in sample, the
  best any reweighting of the shipped features could do there) against the fit without
  it and against ranking by the oracle's own labels.

Results: bench/results/sentence_probes.md.
"""

from __future__ import annotations

import argparse
import json
import pickle
import re
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from extractive_answers import DATA, CachedEmbed  # noqa: E402
from extractive_fit_retrieved import RANK_BY, answer_reads, turn_f1s  # noqa: E402
from sentence_labels import labels, rarity  # noqa: E402

from tellmemore.answer import extractive, scoring  # noqa: E402
from tellmemore.answer.answer_types import asked_type  # noqa: E402
from tellmemore.answer.overlap import score_text  # noqa: E402

MTRAG = ("clapnq", "cloud", "govt")
THRESHOLDS = (0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.9)
PARENTHETICAL = re.compile(r"\s*\([^()]{0,200}\)")


def previous_replies(data: Path) -> dict[tuple[str, str], str]:
    """(domain, human rewrite) -> the assistant reply before that turn ("" on a first turn)."""
    out = {}
    for domain in MTRAG:
        with (data / "mtrag" / domain / "conversations.jsonl").open(encoding="utf-8") as f:
            for t in map(json.loads, f):
                h = t["history"]
                out[domain, t["rewrite"]] = (
                    h[-1]["content"] if h and h[-1]["role"] == "assistant" else ""
                )
    return out


def said_share(candidates: Sequence[Any], said: str) -> np.ndarray:
    before = scoring.content_stems(said)
    return np.array(
        [
            len(s & before) / len(s) if (s := scoring.content_stems(c.text)) and before else 0.0
            for c in candidates
        ]
    )


def novelty(cases: dict[str, list[Any]], embed: CachedEmbed, data: Path) -> list[str]:
    replies = previous_replies(data)
    turns: dict[str, list[tuple[Any, list[Any], np.ndarray, np.ndarray]]] = {}
    for domain in MTRAG:
        for c in cases[domain]:
            hits, candidates, headers = answer_reads(c)
            if not candidates:
                continue
            ranks = scoring.passage_ranks([h.dense for h in hits], RANK_BY["rank_by"])
            x = scoring.features(c.query, candidates, headers, asked_type(c.query), embed, ranks)
            x = np.hstack([x, said_share(candidates, replies.get((domain, c.query), ""))[:, None]])
            _, member = labels([k.text for k in candidates], c.reference, c.query, "f1", rarity([]))
            turns.setdefault(domain, []).append((c, candidates, x, np.asarray(member, float)))
    lines = [
        "| held out | F1 of the best 3 units: shipped features | + novelty | novelty weight |",
        "| --- | --- | --- | --- |",
    ]
    for held in MTRAG:
        rows = [t for d in MTRAG if d != held for t in turns[d]]
        x, y = np.vstack([t[2] for t in rows]), np.concatenate([t[3] for t in rows])
        f1s, weight = [], 0.0
        for cols in (slice(0, len(scoring.FEATURES)), slice(None)):
            fitted = scoring.fit(x[:, cols], y, l2=10.0)
            w, mu, sd = (np.array(v) for v in (fitted.weights, fitted.mean, fitted.scale))
            weight = float(w[-1])
            f1s.append(
                np.mean(
                    [
                        score_text(
                            " ".join(
                                cands[i].text
                                for i in sorted(
                                    np.argsort(-(((xx[:, cols] - mu) / sd) @ w), kind="stable")[:3]
                                )
                            ),
                            c.reference,
                        )[1]
                        for c, cands, xx, _ in turns[held]
                    ]
                )
            )
        lines.append(f"| {held} | {f1s[0]:.4f} | {f1s[1]:.4f} | {weight:+.3f} |")
    return lines


def kind_threshold(cases: dict[str, list[Any]], embed: CachedEmbed) -> list[str]:
    shipped = scoring.shipped()

    def kind(c: Any) -> str:
        k = asked_type(c.query)
        return k.name if k is not None else "none"

    kinds = {d: [kind(c) for c in cs] for d, cs in cases.items()}
    f1 = {
        d: {t: turn_f1s(cs, embed, replace(shipped, threshold=t), 0.1) for t in THRESHOLDS}
        for d, cs in cases.items()
    }
    lines = [
        "| test | shipped 0.1 | threshold per asked type | chosen (on the MTRAG domains left) |",
        "| --- | --- | --- | --- |",
    ]
    for test in (*MTRAG, "un/clapnq", "un/cloud"):
        fit = [d for d in MTRAG if d != test]
        got = np.array(f1[test][0.1])
        chosen = {}
        for k in sorted(set(kinds[test])):

            def total(t: float, k: str = k, fit: list[str] = fit) -> tuple[float, float]:
                return (
                    sum(
                        float(f)
                        for d in fit
                        for kk, f in zip(kinds[d], f1[d][t], strict=True)
                        if kk == k
                    ),
                    -abs(t - 0.1),
                )

            chosen[k] = max(THRESHOLDS, key=total)
            for i, kk in enumerate(kinds[test]):
                if kk == k:
                    got[i] = f1[test][chosen[k]][i]
        picks = ", ".join(f"{k} {t:g}" for k, t in chosen.items() if t != 0.1) or "0.1 for all"
        lines.append(f"| {test} | {np.mean(f1[test][0.1]):.4f} | {got.mean():.4f} | {picks} |")
    return lines


def parentheticals(cases: dict[str, list[Any]], embed: CachedEmbed) -> list[str]:
    shipped = scoring.shipped()
    lines = [
        "| test | F1 shipped | parentheticals removed | words | answers changed |",
        "| --- | --- | --- | --- | --- |",
    ]
    for domain, cs in cases.items():
        before, after, words, changed = [], [], [], 0
        for c in cs:
            text = " ".join(
                e.sentence
                for e in extractive.best_sentences(
                    c.query, c.hits, embed=embed, scorer=shipped, spread_gap=0.1
                )
            )
            cut = PARENTHETICAL.sub("", text)
            before.append(score_text(text, c.reference)[1])
            after.append(score_text(cut, c.reference)[1])
            words.append((len(text.split()), len(cut.split())))
            changed += cut != text
        w = np.array(words)
        lines.append(
            f"| {domain} | {np.mean(before):.4f} | {np.mean(after):.4f} | "
            f"{w[:, 0].mean():.0f} -> {w[:, 1].mean():.0f} | {changed} / {len(cs)} |"
        )
    return lines


def ranked_f1(turns: list[Any], scores: list[np.ndarray]) -> float:
    """F1 of the best 3 units of each turn by `scores`."""
    return float(
        np.mean(
            [
                score_text(
                    " ".join(cands[i].text for i in sorted(np.argsort(-s, kind="stable")[:3])),
                    c.reference,
                )[1]
                for s, (c, cands, _, _) in zip(scores, turns, strict=True)
            ]
        )
    )


def ceiling(cases: dict[str, list[Any]], embed: CachedEmbed) -> list[str]:
    rows: dict[str, list[Any]] = {}
    for domain in MTRAG:
        for c in cases[domain]:
            hits, candidates, headers = answer_reads(c)
            if candidates:
                ranks = scoring.passage_ranks([h.dense for h in hits], RANK_BY["rank_by"])
                kind = asked_type(c.query)
                x = scoring.features(c.query, candidates, headers, kind, embed, ranks)
                _, member = labels(
                    [k.text for k in candidates], c.reference, c.query, "f1", rarity([])
                )
                rows.setdefault(domain, []).append((c, candidates, x, np.asarray(member, float)))

    def scored(fit: list[Any], test: list[Any], l2: float) -> list[np.ndarray]:
        s = scoring.fit(np.vstack([t[2] for t in fit]), np.concatenate([t[3] for t in fit]), l2=l2)
        w, mu, sd = (np.array(v) for v in (s.weights, s.mean, s.scale))
        return [((t[2] - mu) / sd) @ w for t in test]

    lines = [
        "| domain | fitted on the other two | fitted on itself (in sample) | "
        "the oracle's own labels |",
        "| --- | --- | --- | --- |",
    ]
    for domain in MTRAG:
        other = [t for d in MTRAG if d != domain for t in rows[d]]
        lines.append(
            f"| {domain} | {ranked_f1(rows[domain], scored(other, rows[domain], 10.0)):.4f} | "
            f"{ranked_f1(rows[domain], scored(rows[domain], rows[domain], 1.0)):.4f} | "
            f"{ranked_f1(rows[domain], [t[3] for t in rows[domain]]):.4f} |"
        )
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=Path, required=True, help="extractive_fit_retrieved --cases")
    ap.add_argument("--embeddings", type=Path, help="a CachedEmbed file (texts embedded once)")
    ap.add_argument("--data", type=Path, default=DATA)
    args = ap.parse_args()
    cases = pickle.loads(args.cases.read_bytes())
    embed = CachedEmbed(args.embeddings)
    for title, lines in (
        ("novelty", novelty(cases, embed, args.data)),
        ("kind threshold", kind_threshold(cases, embed)),
        ("parentheticals", parentheticals(cases, embed)),
        ("ceiling", ceiling(cases, embed)),
    ):
        print(f"\n## {title}\n\n" + "\n".join(lines))


if __name__ == "__main__":
    main()
