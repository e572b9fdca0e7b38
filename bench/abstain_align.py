"""Token alignment as evidence that the documents answer the question (issue 22, Exp BT).

    HF_HUB_OFFLINE=1 .venv/bin/python bench/abstain_align.py --tag base45

For every ANSWERABLE and UNANSWERABLE turn of a tag's default trials (`bench/default_trials.sh`)
the standalone query is read against the passages of its first three hits (the trial keeps
both): for each of the query's MiniLM contextual token vectors the best cosine to a token of
those passages (`sentence_align.TokenVectors`). A question whose words all find a close
token is covered; "gym membership" against insurance pages should leave a gap. Printed per
group (dev, held out; no turn): the area under the ROC curve for telling ANSWERABLE from
UNANSWERABLE turns of the first hit's dense cosine and of the alignment's mean over all
tokens, its mean, minimum and 20th percentile over the content tokens (alphabetic word
pieces of three or more letters, not stopwords).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from handbook_corpora import tag_trials  # noqa: E402
from sentence_align import TokenVectors  # noqa: E402

from tellmemore.answer.words import STOP  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.index.embedders import load_embedder  # noqa: E402

MODE = "floor (default)"
STATS = ("cos", "mean", "content_mean", "content_min", "content_p20")


def turn_stats(row: dict[str, Any], passages: dict[str, str], tv: TokenVectors) -> dict[str, Any]:
    query = row["standalone"] or row["message"]
    texts = [passages.get(h["id"], "") for h in row["hits"][:3]]
    q, *ps = tv([query, *texts])
    best = (q @ np.vstack(ps).T).max(axis=1)
    tokenizer = tv.model.tokenizer
    pieces = tokenizer.convert_ids_to_tokens(
        tokenizer(query, add_special_tokens=False)["input_ids"][: len(best)]
    )
    mask = np.array(
        [p.isalpha() and p.lower() not in STOP and len(p) > 2 for p in pieces]
        + [False] * (len(best) - len(pieces))
    )
    content = best[mask] if mask.any() else best
    return {
        "cos": row["hits"][0]["dense"] or 0.0,
        "mean": float(best.mean()),
        "content_mean": float(content.mean()),
        "content_min": float(content.min()),
        "content_p20": float(np.percentile(content, 20)),
    }


def main() -> None:
    from sklearn.metrics import roc_auc_score

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tag", default="base45")
    parser.add_argument("--exclude", nargs="*", default=["ultralytics", "docker"])
    args = parser.parse_args()
    model = load_embedder(Settings().embedder)._torch_encoder("fp32").model  # type: ignore[attr-defined]
    tv = TokenVectors(model)
    groups: dict[str, list[tuple[bool, dict[str, Any]]]] = {"dev": [], "held out": []}
    for _, group_name, trial in tag_trials(args.tag, args.exclude):
        group = groups[group_name]
        for row in trial["rows"]:
            if (
                row["mode"] == MODE
                and row["hits"]
                and row["label"] in ("ANSWERABLE", "UNANSWERABLE")
            ):
                stats = turn_stats(row, trial["passages"], tv)
                group.append((row["label"] == "ANSWERABLE", stats))
    for group, rows in groups.items():
        y = [a for a, _ in rows]
        aucs = {s: round(float(roc_auc_score(y, [r[s] for _, r in rows])), 3) for s in STATS}
        print(f"{group}: {len(rows)} turns, {y.count(False)} unanswerable, AUC {aucs}")


if __name__ == "__main__":
    main()
