"""Which signal separates answerable from unanswerable follow-ups searched as typed?

    HF_HUB_OFFLINE=1 .venv/bin/python bench/typed_follow_ups.py --tag base [--trials bench/.trials]

Reads the default-mode trials `bench/default_trials.sh` wrote (`trial_<tag>_<corpus>.json`)
and keeps the follow-ups the system searched as typed (standalone query = message, nothing
bound) whose label is ANSWERABLE or UNANSWERABLE. For each it computes, from the trial's own
hits and passages: the best fused dense cosine, the best cosine between the message and a
sentence of the first three passages (MiniLM), the share of the message's content words
(Porter stems) the first three passages hold, and the share of its words that neither the
earlier turns nor those passages hold; and whether the turn abstained (the floor's
decision). Prints each signal's ROC AUC (oriented so that 1.0 = it ranks every unanswerable
turn above every answerable one) and, for the word share, the turns abstained on at
thresholds, by group: the dev handbooks (Clef, TTS, Sourcegraph, Meltano), the four held-out
HR handbooks together (PostHog, GitLab, CivicActions, Fleet: totals only) and the held-out
Zulip help pages (totals only). Results: bench/results/typed_follow_ups.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from tellmemore.answer.scoring import content_stems  # noqa: E402
from tellmemore.answer.units import units  # noqa: E402
from tellmemore.config import Settings  # noqa: E402
from tellmemore.index.embedders import load_embedder  # noqa: E402

GROUPS = {
    "dev": ("clef", "tts", "sourcegraph", "meltano"),
    "held-out HR handbooks": ("posthog", "gitlab", "civicactions", "fleet"),
    "held-out Zulip help": ("zulip",),
    "held-out Read the Docs policies": ("rtd",),
    "held-out Kubernetes governance policies": ("k8s",),
    "held-out Hypha co-op handbook": ("hypha",),
    "held-out Supabase help": ("supabase",),
    "held-out Tuist IT policies": ("tuist",),
    "held-out Nextcloud user manual": ("nextcloud",),
    "held-out FlowFuse handbook": ("flowfuse",),
    "held-out GitHub developer docs": ("github",),
    "held-out Foundation for Public Code handbook": ("publiccode",),
    "held-out DVELP staff handbook": ("dvelp",),
    "held-out Deeson handbook": ("deeson",),
    "held-out CryptPad user guide": ("cryptpad",),
    "held-out Loomio co-op handbook": ("loomio",),
    "held-out Tor support pages": ("tor",),
    "held-out P2PU staff handbook": ("p2pu",),
    "held-out PyPI user help": ("pypi",),
    "held-out Leaf employee handbook": ("leaf",),
    "held-out Let's Encrypt documentation": ("letsencrypt",),
    "held-out Turing REG handbook": ("turing",),
    "held-out Cloudflare billing help": ("cloudflare",),
    "held-out Ultralytics staff handbook": ("ultralytics",),
    "held-out Docker account and billing docs": ("docker",),
    "held-out Catalyst Cooperative handbook": ("catalyst",),
    "held-out Grist help center": ("grist",),
    "held-out Expo EAS help": ("expo",),
    "held-out Variant staff handbook (Norwegian)": ("variant",),
    "held-out TEN7 employee handbook": ("ten7",),
    "held-out Appwrite Cloud help": ("appwrite",),
    "held-out Cuesoft employee handbook": ("cuesoft",),
    "held-out Sentry billing and account docs": ("sentry",),
    "held-out Free Law Project HR handbook": ("freelaw",),
    "held-out Azure billing help": ("azure",),
    "held-out SmartPath employee handbook": ("smartpath",),
    "held-out OpenProject cloud and account help": ("openproject",),
    "held-out Carpentries handbook": ("carpentries",),
    "held-out Metabase Cloud help": ("metabase",),
    "held-out PennLINC lab handbook": ("pennlinc",),
    "held-out Joplin help": ("joplin",),
    "held-out Pantheon billing help": ("pantheon",),
    "held-out OpenJS Foundation policies": ("openjs",),
    "held-out Truss staff guide": ("truss",),
    "held-out Strapi Cloud help": ("strapi",),
    "held-out Jupyter governance": ("jupyter",),
    "held-out SimpleLogin help": ("simplelogin",),
    "held-out Homebrew maintainer handbook": ("homebrew",),
    "held-out Travis CI help": ("travis",),
    "held-out OpenGov Foundation staff manual": ("opengov",),
    "held-out Ably account and billing help": ("ably",),
    "held-out Datum Technology handbook": ("datum",),
    "held-out Temporal Cloud help": ("temporal",),
    "held-out Shorebird handbook": ("shorebird",),
    "held-out Codemagic help": ("codemagic",),
    "held-out Outreachy policies": ("outreachy",),
    "held-out IVPN help": ("ivpn",),
}
THRESHOLDS = (0.15, 0.2, 0.25, 0.3, 0.35)
SIGNALS = ("abstained", "top_dense", "best_sentence_cos", "word_share", "new_words_unheld")
HIGHER_MEANS_ANSWERABLE = {"top_dense", "best_sentence_cos", "word_share"}


def auc(pos: list[float], neg: list[float]) -> float:
    """P(a positive scores above a negative), ties counting half."""
    if not pos or not neg:
        return float("nan")
    p, n = np.array(pos)[:, None], np.array(neg)[None, :]
    return float(((p > n).sum() + 0.5 * (p == n).sum()) / (p.size * n.size))


def signals(trial: dict, embed) -> list[tuple[bool, dict[str, float]]]:  # type: ignore[no-untyped-def, type-arg]
    """(unanswerable?, signals) of each follow-up the trial searched as typed."""
    passages = trial["passages"]
    by_conv: dict[str, list[dict]] = defaultdict(list)  # type: ignore[type-arg]
    for row in trial["rows"]:
        if row["mode"] == "floor (default)":
            by_conv[row["conversation"]].append(row)
    out = []
    for rows in by_conv.values():
        said: list[str] = []
        for r in sorted(rows, key=lambda r: r["turn"]):
            typed = (r["standalone"] or "").strip() == r["message"].strip() and not r["bindings"]
            if (
                r["turn"] > 0
                and typed
                and r["hits"]
                and r["label"] in ("ANSWERABLE", "UNANSWERABLE")
            ):
                top = [passages.get(h["id"], "") for h in r["hits"][:3]]
                sentences = [u.text for t in top for u in units(t, "")] or [""]
                vectors = embed([r["message"], *sentences])
                words = content_stems(r["message"])
                held = set().union(*(content_stems(t) for t in top))
                before = set().union(*(content_stems(t) for t in said)) if said else set()
                out.append(
                    (
                        r["label"] == "UNANSWERABLE",
                        {
                            "top_dense": max(h.get("dense") or 0.0 for h in r["hits"]),
                            "best_sentence_cos": float((vectors[1:] @ vectors[0]).max()),
                            "word_share": len(words & held) / max(1, len(words)),
                            "new_words_unheld": len((words - before) - held) / max(1, len(words)),
                            "abstained": float(r["action"] == "abstain"),
                        },
                    )
                )
            said += [r["message"], r["reply"]]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tag", default="base")
    parser.add_argument("--trials", type=Path, default=ROOT / "bench" / ".trials")
    args = parser.parse_args()
    embed = load_embedder(Settings().embedder).embed_documents
    for group, corpora in GROUPS.items():
        cases = []
        for c in corpora:
            path = args.trials / f"trial_{args.tag}_{c}.json"
            if path.exists():
                cases += signals(json.loads(path.read_text(encoding="utf-8")), embed)
        unans = [s for u, s in cases if u]
        ans = [s for u, s in cases if not u]
        print(f"{group}: {len(unans)} unanswerable, {len(ans)} answerable")
        for name in (
            "abstained",
            "top_dense",
            "best_sentence_cos",
            "word_share",
            "new_words_unheld",
        ):
            sign = -1.0 if name in HIGHER_MEANS_ANSWERABLE else 1.0
            value = auc([sign * s[name] for s in unans], [sign * s[name] for s in ans])
            print(f"  AUC {name}: {value:.3f}")
        floor = (sum(s["abstained"] for s in unans), sum(s["abstained"] for s in ans))
        print(f"  the floor abstained on {floor[0]:.0f} unanswerable, {floor[1]:.0f} answerable")
        for t in THRESHOLDS:
            u = sum(s["word_share"] < t for s in unans)
            a = sum(s["word_share"] < t for s in ans)
            print(f"  word share < {t}: {u} unanswerable, {a} answerable")


if __name__ == "__main__":
    main()
