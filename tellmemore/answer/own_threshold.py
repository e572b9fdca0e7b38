"""The abstain scorer's threshold on this index's own scale: a quantile of its own probes.

A scorer fitted on one collection (`retrieval.abstain_model`) ranks unanswerable turns
well elsewhere, but its threshold does not carry: the same probability is a usual
answerable turn in one index and a rare one in another (bench/results/gold_removal.md:
6-15% false abstentions on MTRAG-UN at a threshold set on MTRAG). So the index is asked
its own questions (`calibration.own_probes`: leaf headings and sentence fragments,
answerable by construction), each run as a turn runs (retrieved, the abstain features
read over its hits), and the scorer abstains only above the `q`-th quantile of these
probes' probabilities (`retrieval.abstain_quantile`).

The probes' features do not depend on the model, so they are read once per index
generation and stored in the index (`meta`), like the calibration; the threshold of any
model and quantile is then a sort.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from tellmemore.answer import answerability
from tellmemore.answer.abstain import evidence_hits
from tellmemore.answer.calibration import Calibration, Calibrator, own_probes
from tellmemore.answer.scorer import Scorer
from tellmemore.index.base import Embedder, Index, Vector
from tellmemore.types import Hit

log = logging.getLogger(__name__)

NOTE_KEY = "abstain_probes"
VERSION = 4
"""Bump when the probes or the features read change: stored notes are recomputed (4: the
rows no longer carry the removed answer detector's feature)."""
PROBES = 128
"""Own probes read per index (half headings, half fragments): each is a search and a
sentence embedding of its top passages, about 0.1-1 s."""


WORD = re.compile(r"^\(?[^\W\d_]+(?:['’-][^\W\d_]+)*[.,;:!?)]*$")


def reads_as_words(probe: str) -> bool:
    """Whether at least half of the probe's tokens are words: a heading that is an
    identifier ("ibmcld_09336-1654-3741", the titles of one MTRAG index) or a line of
    code is no question a user asks, and such probes read as unanswerable."""
    tokens = probe.split()
    return bool(tokens) and 2 * sum(bool(WORD.match(t)) for t in tokens) >= len(tokens)


class Searches(Protocol):
    """What the probes need of `retrieval.Retriever` (kept structural: no import cycle)."""

    index: Index
    embedder: Embedder
    calibrator: Calibrator

    def search(self, queries: Sequence[str]) -> Any: ...


def probe_features(
    search: Callable[[str], tuple[Sequence[Hit], Mapping[str, Sequence[Hit]]]],
    probes: Sequence[str],
    term_stats: Any,
    calibration: Calibration,
    embed: Callable[[list[str]], Vector] | None,
) -> list[dict[str, float]]:
    """The abstain features of each probe asked as a first turn (`search` gives its fused
    hits and each phrasing's list)."""
    rows: list[dict[str, float]] = []
    for probe in probes:
        hits, per_query = search(probe)
        if not hits:
            continue
        own = evidence_hits(hits, per_query, [probe])
        feats = answerability.features(
            [probe], own, per_query, term_stats, calibration, probe, [], embed
        )
        rows.append({k: float(v) for k, v in feats.items()})
    return rows


def quantile_threshold(model: Scorer, rows: Sequence[Mapping[str, float]], q: float) -> float:
    """The `q` quantile of the probes' abstain probabilities (the model's own threshold
    when there are no probes); abstaining needs at least it."""
    if not rows:
        return model.threshold
    probs = [model.probability(r) for r in rows]
    return float(np.quantile(probs, min(max(q, 0.0), 1.0)))


class OwnProbes:
    """The probes' features of one retriever's index, read from its notes or computed (and
    stored) when the index changed. Shared by every turn; thread-safe."""

    def __init__(self, retriever: Searches, embed: Callable[[list[str]], Vector] | None) -> None:
        self.retriever = retriever
        self.embed = embed
        self._lock = threading.Lock()
        self._key: int | None = None
        self._rows: list[dict[str, float]] = []

    def _generation(self) -> int:
        index = self.retriever.index
        if hasattr(index, "generation"):
            return int(index.generation)
        return -index.count() - 1  # engines without a write counter: keyed on their size

    def rows(self) -> list[dict[str, float]]:
        with self._lock:
            generation = self._generation()
            if self._key == generation:
                return self._rows
            index = self.retriever.index
            notes = hasattr(index, "get_meta") and generation >= 0
            if notes:
                stored = index.get_meta(NOTE_KEY)  # type: ignore[attr-defined]
                data = json.loads(stored) if stored else {}
                if data.get("version") == VERSION and data.get("generation") == generation:
                    self._key, self._rows = generation, list(data["rows"])
                    return self._rows
            try:
                rows = self._compute()
            except Exception:  # a failed probe must not cost the turn its answer
                log.warning("own probes failed; the model's own threshold is used", exc_info=True)
                rows = []
            if notes and rows:
                note = {"version": VERSION, "generation": generation, "rows": rows}
                index.set_meta(NOTE_KEY, json.dumps(note))  # type: ignore[attr-defined]
            self._key, self._rows = generation, rows
            return rows

    def _compute(self) -> list[dict[str, float]]:
        index = self.retriever.index
        if index.count() == 0:
            return []

        def search(probe: str) -> tuple[Sequence[Hit], Mapping[str, Sequence[Hit]]]:
            result = self.retriever.search([probe])
            return result.hits, result.per_query

        probes = [p for p in own_probes(index, n=PROBES) if reads_as_words(p)]
        calibration = self.retriever.calibrator.get()
        return probe_features(search, probes, index.term_stats, calibration, self.embed)

    def threshold(self, model: Scorer, q: float) -> float:
        return quantile_threshold(model, self.rows(), q)


_BY_RETRIEVER: weakref.WeakKeyDictionary[Any, OwnProbes] = weakref.WeakKeyDictionary()
_BY_LOCK = threading.Lock()


def for_retriever(retriever: Searches) -> OwnProbes:
    """The one `OwnProbes` of a retriever (the turn runner's and the ingest's warm-up share
    it), kept beside it rather than in it: the retrieval code, on which cached rankings
    depend (`eval.runner.RETRIEVAL_MODULES`), is unchanged."""
    with _BY_LOCK:
        found = _BY_RETRIEVER.get(retriever)
        if found is None:
            found = OwnProbes(retriever, retriever.embedder.embed_documents)
            _BY_RETRIEVER[retriever] = found
        return found
