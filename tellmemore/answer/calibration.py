"""What a close match means in this index: its own score distributions, not a global floor.

A cosine of 0.30 is a good match in one corpus (a short employee handbook whose answers
sit at 0.27-0.33) and noise in another (an encyclopedia, where any question finds some
passage at 0.45). So the index is probed with two kinds of question:

- its own: the leaf headings of its chunks and fragments of their sentences ("what the
  documents speak of");
- foreign: everyday questions written from no corpus (`foreign_questions.json`): what
  the index gives to questions it was not built for.

The best dense score of each probe gives two distributions; `normalised(cosine)` places a
turn's cosine between them (0: as close as a foreign question's 90th percentile gets, 1:
as close as the index's own probes' median). The result is stored in the index (`meta`,
as a note keyed on the index generation) and recomputed when the index changed.
"""

from __future__ import annotations

import json
import logging
import random
import threading
from dataclasses import asdict, dataclass
from importlib import resources
from typing import Any

import numpy as np

from tellmemore.conversation.text import content_words
from tellmemore.index.base import Embedder, Index, SearchRequest, Vector
from tellmemore.index.fusion import FLOOR_SPAN
from tellmemore.types import SearchMode

log = logging.getLogger(__name__)

NOTE_KEY = "calibration"
"""The `meta` key the calibration is stored under (with the generation it was made at)."""
VERSION = 2
"""Bump when the probes or the statistics change: stored notes of another version are
recomputed."""
OWN_PROBES = 256
"""Probes drawn from the index's own chunks (at most half leaf headings, the rest sentence
fragments): every heading and chunk of a handbook-sized index, a sample of a larger one.
With 48 probes drawn at random, one chunk more in a 211-chunk handbook moved the own
median from 0.598 to 0.648 (the draw changed): its abstentions followed the draw."""
FRAGMENT_WORDS = 10
MIN_SPAN = 0.05
"""The smallest gap between the foreign and own anchors (a corpus of one subject)."""
TYPED_SHARE = 0.4
"""`Calibration.typed_floor`'s place between noise (0) and the index's own median (1),
chosen on the dev handbooks' outcome replay among 0, 0.2, 0.3, 0.4, 0.5, 0.75 and 1
(session 44, Exp BM; bench/results/binding_gate.md)."""


@dataclass(frozen=True)
class Calibration:
    """Quantiles of the best dense score of own and foreign probes, at one generation."""

    generation: int
    chunks: int
    own_p25: float
    own_p50: float
    foreign_p50: float
    foreign_p90: float
    version: int = VERSION

    def normalised(self, cosine: float) -> float:
        """0 at the foreign 90th percentile, 1 at the own median (may leave [0, 1])."""
        span = max(self.own_p50 - self.foreign_p90, MIN_SPAN)
        return (cosine - self.foreign_p90) / span

    @property
    def typed_floor(self) -> float:
        """A cosine at which a follow-up as typed already finds its passage here: TYPED_SHARE
        of the way from noise (foreign p90) to the index's own median. Above it the binding
        gate withholds a pronoun's antecedent (`conversation.gating`)."""
        return self.foreign_p90 + TYPED_SHARE * max(self.own_p50 - self.foreign_p90, MIN_SPAN)

    @property
    def weak_dense(self) -> float:
        """A dense score no better than this is what unrelated questions get: noise to
        fusion (`index.fusion.convex`'s `dense_floor`)."""
        return self.foreign_p90

    @property
    def fusion_floor(self) -> float | None:
        """`weak_dense` when the index's own probes clear it by `fusion.FLOOR_SPAN` at the
        median, else None (plain min-max). Where everyday questions score as high as the
        index's own (an encyclopedia: foreign p90 0.66 > own median 0.62 on MTRAG clapnq),
        the floor would scale a typical good match down as noise and hand the ranking to
        BM25 (follow-up nDCG@5 -0.020 there, bench/results/fusion_floor.md)."""
        return self.weak_dense if self.weak_dense + FLOOR_SPAN <= self.own_p50 else None

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Calibration | None:
        try:
            data: dict[str, Any] = json.loads(text)
            if data.get("version") != VERSION:
                return None
            return cls(**data)
        except (ValueError, TypeError):
            return None


DEFAULT = Calibration(
    generation=-1, chunks=0, own_p25=0.55, own_p50=0.65, foreign_p50=0.2, foreign_p90=0.3
)
"""Used for an empty index or an engine that cannot search: MiniLM's usual ranges."""


