"""The floor under the probe target: probes that a resolver doing its job must carry into.

    .venv/bin/python bench/probe_floor.py

`tellmemore eval` counts a follow-up as a topic-switch probe when the human rewrite
carried nothing from the history (`eval.measures`), so any term the resolver carries
there is over-binding. Some annotators left a history-dependent message as typed: "did
he always have powers?" after a question about Doctor Strange, "What about Hebrew?"
after "how many skills can I create?". Resolving that "he" is what the resolver is for,
yet it counts against the probe figure.

`bench/data/probe_history_dependent.tsv` holds a person's reading of every probe whose
human rewrite still has a referent or an ellipsis (the non-strict probes; the strict
ones stand alone by construction): 1 when the message cannot be searched alone
correctly, with the antecedent named. The probe set depends only on the data (message,
history, rewrite), not on any strategy, so the reading holds for every run.

Per domain, this prints and writes (bench/results/probe_floor.{json,md}):
- the floor: the share of probes that are history-dependent, which any resolver that
  binds them carries into, whatever else it does;
- how many of those the embedded resolver of the report did carry into;
- the embedded resolver's probe over-binding with and without them.
"""

from __future__ import annotations

import argparse
import csv
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
JUDGED = ROOT / "bench" / "data" / "probe_history_dependent.tsv"
REPORT = ROOT / "bench" / "results" / "eval" / "report.json"
HELD_OUT = ROOT / "bench" / ".cache" / "selector"
"""`bench/run_selector_cross_domain.sh` leaves one held-out report per domain here."""
OUT = ROOT / "bench" / "results" / "probe_floor"
STRATEGY = "embedded"


def read_judgments(path: Path) -> dict[str, bool]:
    """task id -> whether the probe's message depends on the history."""
    with path.open(newline="") as f:
        return {
            row["task_id"]: row["history_dependent"] == "1"
            for row in csv.DictReader(f, delimiter="\t")
        }


def floor_by_domain(
    turns: list[dict[str, Any]], judged: dict[str, bool]
) -> dict[str, dict[str, Any]]:
    """Per domain: probe counts, the history-dependent floor and what `STRATEGY` carried."""
    out: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"probes": 0, "non_strict": 0, "history_dependent": 0, "unjudged": 0,
                 "carried": 0, "carried_dependent": 0}
    )  # fmt: skip
    for t in turns:
        b = t["binding"]
        if t["strategy"] != STRATEGY or not t["followup"] or not b["topic_switch"]:
            continue
        d = out[t["dataset"]]
        d["probes"] += 1
        carried = bool(b["carried"])
        d["carried"] += carried
        if b["strict_topic_switch"]:
            continue
        d["non_strict"] += 1
        if t["task_id"] not in judged:
            d["unjudged"] += 1
        elif judged[t["task_id"]]:
            d["history_dependent"] += 1
            d["carried_dependent"] += carried
    for d in out.values():
        d["floor"] = d["history_dependent"] / d["probes"]
        d["over_binding"] = d["carried"] / d["probes"]
        rest = d["probes"] - d["history_dependent"]
        d["over_binding_without_dependent"] = (d["carried"] - d["carried_dependent"]) / rest
    return dict(sorted(out.items()))


def markdown(tables: dict[str, dict[str, dict[str, Any]]]) -> str:
    lines = [
        "# The floor under the probe target",
        "",
        "`.venv/bin/python bench/probe_floor.py` (see its docstring). A probe is a follow-up "
        "whose human rewrite carried nothing; *history-dependent* probes are those a person "
        "read as needing the history (a referent or an ellipsis the annotator left as typed), "
        "listed in `bench/data/probe_history_dependent.tsv`. The floor is their share of the "
        "probes: a resolver that binds them cannot score below it, so a probe target under "
        'it asks the resolver not to resolve "he".',
    ]
    for title, rows in tables.items():
        lines += _table(title, rows)
    return "\n".join(lines) + "\n"


def _table(title: str, rows: dict[str, dict[str, Any]]) -> list[str]:
    lines = [
        "",
        f"## {title}",
        "",
        "| domain | probes | non-strict | history-dependent (floor) | embedded carried into "
        "them | embedded probe over-binding | without the history-dependent |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, d in rows.items():
        unjudged = f" ({d['unjudged']} unjudged)" if d["unjudged"] else ""
        lines.append(
            f"| {name} | {d['probes']} | {d['non_strict']}{unjudged} | {d['history_dependent']} "
            f"({d['floor']:.3f}) | {d['carried_dependent']} of {d['history_dependent']} "
            f"| {d['over_binding']:.3f} | {d['over_binding_without_dependent']:.3f} |"
        )
    return lines


def _turns(reports: list[Path]) -> list[dict[str, Any]]:
    return [t for path in reports for t in json.loads(path.read_text())["turns"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="output path without suffix")
    args = parser.parse_args()
    judged = read_judgments(JUDGED)
    tables = {
        "In-sample (the shipped selector, bench/results/eval)": floor_by_domain(
            _turns([REPORT]), judged
        )
    }
    held_out = sorted(HELD_OUT.glob("eval-*/report.json"))
    if held_out:  # present after bench/run_selector_cross_domain.sh
        title = "Held out (the selector fit on the other two domains)"
        tables[title] = floor_by_domain(_turns(held_out), judged)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(tables, indent=1) + "\n")
    args.out.with_suffix(".md").write_text(markdown(tables))
    print(markdown(tables))


if __name__ == "__main__":
    main()
