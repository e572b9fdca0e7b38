"""After retrieval, before answering: answer, ask back, or abstain.

Two small fitted scorers (`scorer.Scorer`, shipped as `abstain_model.json` and
`clarify_model.json`, fitted by `scripts/fit_behaviour.py` on labelled MTRAG-UN turns):

1. ask back (`clarify`) when the message describes a kind of thing nothing in the
   conversation picks out and the top passages are about several such subjects
   (`clarify.ask_back`, a rule), or when the fitted scorer says the passages' subjects
   are unpicked; never on a reply to a clarifying question or a corrected search;
2. abstain (`answerability`) when the evidence does not answer the question: too far on
   this index's own scale (`calibration`), its rarest words or its kind of answer absent;
   or (a rule, `retrieval.min_value_share`) when it asks for a value and no sentence
   that states one speaks of what it asks (`stated`).

Nothing retrieved always abstains. The scorers' thresholds were chosen so that a wrong
question or a wrong abstention stays rare on the domain they were fitted on.
"""

from __future__ import annotations

import enum
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from tellmemore.answer import answerability, clarify, stated
from tellmemore.answer.abstain import evidence_hits
from tellmemore.answer.calibration import Calibration
from tellmemore.answer.scorer import Scorer, load_scorer
from tellmemore.config import RetrievalSettings
from tellmemore.errors import ConfigError
from tellmemore.index.base import Vector
from tellmemore.types import Hit, Resolution, TermStats, Turn

log = logging.getLogger(__name__)

ABSTAIN_MODEL = "abstain_model"
CLARIFY_MODEL = "clarify_model"
NAMED_MODELS = {"gold_removal": "abstain_gold_model"}
"""The abstain models shipped for `retrieval.abstain_model`, by the name a user sets."""


class Action(enum.StrEnum):
    ANSWER = "answer"
    ABSTAIN = "abstain"
    CLARIFY = "clarify"


@dataclass(frozen=True)
class Verdict:
    action: Action
    text: str = ""
    """The abstention or the clarifying question (empty when answering)."""
    options: tuple[str, ...] = ()
    features: Mapping[str, float] = field(default_factory=dict)
    """Every feature read, prefixed `abstain.` / `clarify.` (kept in the trace)."""
    by_floor: bool = False
    """An abstention by the floor mode's cosine floor and lexical coverage alone: the one
    `retrieval.learned_answer` may overrule (its gate was fitted on those); an opt-in rule's
    abstention ("nothing about phone stipend") stands."""


@lru_cache(maxsize=4)
def models() -> tuple[Scorer, Scorer]:
    return load_scorer(ABSTAIN_MODEL), load_scorer(CLARIFY_MODEL)


@lru_cache(maxsize=8)
def named_model(name: str) -> Scorer:
    """`retrieval.abstain_model`: a shipped model (`NAMED_MODELS`) or a JSON model file."""
    if name in NAMED_MODELS:
        return load_scorer(NAMED_MODELS[name])
    path = Path(name).expanduser()
    if not path.is_file():
        raise ConfigError(
            f"retrieval.abstain_model {name!r} is neither a shipped model "
            f"({', '.join(NAMED_MODELS)}) nor a model file"
        )
    return Scorer.from_json(json.loads(path.read_text(encoding="utf-8")))


@dataclass(frozen=True)
class TurnEvidence:
    """What a turn knows after retrieval."""

    message: str
    history: Sequence[Turn]
    resolution: Resolution
    hits: Sequence[Hit]
    per_query: Mapping[str, Sequence[Hit]]
    asked: Sequence[str]
    """The phrasings that say what the user asks (`Phrasings.evidence`)."""
    term_stats: Callable[[list[str]], TermStats] | None
    calibration: Calibration
    may_clarify: bool = True
    read_text: bool = False
    """`retrieval.ask_from_text`: ask back on a bare noun the passages' text names several
    things of (`clarify.ask_qualified`)."""
    embed: Callable[[list[str]], Vector] | None = None
    """Embeds texts (the retriever's embedder) for the sentence-level match; None: 0."""
    min_value_share: float = 0.0
    """`retrieval.min_value_share`: a question for a value abstains when no sentence that
    states one holds this share of its focus (`answer.stated`); 0.0: not read."""
    value_min_near: float = RetrievalSettings().value_min_near
    """`retrieval.value_min_near`: a word this close to a focus word holds it (`stated`)."""


def _abstain_features(
    ev: TurnEvidence, own: Sequence[Hit], value_enough: float = 1.0
) -> dict[str, float]:
    """The abstain features of the turn over its own evidence `own`."""
    return answerability.features(
        ev.asked,
        own,
        ev.per_query,
        ev.term_stats,
        ev.calibration,
        ev.message,
        ev.history,
        ev.embed,
        value_min_near=ev.value_min_near,
        value_enough=value_enough,
    )


def read_features(ev: TurnEvidence) -> tuple[dict[str, float], dict[str, float], list[Hit]]:
    own = evidence_hits(ev.hits, ev.per_query, ev.asked)
    a = _abstain_features(ev, own, ev.min_value_share)
    c = clarify.features(ev.message, ev.history, ev.resolution, ev.hits, a["cos"], ev.term_stats)
    return a, c, own


def scored_abstain(ev: TurnEvidence, model: Scorer, threshold: float | None = None) -> bool:
    """Whether `model` abstains on the turn's own evidence (the abstain features only), at
    `threshold` (None: the model's own; `answer.own_threshold`: this index's)."""
    own = evidence_hits(ev.hits, ev.per_query, ev.asked)
    a = _abstain_features(ev, own)
    return model.probability(a) >= (model.threshold if threshold is None else threshold)


def judge(
    ev: TurnEvidence, *, abstain_model: Scorer | None = None, clarify_model: Scorer | None = None
) -> Verdict:
    if not ev.hits:
        return Verdict(Action.ABSTAIN, answerability.abstention(ev.asked, []))
    if abstain_model is None or clarify_model is None:
        shipped = models()
        abstain_model = abstain_model or shipped[0]
        clarify_model = clarify_model or shipped[1]
    a, c, own = read_features(ev)
    feats = {
        **{f"abstain.{k}": v for k, v in a.items()},
        **{f"clarify.{k}": v for k, v in c.items()},
    }
    unstated = a["value_share"] < ev.min_value_share
    abstains = abstain_model.decide(a) or unstated
    if ev.may_clarify and not abstains:  # too far to answer: too far to offer its subjects
        asked = clarify.ask_back(
            ev.message, ev.history, ev.resolution, ev.hits, read_text=ev.read_text
        )
        if asked is not None:
            return Verdict(Action.CLARIFY, asked[0], asked[1], feats)
    if ev.may_clarify and not clarify.just_asked(ev.history) and clarify_model.decide(c):
        choices = clarify.options(ev.message, ev.history, ev.hits)
        if len(choices) >= 2:
            return Verdict(Action.CLARIFY, clarify.question(choices), tuple(choices), feats)
    if abstains:
        lacking = None
        if unstated and not abstain_model.decide(a):
            question = next((q for q in ev.asked if q.strip()), "")
            lacking = stated.lacking(stated.Stated(stated.asked_value(question), 0.0))
        text = answerability.abstention(
            ev.asked, own, answerability.stats_for(ev.asked, ev.term_stats), lacking
        )
        return Verdict(Action.ABSTAIN, text, (), feats)
    return Verdict(Action.ANSWER, features=feats)
