"""Sentence-level evidence for abstaining on MTRAG-UN's UNANSWERABLE turns: what was tried.

    .venv/bin/python bench/sentence_dump.py --data ../shared/bench/mtrag-un \
        --cache /work/cache/bench --out /tmp/sentence_dump.json   # ~4 min
    .venv/bin/python bench/sentence_evidence.py --dump /tmp/sentence_dump.json

MTRAG-UN's UNANSWERABLE turns use words the passages hold ("Is Cloud Shell workspace
free?", "How many languages do they provide assistance in?"): the documents lack the
answer, not the subject. The ideas measured here read the evidence sentence by sentence
instead of passage by passage (the top five passages of the question's own phrasings):

- `sent_cov` / `focus_cov` / `focus_cov1`: the largest IDF-weighted share of the
  question's content words (`sent_cov`) or focus words (`focus.candidates`) one sentence
  (or two neighbours, `focus_cov1`: one only) holds, by Porter stem, or by a MiniLM
  near-synonym at `--near` or above (word against word, as `answer.focus`);
- `focus_all`: some sentence pair holds every focus word;
- `least_in_best`: the focus word the fewest sentences hold (the asked-about predicate:
  "free", "regions") is in the sentence closest to the question (MiniLM);
- `min_term`: how rare (IDF over the question's rarest) the rarest focus word is that the
  best-covering sentence pair lacks;
- `best_cov_of_bestcos`: the focus share of the sentence closest to the question;
- `sent_gap`: the best sentence cosine minus the second best;
- `rare_sent`: the share of the question's rarer half of words one sentence pair holds;
- `value_unstated`: the question asks for a value (a number, amount, duration, date)
  and no sentence stating one holds half of its focus (the rule `answer.stated` ships
  with a threshold chosen held out; bench/results/behaviour.md).

For each: its AUC per domain (UNANSWERABLE against ANSWERABLE+PARTIAL, 0.5 = no signal;
below 0.5 the feature is lower on UNANSWERABLE turns), and the shipped abstain features
plus it, fitted on one domain (logistic, `answer.scorer.fit`, threshold at the fitting
false rate) and reported on the other, on top of the floor. Results:
bench/results/sentence_evidence.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tellmemore.answer import answer_types  # noqa: E402
from tellmemore.answer.answerability import FEATURES as BASE  # noqa: E402
from tellmemore.answer.scorer import fit  # noqa: E402
from tellmemore.answer.stated import asked_value  # noqa: E402
from tellmemore.config import RetrievalSettings  # noqa: E402
from tellmemore.conversation.text import stem  # noqa: E402

OUT = ROOT / "bench" / "results" / "sentence_evidence"
NEW = (
    "sent_cov",
    "focus_cov",
    "focus_cov1",
    "focus_all",
    "least_in_best",
    "min_term",
    "best_cov_of_bestcos",
    "sent_gap",
    "rare_sent",
    "value_unstated",
)


class Turn:
    """One dumped turn, with the helpers the features share."""

    def __init__(self, r: dict[str, Any], near: float) -> None:
        self.r = r
        self.near = near
        top = max(r["idf"].values(), default=1.0)
        self.idf = {w: r["idf"].get(w, top) for w in [*r["words"], *r["candidates"]]}
        self.stems = {w: r["stems"].get(w) or stem(w) for w in self.idf}
        self.s = r["sentences"]

    def held(self, s: dict[str, Any], words: list[str]) -> dict[str, bool]:
        out = {}
        for w in words:
            out[w] = self.stems[w] in s["stems"] or (
                self.near < 1.0 and s.get("near", {}).get(w, 0.0) >= self.near
            )
        return out

    def windows(self, size: int) -> list[list[dict[str, Any]]]:
        out = []
        for i, s in enumerate(self.s):
            out.append([s])
            if size == 2 and i + 1 < len(self.s) and self.s[i + 1]["hit"] == s["hit"]:
                out.append([s, self.s[i + 1]])
        return out

    def win_held(self, win: list[dict[str, Any]], words: list[str]) -> dict[str, bool]:
        h = {w: False for w in words}
        for s in win:
            for w, v in self.held(s, words).items():
                h[w] = h[w] or v
        return h

    def cov(self, win: list[dict[str, Any]], words: list[str]) -> float:
        h = self.win_held(win, words)
        total = sum(self.idf[w] for w in words) or 1.0
        return sum(self.idf[w] for w in words if h[w]) / total


def features(r: dict[str, Any], near: float) -> dict[str, float]:
    f = {k.split(".", 1)[1]: v for k, v in r["features"].items() if k.startswith("abstain.")}
    t = Turn(r, near)
    words, focus = r["words"], (r["candidates"] or r["words"])
    if not t.s or not words:
        return {**f, **{n: 0.0 for n in NEW}}
    pairs, ones = t.windows(2), t.windows(1)
    f["sent_cov"] = max(t.cov(w, words) for w in pairs)
    f["focus_cov"] = max(t.cov(w, focus) for w in pairs)
    f["focus_cov1"] = max(t.cov(w, focus) for w in ones)
    f["focus_all"] = float(any(all(t.win_held(w, focus).values()) for w in pairs))
    counts = {w: sum(t.held(s, [w])[w] for s in t.s) for w in focus}
    least = min(focus, key=lambda w: (counts[w], -t.idf[w]))
    bi = max(range(len(t.s)), key=lambda i: t.s[i].get("cos", 0.0))
    bwin = [t.s[bi]] + (
        [t.s[bi + 1]] if bi + 1 < len(t.s) and t.s[bi + 1]["hit"] == t.s[bi]["hit"] else []
    )
    f["least_in_best"] = float(t.win_held(bwin, [least])[least])
    f["best_cov_of_bestcos"] = t.cov(bwin, focus)
    best = max(pairs, key=lambda w: t.cov(w, focus))
    h = t.win_held(best, focus)
    top = max(t.idf.values())
    lost = [t.idf[w] for w in focus if not h[w]]
    f["min_term"] = max(lost) / top if lost else 0.0
    cs = sorted((s.get("cos", 0.0) for s in t.s), reverse=True)
    f["sent_gap"] = cs[0] - (cs[1] if len(cs) > 1 else 0.0)
    ranked = sorted(words, key=lambda w: -t.idf[w])
    rare = ranked[: max(1, (len(ranked) + 1) // 2)]
    f["rare_sent"] = max(t.cov(w, rare) for w in pairs)
    kind = asked_value(r["question"])
    f["value_unstated"] = 0.0
    if kind is not None:
        f["value_unstated"] = float(
            not any(answer_types.holds(s["text"], kind) and t.cov([s], focus) >= 0.5 for s in t.s)
        )
    return f


def auc(pos: list[float], neg: list[float]) -> float:
    p, n = np.asarray(pos), np.asarray(neg)
    if not len(p) or not len(n):
        return float("nan")
    return float((p[:, None] > n[None, :]).mean() + 0.5 * (p[:, None] == n[None, :]).mean())


def floor(f: dict[str, float]) -> bool:
    cut = RetrievalSettings()
    return f["raw_cos"] < cut.min_dense_score and f["coverage"] < cut.min_lexical_coverage


def held_out(
    rows: list[dict[str, Any]], feats: tuple[str, ...], max_false: float, l2: float
) -> list[str]:
    out = []
    for a, b in (("clapnq", "cloud"), ("cloud", "clapnq")):
        tr = [r for r in rows if r["domain"] == a]
        te = [r for r in rows if r["domain"] == b]
        m = fit(
            "abstain",
            feats,
            [[r["f"][n] for n in feats] for r in tr],
            [r["label"] == "UNANSWERABLE" for r in tr],
            l2=l2,
            max_positive_rate=max_false,
        )
        u = [r for r in te if r["label"] == "UNANSWERABLE"]
        o = [r for r in te if r["label"] != "UNANSWERABLE"]
        du = sum(m.decide(r["f"]) or floor(r["f"]) for r in u)
        do = sum(m.decide(r["f"]) or floor(r["f"]) for r in o)
        out.append(f"{du}/{len(u)} at {do}/{len(o)}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dump", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--l2", type=float, default=10.0)
    args = parser.parse_args()
    dumped = json.loads(args.dump.read_text())["rows"]
    dumped = [r for r in dumped if r["label"] in ("UNANSWERABLE", "ANSWERABLE", "PARTIAL")]
    lines = [
        "# Sentence-level evidence on MTRAG-UN's UNANSWERABLE turns (what was tried)",
        "",
        "```",
        ".venv/bin/python bench/sentence_dump.py --data ../shared/bench/mtrag-un "
        "--cache /work/cache/bench --out /tmp/sentence_dump.json",
        f".venv/bin/python bench/sentence_evidence.py --dump /tmp/sentence_dump.json "
        f"--l2 {args.l2}",
        "```",
        "",
        "See the docstring of bench/sentence_evidence.py for the features. AUC: "
        "UNANSWERABLE against ANSWERABLE+PARTIAL (0.5: no signal; under 0.5: lower on "
        "UNANSWERABLE). Held out: the shipped abstain features plus the one named, fitted "
        "on one domain at the fitting false rate, on top of the floor, reported on the "
        "other: UNANSWERABLE abstained / ANSWERABLE+PARTIAL abstained. The floor alone "
        "abstains on clapnq 2/22 at 1/83, cloud 2/36 at 1/86.",
        "",
    ]
    payload: dict[str, Any] = {"rows": []}
    for near in (0.5, 0.7, 1.0):
        rows = [{**r, "f": features(r, near)} for r in dumped]
        name = "exact stems only" if near >= 1.0 else f"near-synonyms at >= {near}"
        lines += [
            f"## Words held by {name}",
            "",
            "| feature | AUC clapnq | AUC cloud | held out 1%: clapnq->cloud | cloud->clapnq "
            "| held out 3%: clapnq->cloud | cloud->clapnq |",
            "| --- | --- | --- | --- | --- | --- | --- |",
        ]
        for n in ("raw_cos", "raw_sentence", "coverage", *NEW):
            a = [
                auc(
                    [r["f"][n] for r in rows if r["domain"] == d and r["label"] == "UNANSWERABLE"],
                    [r["f"][n] for r in rows if r["domain"] == d and r["label"] != "UNANSWERABLE"],
                )
                for d in ("clapnq", "cloud")
            ]
            fits = (
                held_out(rows, (*BASE, n), 0.01, args.l2)
                + held_out(rows, (*BASE, n), 0.03, args.l2)
                if n in NEW
                else ["–"] * 4
            )
            lines.append(f"| {n} | {a[0]:.3f} | {a[1]:.3f} | " + " | ".join(fits) + " |")
            payload["rows"].append({"near": near, "feature": n, "auc": a, "held_out": fits})
        both = held_out(rows, BASE, 0.01, args.l2) + held_out(rows, BASE, 0.03, args.l2)
        every = (*BASE, *NEW)
        allf = held_out(rows, every, 0.01, args.l2) + held_out(rows, every, 0.03, args.l2)
        lines.append("| (shipped features alone) | | | " + " | ".join(both) + " |")
        lines.append("| (shipped + every feature above) | | | " + " | ".join(allf) + " |")
        lines.append("")
    args.out.with_suffix(".json").write_text(json.dumps(payload, indent=1) + "\n")
    args.out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out.with_suffix('.md')}")


if __name__ == "__main__":
    main()
