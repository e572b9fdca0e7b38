"""Retrieval measures (through ir_measures) and binding measures (against the human rewrite).

Retrieval: R@k, nDCG@k and RR@k with binary relevance from the gold lists.
Every turn is scored: a turn whose gold is never retrieved, or whose search
returned nothing, scores 0 and stays in the mean.

Binding, on content terms (`terms.content_terms`: no stopwords, Porter stems):
- expected binding E = terms in the rewrite and in the history, absent from the message
  (what the human carried over);
- carried C = terms in the strategy's query and in the history, absent from the message
  (what the strategy carried over);
- binding recall = |C ∩ E| / |E|, pooled over turns;
- over-binding = |C - rewrite| / |C|, pooled: the share of carried terms the human did
  not add. Nothing carried means nothing over-bound (0);
- topic-switch probes are follow-up turns with E empty (the human carried nothing): there
  any carried term is over-binding, and the probe figure is the share of probe turns on
  which the strategy carried anything. Some annotators left a follow-up as typed ("does
  he have an infinity gem"): E is empty there too, yet the turn is no topic switch, so a
  strict figure counts only probes whose rewrite has no referent or ellipsis left.
The two numbers are reported apart, never folded into one accuracy (seed 003).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tellmemore.conversation.referents import find_ellipsis, find_referents
from tellmemore.eval.terms import content_terms

PRIMARY = "nDCG@5"
"""The figure the report leads with; higher is better."""


def measure_names(ks: Sequence[int]) -> tuple[str, ...]:
    """Canonical measure names for cut-offs `ks`: R@k, nDCG@k for each k, then RR@max(k)."""
    cuts = sorted(set(ks))
    if not cuts or cuts[0] < 1:
        raise ValueError(f"cut-offs must be positive integers, got {list(ks)}")
    return (
        *(f"R@{k}" for k in cuts),
        *(f"nDCG@{k}" for k in cuts),
        f"RR@{cuts[-1]}",
    )


def score_turns(
    gold: Mapping[str, Sequence[str]],
    ranked: Mapping[str, Sequence[str]],
    names: Sequence[str],
) -> dict[str, dict[str, float]]:
    """Per-turn values of `names` for every turn in `gold`.

    `ranked` maps a turn id to its passage ids, best first. Turns absent from
    `ranked` or with an empty ranking are still scored: 0 for every measure.
    """
    import ir_measures

    measures = [ir_measures.parse_measure(n) for n in names]
    qrels = {qid: {doc: 1 for doc in docs} for qid, docs in gold.items()}
    run = {
        qid: {doc: float(len(docs) - i) for i, doc in enumerate(docs)}
        for qid, docs in ranked.items()
        if qid in qrels and docs
    }
    out = {qid: dict.fromkeys(names, 0.0) for qid in qrels}
    if run:
        for m in ir_measures.iter_calc(measures, qrels, run):
            out[m.query_id][str(m.measure)] = float(m.value)
    return out


def mean(values: Iterable[float]) -> float | None:
    vals = list(values)
    return float(np.mean(vals)) if vals else None


def percentile(values: Iterable[float], q: float) -> float | None:
    vals = list(values)
    return float(np.percentile(vals, q)) if vals else None


@dataclass(frozen=True)
class Binding:
    """The binding of one query, as term sets (surface words shown, stems compared)."""

    expected: tuple[str, ...]
    """Terms the human carried from the history into the rewrite."""
    carried: tuple[str, ...]
    """Terms the strategy carried from the history into its query."""
    bound: int
    """How many expected terms the query carries."""
    over: int
    """How many carried terms the human did not add."""
    followup: bool
    standalone_rewrite: bool = True
    """The human rewrite has no referent or ellipsis left ("does he have an infinity gem"
    left as typed is not a rewrite that chose to carry nothing)."""

    @property
    def recall(self) -> float | None:
        return self.bound / len(self.expected) if self.expected else None

    @property
    def over_binding(self) -> float | None:
        return self.over / len(self.carried) if self.carried else None

    @property
    def topic_switch(self) -> bool:
        """A probe turn: a follow-up on which the human carried nothing forward."""
        return self.followup and not self.expected

    @property
    def strict_topic_switch(self) -> bool:
        """A probe whose human rewrite stands alone: the human read the message and found
        it needed nothing from the history."""
        return self.topic_switch and self.standalone_rewrite

    def to_dict(self) -> dict[str, Any]:
        return {
            "expected": list(self.expected),
            "carried": list(self.carried),
            "recall": self.recall,
            "over_binding": self.over_binding,
            "topic_switch": self.topic_switch,
            "strict_topic_switch": self.strict_topic_switch,
        }


def binding(
    message: str, history: Sequence[str], rewrite: str, query: str, *, followup: bool = True
) -> Binding:
    """Compare what `query` carries over from `history` with what the human `rewrite` did."""
    hist: dict[str, str] = {}
    for text in history:
        for stem_, word in content_terms(text).items():
            hist.setdefault(stem_, word)
    # a typo fixed on either side ("bevarage" typed, "beverage" carried) is the same term
    msg = _aligned(content_terms(message), hist)
    rew = _aligned(content_terms(rewrite), {**hist, **msg})
    qry = _aligned(content_terms(query), {**hist, **msg})
    expected = {s: w for s, w in rew.items() if s in hist and s not in msg}
    carried = {s: w for s, w in qry.items() if s in hist and s not in msg}
    return Binding(
        expected=tuple(expected.values()),
        carried=tuple(carried.values()),
        bound=sum(1 for s in carried if s in expected),
        over=sum(1 for s in carried if s not in rew),
        followup=followup,
        standalone_rewrite=not find_referents(rewrite) and find_ellipsis(rewrite) is None,
    )


_TYPO_MIN = 5
"""Terms this long or longer, one edit apart and with the same first letter, are one term
misspelt ("climage", "climate"; not "sollutions", "pollution")."""


def _aligned(terms: dict[str, str], known: Mapping[str, str]) -> dict[str, str]:
    """`terms` with each stem that `known` lacks replaced by a known stem one edit away."""
    out: dict[str, str] = {}
    for s, word in terms.items():
        if s not in known and len(s) >= _TYPO_MIN:
            s = next(
                (k for k in known if len(k) >= _TYPO_MIN and k[0] == s[0] and _one_edit(s, k)), s
            )
        out.setdefault(s, word)
    return out


def _one_edit(a: str, b: str) -> bool:
    """One substitution, insertion, deletion or swap of neighbours apart."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (
            len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )  # fmt: skip
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    i = next((i for i in range(len(short)) if short[i] != long_[i]), len(short))
    return short[i:] == long_[i + 1 :]


def pooled_binding(bindings: Iterable[Binding]) -> dict[str, float | None]:
    """Binding recall and over-binding pooled over turns (term counts summed)."""
    expected = carried = bound = over = 0
    for b in bindings:
        expected += len(b.expected)
        carried += len(b.carried)
        bound += b.bound
        over += b.over
    return {
        "recall": bound / expected if expected else None,
        "over_binding": over / carried if carried else 0.0,
    }


def probe_over_binding(
    bindings: Iterable[Binding], *, strict: bool = False
) -> tuple[float | None, int]:
    """On topic-switch probes: (share of probe turns that carried any term, probe count).
    `strict`: only probes whose human rewrite stands alone (no referent left in it)."""
    probes = [b for b in bindings if (b.strict_topic_switch if strict else b.topic_switch)]
    if not probes:
        return None, 0
    return sum(1 for b in probes if b.carried) / len(probes), len(probes)
