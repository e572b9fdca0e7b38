"""The abstain features of every handbook trial turn, beside its label (issue 22).

    .venv/bin/python bench/handbook_abstain_features.py --corpus clef --out DIR

Runs the default-mode handbook trial (`bench/handbook_trial.py`, one stored session per
conversation) and, at every turn that reaches the answer / ask back / abstain decision
(`TurnRunner._judge`), also reads the features the fitted abstain scorer would read
(`answer.judge.read_features`) and what the default decision's parts said: the missing
focus and unstated phrase rules (`lost`), the cosine floor, the ask back. The trial's own
answers are unchanged. `bench/handbook_abstain_fit.py` fits a scorer on some corpora and
replays the decision on the others.
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
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from handbook_corpora import corpus_for  # noqa: E402
from handbook_trial import run  # noqa: E402

from tellmemore.analysis import mood  # noqa: E402
from tellmemore.answer import abstain, clarify  # noqa: E402
from tellmemore.answer.judge import read_features  # noqa: E402
from tellmemore.turn import TurnRunner, scoped_term_stats  # noqa: E402

RECORDS: list[dict[str, Any]] = []


def _recording_judge(original):  # type: ignore[no-untyped-def]
    def judge(self, message, history, resolution, result, asked, req):  # type: ignore[no-untyped-def]
        verdict = original(self, message, history, resolution, result, asked, req)
        settings = self.settings.retrieval
        lost = (
            self._missing_focus(result, asked, req) or self._unstated_phrase(result, asked)
            if mood.asks(message)
            else None
        )
        own = abstain.evidence_hits(result.hits, result.per_query, asked)
        floor = abstain.should_abstain(
            own,
            min_dense_score=settings.min_dense_score,
            coverage=lambda: abstain.lexical_coverage(
                asked, result.per_query, scoped_term_stats(self.retriever.index, req.tenant)
            ),
            min_coverage=settings.min_lexical_coverage,
        )
        asks_back = (
            req.forced_query is None
            and settings.ask_back
            and clarify.ask_back(
                message, history, resolution, result.hits, read_text=settings.ask_from_text
            )
            is not None
        )
        features, _, _ = read_features(
            self._evidence(message, history, resolution, result, asked, req)
        )
        RECORDS.append(
            {
                "message": message,
                "verdict": str(verdict.action),
                "lost": lost is not None,
                "floor": bool(floor),
                "asks_back": bool(asks_back),
                "features": features,
            }
        )
        return verdict

    return judge


def collect(corpus: str) -> dict[str, Any]:
    """The trial of `corpus` with each judged turn's record joined to its row."""
    RECORDS.clear()
    payload = run(["floor (default)"], corpus_for(corpus))
    records = iter(RECORDS)
    pending = next(records, None)
    rows = []
    for row in payload["rows"]:
        record = None
        if pending is not None and pending["message"] == row["message"]:
            record, pending = pending, next(records, None)
        rows.append(
            {
                k: row.get(k)
                for k in ("conversation", "turn", "label", "action", "category", "check")
            }
            | {"record": record}
        )
    if pending is not None:
        raise SystemExit(f"{corpus}: a judged turn matched no trial row ({pending['message']!r})")
    return {"corpus": corpus, "commit": payload["commit"], "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", action="append", required=True)
    parser.add_argument("--out", type=Path, required=True, help="a folder: <corpus>.json")
    args = parser.parse_args()
    TurnRunner._judge = _recording_judge(TurnRunner._judge)  # type: ignore[method-assign]
    args.out.mkdir(parents=True, exist_ok=True)
    for corpus in args.corpus:
        data = collect(corpus)
        (args.out / f"{corpus}.json").write_text(json.dumps(data) + "\n")
        judged = sum(r["record"] is not None for r in data["rows"])
        print(f"{corpus}: {len(data['rows'])} turns, {judged} judged", flush=True)


if __name__ == "__main__":
    main()