def foreign_questions() -> list[str]:
    text = resources.files("tellmemore.answer").joinpath("foreign_questions.json").read_text()
    return list(json.loads(text)["questions"])


def own_probes(index: Index, *, n: int = OWN_PROBES, seed: int = 0) -> list[str]:
    """Leaf headings and sentence fragments of the index's chunks: all of them when they
    fit in `n`, else a sample. A chunk's fragment is chosen by its own id, so a chunk
    added elsewhere changes no other chunk's probe."""
    rng = random.Random(seed)
    headings = sorted({h.split(" > ")[-1].strip() for h in index.headings()} - {""})
    probes = _some(rng, headings, n // 2)
    get = getattr(index, "get", None)  # engines without look-up by id: headings only
    if get is not None:
        for chunk in get(_some(rng, sorted(index.ids()), n - len(probes))):
            words = chunk.text.split()
            if len(words) > FRAGMENT_WORDS:
                start = random.Random(chunk.id).randrange(0, len(words) - FRAGMENT_WORDS)
                words = words[start : start + FRAGMENT_WORDS]
            if content_words(" ".join(words)):
                probes.append(" ".join(words))
    return probes


def _some(rng: random.Random, items: list[str], n: int) -> list[str]:
    """All of `items` when they are `n` or fewer, else `n` of them at random."""
    return list(items) if len(items) <= n else rng.sample(items, n)


_FOREIGN_VECTORS: dict[tuple[str, int], Vector] = {}
"""The foreign probes' vectors per embedder (name, dimension): embedded once a process."""


def _foreign_vectors(embedder: Embedder, texts: list[str]) -> Vector:
    key = (embedder.name, embedder.dimension)
    if key not in _FOREIGN_VECTORS:
        _FOREIGN_VECTORS[key] = embedder.embed_documents(texts)
    return _FOREIGN_VECTORS[key]


def _best_dense(
    index: Index, embedder: Embedder, texts: list[str], vectors: Vector | None = None
) -> list[float]:
    if not texts:
        return []
    if vectors is None:
        vectors = embedder.embed_documents(texts)
    best: list[float] = []
    for text, vector in zip(texts, vectors, strict=True):
        hits = index.search(SearchRequest(text=text, vector=vector, k=1, mode=SearchMode.DENSE))
        best.append((hits[0].dense or 0.0) if hits else 0.0)
    return best


def compute(index: Index, embedder: Embedder, generation: int = -1) -> Calibration:
    """Probe the index (about a hundred embeddings and dense searches: a few seconds)."""
    chunks = index.count()
    if chunks == 0:
        return DEFAULT
    own = _best_dense(index, embedder, own_probes(index))
    questions = foreign_questions()
    foreign = _best_dense(index, embedder, questions, _foreign_vectors(embedder, questions))
    if not own or not foreign:
        return DEFAULT
    return Calibration(
        generation=generation,
        chunks=chunks,
        own_p25=round(float(np.quantile(own, 0.25)), 4),
        own_p50=round(float(np.quantile(own, 0.5)), 4),
        foreign_p50=round(float(np.quantile(foreign, 0.5)), 4),
        foreign_p90=round(float(np.quantile(foreign, 0.9)), 4),
    )


class Calibrator:
    """The index's calibration, read from its notes or computed (and stored) when the
    index changed. Shared by every turn; thread-safe."""

    def __init__(self, index: Index, embedder: Embedder) -> None:
        self.index = index
        self.embedder = embedder
        self._lock = threading.Lock()
        self._current: Calibration | None = None

    def get(self) -> Calibration:
        with self._lock:
            # engines that keep metadata and count their writes store the calibration
            notes = hasattr(self.index, "get_meta") and hasattr(self.index, "generation")
            generation = int(self.index.generation) if notes else -1  # type: ignore[attr-defined]
            cur = self._current
            if cur is not None and (
                cur.generation == generation if notes else cur.chunks == self.index.count()
            ):
                return cur
            if notes:
                stored = self.index.get_meta(NOTE_KEY)  # type: ignore[attr-defined]
                found = Calibration.from_json(stored) if stored else None
                if found is not None and found.generation == generation:
                    self._current = found
                    return found
            try:
                cur = compute(self.index, self.embedder, generation)
            except Exception:  # a failed probe must not cost the turn its answer
                log.warning("calibration failed; using the default ranges", exc_info=True)
                return DEFAULT
            if notes and cur is not DEFAULT:
                self.index.set_meta(NOTE_KEY, cur.to_json())  # type: ignore[attr-defined]
            self._current = cur
            return cur
