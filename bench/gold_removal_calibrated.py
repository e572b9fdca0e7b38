"""The gold-removal abstain scorer with its threshold per index: a quantile of own probes.

    .venv/bin/python bench/gold_removal_calibrated.py probes --cache /work/cache/bench_md
    .venv/bin/python bench/gold_removal_calibrated.py fit

`probes` asks each MTRAG eval index (clapnq, cloud, govt) its own questions
(`answer.calibration.own_probes`, `answer.own_threshold.PROBES` of them, as the product
draws them) and reads each probe's abstain features over its retrieval, as the product
does (`answer.own_threshold.probe_features`) -> bench/results/gold_removal_probes.json.

`fit` chooses one quantile `q` on MTRAG alone, leave-one-domain-out: the scorer is fitted
on two domains (the shipped feature set and L2, `abstain_gold_model.json`), each
domain's threshold is the `q` quantile of its own probes' probabilities under that
scorer, and `q` is the lowest (most abstentions) whose false rate on the two fitting
domains' answerable turns (gold in the top five or not) stays at or under `--max-false`;
it is measured on the third. Then `q` is chosen once more on all three domains with the
shipped model and reported on MTRAG-UN clapnq and cloud (fully held out; their indexes
are MTRAG's, so their probes are MTRAG's) with the default floor -> tables on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "scripts"))

from gold_removal import DATA, DOMAINS, CachedEmbed  # noqa: E402
from gold_removal_fit import either, feats, fitted, floor_abstains, pct, rates  # noqa: E402

from tellmemore.answer.calibration import own_probes  # noqa: E402
from tellmemore.answer.judge import named_model  # noqa: E402
from tellmemore.answer.own_threshold import (  # noqa: E402
    PROBES,
    probe_features,
    quantile_threshold,
    reads_as_words,
)
from tellmemore.answer.scorer import Scorer  # noqa: E402
from tellmemore.config import Settings  # noqa: E402

PROBES_OUT = ROOT / "bench" / "results" / "gold_removal_probes.json"
RESULTS = ROOT / "bench" / "results"
QS = (0.5, 0.75, 0.8, 0.85, 0.9, 0.925, 0.95, 0.975, 0.99, 1.0)
Row = dict[str, Any]


def probes_step(cache: Path, data: Path, domains: Sequence[str]) -> dict[str, Any]:
    from tellmemore.eval.corpus import ensure_index
    from tellmemore.eval.datasets import load_dataset
    from tellmemore.index.embedders import load_embedder
    from tellmemore.retrieval import Retriever

    settings = Settings()
    embedder = load_embedder(settings.embedder)
    out: dict[str, Any] = {}
    for d in domains:
        t0 = time.perf_counter()
        dataset = load_dataset(data / d, skip_invalid=True)
        index, info = ensure_index(dataset, embedder=embedder, settings=settings, cache_dir=cache)
        try:
            retriever = Retriever(index, embedder, settings.retrieval)

            def search(probe: str, r: Retriever = retriever) -> tuple[Any, Any]:
                result = r.search([probe])
                return result.hits, result.per_query

            probes = own_probes(index, n=PROBES)
            rows = probe_features(
                search,
                probes,
                index.term_stats,
                retriever.calibrator.get(),
                CachedEmbed(embedder.embed_documents),
            )
        finally:
            index.close()
        out[d] = {"index": info.path.parent.name, "probes": probes, "rows": rows}
        print(f"{d}: {len(rows)} probes, {time.perf_counter() - t0:.0f} s", flush=True)
    return out


def threshold_abstains(model: Scorer, threshold: float) -> Callable[[Row], bool]:
    """The scorer at `threshold` on a row (a MTRAG-UN turn that retrieved nothing abstains)."""

    def run(row: Row) -> bool:
        if row.get("path") == "nothing retrieved":
            return True
        if row.get("path", "judged") != "judged":
            return False
        return model.probability(feats(row, model.features)) >= threshold

    return run


def choose_q(
    model: Scorer,
    rows: Sequence[Row],
    probes: Mapping[str, Any],
    domains: Sequence[str],
    most: float,
) -> tuple[float, list[str]]:
    """The lowest q whose false rate on every one of `domains`' answerable turns stays at or
    under `most` (1.0 when none does), and the grid read."""
    lines = []
    best = 1.0
    for q in sorted(QS, reverse=True):
        ok = True
        cells = []
        for d in domains:
            t = quantile_threshold(model, probes[d]["rows"], q)
            u, nu, f, nf = rates(
                [r for r in rows if r["domain"] == d], threshold_abstains(model, t)
            )
            ok = ok and f <= most * nf
            cells.append(f"{d} t={t:.3f} un {pct(u, nu)} false {pct(f, nf)}")
        lines.append(f"q={q}: " + "; ".join(cells))
        if ok:
            best = q
        else:
            break
    return best, lines


def load_probes(path: Path, words_only: bool = True) -> dict[str, Any]:
    """The stored probes (all drawn); with `words_only`, those the product keeps
    (`own_threshold.reads_as_words`)."""
    probes: dict[str, Any] = json.loads(path.read_text())
    for p in probes.values():
        assert len(p["probes"]) == len(p["rows"])  # every probe retrieved: rows aligned
        if words_only:
            kept = [
                (t, r) for t, r in zip(p["probes"], p["rows"], strict=True) if reads_as_words(t)
            ]
            p["probes"], p["rows"] = [t for t, _ in kept], [r for _, r in kept]
    return probes


def fit_step(args: argparse.Namespace) -> None:
    probes = load_probes(args.probes, not args.all_probes)
    print("probes kept: " + ", ".join(f"{d} {len(p['rows'])}" for d, p in probes.items()))
    rows = [r for p in args.mtrag for r in json.loads(p.read_text())["rows"]]
    shipped = named_model("gold_removal")
    names = shipped.features
    domains = [d for d in DOMAINS if d in probes]
    out = [f"## MTRAG leave-one-domain-out (max false on the fitting domains {args.max_false})"]
    pooled = [0, 0, 0, 0]
    for held in domains:
        fit_on = [d for d in domains if d != held]
        train = [r for r in rows if r["domain"] in fit_on]
        pairs = [r for r in train if r.get("gold_top5", True) or r["label"] != "ANSWERABLE"]
        model = fitted(pairs, names, args.l2, 0.03, "+".join(fit_on))
        q, grid = choose_q(model, train, probes, fit_on, args.max_false)
        t = quantile_threshold(model, probes[held]["rows"], q)
        r = rates([x for x in rows if x["domain"] == held], threshold_abstains(model, t))
        pooled = [a + b for a, b in zip(pooled, r, strict=True)]
        out += [f"- held out {held}: fitted on {fit_on}, q={q}", *[f"  - {g}" for g in grid]]
        out.append(f"  - **{held}: t={t:.3f} UNANSWERABLE {pct(r[0], r[1])}, "
                   f"answerable {pct(r[2], r[3])}**")  # fmt: skip
    out.append(f"- pooled held out: UNANSWERABLE {pct(pooled[0], pooled[1])}, "
               f"answerable {pct(pooled[2], pooled[3])}")  # fmt: skip
    q, grid = choose_q(shipped, rows, probes, domains, args.max_false)
    out += ["", f"## Shipped model, q chosen on all three MTRAG domains: q={q}"]
    out += [f"- {g}" for g in grid]
    un = json.loads(args.mtrag_un.read_text())["rows"]
    out += ["", "## MTRAG-UN (fully held out), floor or scorer", ""]
    out.append("| q | domain | threshold | UNANSWERABLE | ANSWERABLE+PARTIAL |")
    out.append("| --- | --- | --- | --- | --- |")
    for qq in sorted({*QS, q}):
        for d in ("clapnq", "cloud"):
            mine = [r for r in un if r["domain"] == d]
            if qq == QS[0]:
                f = rates(mine, floor_abstains())
                out.append(f"| floor | {d} | - | {pct(f[0], f[1])} | {pct(f[2], f[3])} |")
            t = quantile_threshold(shipped, probes[d]["rows"], qq)
            r = rates(mine, either(floor_abstains(), threshold_abstains(shipped, t)))
            mark = "**" if qq == q else ""
            out.append(f"| {mark}{qq}{mark} | {d} | {t:.3f} | {pct(r[0], r[1])} | "
                       f"{pct(r[2], r[3])} |")  # fmt: skip
    print("\n".join(out))


def standardised(row: Row, probes: Mapping[str, Any], names: Sequence[str], z: bool) -> Row:
    """The row's features less its index's own-probe median (`z`: mean, over the probes'
    spread), the other per-index calibration tried; other paths as they are."""
    if row.get("path", "judged") != "judged":
        return row
    p = np.array([[r[n] for n in names] for r in probes[row["domain"]]["rows"]])
    spread = p.std(axis=0)
    flat = spread < 1e-3
    centre = np.where(flat, 0.0, p.mean(axis=0)) if z else np.median(p, axis=0)
    scale = np.where(flat, 1.0, spread) if z else np.ones(len(names))
    f = dict(row["features"])
    for i, n in enumerate(names):
        f[f"abstain.{n}"] = (f[f"abstain.{n}"] - centre[i]) / scale[i]
    return {**row, "features": f}


def standardised_step(args: argparse.Namespace) -> None:
    """Each feature placed on its index's own-probe scale before the scorer, refitted:
    leave-one-domain-out on MTRAG, then fitted on all three and read on MTRAG-UN."""
    probes = load_probes(args.probes, not args.all_probes)
    raw = [r for p in args.mtrag for r in json.loads(p.read_text())["rows"]]
    un_raw = json.loads(args.mtrag_un.read_text())["rows"]
    names = named_model("gold_removal").features
    out = [
        "| features | fitting false | MTRAG LOO clapnq / cloud / govt (UN, false) "
        "| MTRAG-UN clapnq (floor or scorer) | MTRAG-UN cloud |",
        "| --- | --- | --- | --- | --- |",
    ]
    for mode in ("as read", "less probe median", "probe z-score"):
        rows = raw if mode == "as read" else [
            standardised(r, probes, names, mode == "probe z-score") for r in raw
        ]  # fmt: skip
        un = un_raw if mode == "as read" else [
            standardised(r, probes, names, mode == "probe z-score") for r in un_raw
        ]  # fmt: skip
        for rate in (0.01, 0.03):
            cells = []
            for held in (*DOMAINS, None):
                train = [r for r in rows if r["domain"] != held]
                pairs = [r for r in train if r.get("gold_top5", True) or r["label"] != "ANSWERABLE"]
                missed = [
                    r for r in train if r.get("gold_top5") is False and r["label"] != "UNANSWERABLE"
                ]
                model = fitted(pairs, names, args.l2, rate, "", missed)
                run = threshold_abstains(model, model.threshold)
                if held is not None:
                    r = rates([x for x in rows if x["domain"] == held], run)
                    cells.append(f"{r[0]}/{r[1]}, {r[2]}/{r[3]}")
            loo = " / ".join(cells)
            ups = []
            for d in ("clapnq", "cloud"):
                # the floor reads the features as read; the scorer, standardised
                raw_of = {id(x): y for x, y in zip(un, un_raw, strict=True)}
                floor = floor_abstains()
                r = rates(
                    [x for x in un if x["domain"] == d],
                    lambda x, run=run, f=floor, raw=raw_of: f(raw[id(x)]) or run(x),
                )
                ups.append(f"{pct(r[0], r[1])} at {pct(r[2], r[3])}")
            out.append(f"| {mode} | {rate:.0%} | {loo} | {ups[0]} | {ups[1]} |")
    print("\n".join(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=("probes", "fit", "standardised"))
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache")
    parser.add_argument("--probes", type=Path, default=PROBES_OUT)
    parser.add_argument("--domains", default=",".join(DOMAINS))
    parser.add_argument(
        "--mtrag",
        type=Path,
        nargs="+",
        default=[RESULTS / "gold_removal_features.json", RESULTS / "gold_removal_missed.json"],
    )
    parser.add_argument("--mtrag-un", type=Path, default=RESULTS / "behaviour_features.json")
    parser.add_argument("--max-false", type=float, default=0.03)
    parser.add_argument("--l2", type=float, default=10.0)
    parser.add_argument(
        "--all-probes", action="store_true", help="also the probes that are not words"
    )
    args = parser.parse_args()
    if args.step == "probes":
        domains = [d.strip() for d in args.domains.split(",") if d.strip()]
        payload = probes_step(args.cache, args.data, domains)
        args.probes.write_text(json.dumps(payload, ensure_ascii=False) + "\n")
        print(f"wrote {args.probes}")
    elif args.step == "fit":
        fit_step(args)
    else:
        standardised_step(args)


if __name__ == "__main__":
    main()
