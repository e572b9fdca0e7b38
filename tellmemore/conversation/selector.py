"""Which phrases of the history a follow-up should carry: a small learned selector.

In the spirit of QuReTeC (Voskarides et al. 2020), but with cheap features instead
of a transformer: every noun-phrase-like run of the recent history is scored by a
logistic model over its salience (IDF from the index), where it was said (the
user's last or first turn, the last answer's opening), how recent and repeated it
is, and how much subject the message brings itself (content words, distinctive
words, names, referents, whether the gate wants a resolution). The model is
trained on the human rewrites of the dev domains (`scripts/train_selector.py`)
and ships as a small JSON file next to this module; its threshold was chosen
there, fit on two domains and checked on the third.

What it returns are phrases as written in the conversation, so the binding shown
to the user stays readable ("context: hurricane shelters"), never a bag of stems.
"""

from __future__ import annotations

import json
import math
import operator
import os
from collections.abc import Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from tellmemore.analysis.sentences import still_split
from tellmemore.conversation.analysis import Analysis, analyze
from tellmemore.conversation.binding import Phrase, Salience, exchange_ages, word_vocabulary
from tellmemore.conversation.gate import GateResult, names_in
from tellmemore.types import Turn

FEATURES: tuple[str, ...] = (
    "idf_max",
    "idf_mean",
    "words",
    "new_share",
    "in_last_user",
    "in_first_user",
    "user_share",
    "in_last_answer",
    "in_answer_opening",
    "answer_share",
    "recency",
    "mentions",
    "capitalized",
    "persistence",
    "msg_words",
    "msg_distinctive",
    "msg_max_idf",
    "msg_referent",
    "msg_ellipsis",
    "msg_gate",
    "msg_names",
    "depth",
    "msg_in_last_user",
    "msg_in_history",
    "referent_x_last_user",
    "gate_x_idf",
    "distinctive_x_recency",
)
"""Feature names, in the order of the weight vector."""

_USER_TURNS = 4
"""The user's latest turns read (and the first one, the conversation's subject)."""
_ASSISTANT_TURNS = 2
"""Answers read for candidates: the last two (older ones rarely hold what is carried)."""
_OPENING_SENTENCES = 3
_ANSWER_SENTENCES = 5
"""Sentences of each answer read for candidates."""


@dataclass(frozen=True)
class Scored:
    """A candidate phrase, its features and the model's probability that a human carries it."""

    phrase: Phrase
    features: tuple[float, ...]
    probability: float = 0.0


@dataclass
class _Mentions:
    """Where one phrase (by its stems) occurs in the history read."""

    phrase: Phrase
    turns: set[int] = field(default_factory=set)
    count: int = 0
    opening: bool = False
    """Said in the opening sentences of the last answer."""


@dataclass(frozen=True)
class SelectorModel:
    """Standardised logistic regression: p = sigmoid(bias + w . (x - mean) / scale)."""

    weights: tuple[float, ...]
    bias: float
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    threshold: float
    max_phrases: int = 2
    names: tuple[str, ...] = FEATURES
    """The features the weights belong to (the term model has its own: conversation/terms.py)."""

    def probability(self, x: Sequence[float]) -> float:
        bias, coef = self._folded
        if len(x) != len(coef):
            raise ValueError(f"{len(x)} features for a model of {len(coef)}")
        z = bias + sum(map(operator.mul, coef, x))
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    @cached_property
    def _folded(self) -> tuple[float, tuple[float, ...]]:
        """The standardisation folded into the weights, once: z = bias' + coef . x."""
        coef = tuple(w / s for w, s in zip(self.weights, self.scale, strict=True))
        return self.bias - sum(c * m for c, m in zip(coef, self.mean, strict=True)), coef

    def to_json(self, **extra: Any) -> dict[str, Any]:
        return {
            "features": list(self.names),
            "weights": [round(w, 6) for w in self.weights],
            "bias": round(self.bias, 6),
            "mean": [round(m, 6) for m in self.mean],
            "scale": [round(s, 6) for s in self.scale],
            "threshold": self.threshold,
            "max_phrases": self.max_phrases,
            **extra,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], names: tuple[str, ...] = FEATURES) -> SelectorModel:
        if list(data.get("features", [])) != list(names):
            raise ValueError("selector weights were trained on other features; retrain them")
        return cls(
            weights=tuple(float(w) for w in data["weights"]),
            bias=float(data["bias"]),
            mean=tuple(float(m) for m in data["mean"]),
            scale=tuple(float(s) for s in data["scale"]),
            threshold=float(data["threshold"]),
            max_phrases=int(data.get("max_phrases", 2)),
            names=names,
        )


@lru_cache(maxsize=1)
def default_model() -> SelectorModel | None:
    """The shipped model (`selector.json` beside this module), or the file named by
    TELLMEMORE_SELECTOR_WEIGHTS (a model retrained on your own conversations, or a
    leave-one-domain-out model for the cross-domain check); None when absent."""
    override = os.environ.get("TELLMEMORE_SELECTOR_WEIGHTS")
    try:
        if override:
            text = Path(override).read_text(encoding="utf-8")
        else:
            text = resources.files("tellmemore.conversation").joinpath("selector.json").read_text()
    except (FileNotFoundError, OSError):
        if override:
            raise
        return None
    return SelectorModel.from_json(json.loads(text))


def candidates(
    message: str,
    history: Sequence[Turn],
    salience: Salience,
    verdict: GateResult,
) -> list[Scored]:
    """Every phrase of the user's first and latest turns and of the last answers that the
    message lacks, with its features (unscored)."""
    return list(each_candidate(message, history, salience, verdict))


def each_candidate(
    message: str,
    history: Sequence[Turn],
    salience: Salience,
    verdict: GateResult,
) -> Iterator[Scored]:
    """`candidates` one at a time, in the same order: a caller that needs only one above
    a bar (the carry veto) stops there. The history is read and its words looked up
    before the first; each candidate's features are built when it is asked for (they
    look up nothing more)."""
    users = [i for i, t in enumerate(history) if t.role == "user"]
    if not users:
        return
    users = sorted({users[0], *users[-_USER_TURNS:]})  # a long session costs no more
    answers = [i for i, t in enumerate(history) if t.role == "assistant"][-_ASSISTANT_TURNS:]
    last_user, first_user = users[-1], users[0]
    last_answer = answers[-1] if answers else -1
    read = {i: analyze(history[i].content) for i in (*users, *answers)}  # users first
    # an answer's subject is in its opening; the rest costs look-ups
    said = {
        i: a.phrases if history[i].role == "user" else a.opening(_ANSWER_SENTENCES)
        for i, a in read.items()
    }
    salience.prime_words(
        [analyze(message).vocabulary]
        + [a.vocabulary if history[i].role == "user" else _opening_vocabulary(a)
           for i, a in read.items()]
    )  # fmt: skip

    own = analyze(message).stems
    turn_stems = {
        i: a.stems if history[i].role == "user" else _opening_stems(a) for i, a in read.items()
    }
    all_turns = max(len(read), 1)
    ages = exchange_ages(history)

    msg = _message_features(message, history, salience, verdict, own, turn_stems, last_user)
    pool: dict[tuple[str, ...], _Mentions] = {}
    for i, found in said.items():
        opening: set[tuple[str, ...]] = set()
        if i == last_answer:
            opening = {p.stems for p in _opening_phrases(read[i])}
        for p in found:
            if own.issuperset(p.stems):
                continue
            entry = pool.setdefault(p.stems, _Mentions(p))
            if history[i].role == "user" and entry.phrase.text.islower() and not p.text.islower():
                entry.phrase = p  # the user's own casing of a name reads best
            entry.turns.add(i)
            entry.count += 1
            entry.opening |= p.stems in opening
    salience.prime_words([word_vocabulary(s for key in pool for s in key)])  # one look-up
    # one pass over the pool, the feature tuple built in FEATURES order (_FEATURE_ORDER)
    weight = salience.weight
    in_turns: dict[str, int] = {}
    for st in turn_stems.values():
        for s in st:
            in_turns[s] = in_turns.get(s, 0) + 1
    is_user = [t.role == "user" for t in history]
    n_users, n_answers = len(users), max(len(answers), 1)
    fixed = tuple(msg[f] for f in _MESSAGE_FEATURES)
    referent, gated, distinctive = msg["msg_referent"], msg["msg_gate"], msg["msg_distinctive"]
    for stems_key, e in pool.items():
        turns = e.turns
        n = len(stems_key)
        ws = [weight(s) for s in stems_key]
        top = max(ws)
        n_user = sum(1 for i in turns if is_user[i])
        recency = max(0.6 ** ages[i] for i in turns)
        in_last_user = float(last_user in turns)
        x = (
            top,  # idf_max
            sum(ws) / n,  # idf_mean
            min(n, 5) / 5,  # words
            sum(1 for s in stems_key if s not in own) / n,  # new_share
            in_last_user,
            float(first_user in turns),  # in_first_user
            n_user / n_users,  # user_share
            float(last_answer in turns),  # in_last_answer
            float(e.opening),  # in_answer_opening
            (len(turns) - n_user) / n_answers,  # answer_share
            recency,
            math.log1p(e.count),  # mentions
            float(e.phrase.capitalized),
            sum(in_turns.get(s, 0) for s in stems_key) / (n * all_turns),  # persistence
            *fixed,
            referent * in_last_user,  # referent_x_last_user
            gated * top,  # gate_x_idf
            distinctive * recency,  # distinctive_x_recency
        )
        yield Scored(e.phrase, x)


_MESSAGE_FEATURES = FEATURES[14:24]
"""The features of the message itself, the same for every candidate."""


def prepare_answer(a: Analysis) -> None:
    """Compute what `candidates` reads of an answer (kept by its analysis): done when the
    answer is stored (conversation/prepare.py), so the next turn finds it ready."""
    a.opening(_ANSWER_SENTENCES)
    _opening_vocabulary(a)
    _opening_phrases(a)


def _opening_phrases(a: Analysis) -> list[Phrase]:
    """The phrases of the last answer's opening as the model was trained to see them: the
    first _OPENING_SENTENCES sentences of its first _ANSWER_SENTENCES joined (a line
    without a full stop runs into the next one there)."""
    sents = a.sentences[:_ANSWER_SENTENCES]
    meets = range(min(_OPENING_SENTENCES, len(sents) - 1))
    if all(still_split(sents[k], sents[k + 1]) for k in meets):
        return a.opening(_OPENING_SENTENCES)  # joined, they split as before: the same parse
    return analyze(" ".join(sents)).opening(_OPENING_SENTENCES)


def _opening_vocabulary(a: Analysis) -> frozenset[str]:
    """The content words of an answer's opening sentences (what the selector reads)."""
    return a.opening_words(_ANSWER_SENTENCES)[0]


def _opening_stems(a: Analysis) -> frozenset[str]:
    return a.opening_words(_ANSWER_SENTENCES)[1]


def select(scored: Sequence[Scored], model: SelectorModel) -> list[Scored]:
    """The phrases to carry, most probable first: above the threshold, no two sharing a
    word, at most `model.max_phrases`."""
    ranked = sorted(
        (Scored(s.phrase, s.features, model.probability(s.features)) for s in scored),
        key=lambda s: -s.probability,
    )
    picked: list[Scored] = []
    seen: set[str] = set()
    for s in ranked:
        if s.probability < model.threshold or len(picked) >= model.max_phrases:
            break
        if seen & set(s.phrase.stems):
            continue
        picked.append(s)
        seen |= set(s.phrase.stems)
    return picked


def _message_features(
    message: str,
    history: Sequence[Turn],
    salience: Salience,
    verdict: GateResult,
    own: Set[str],
    turn_stems: Mapping[int, Set[str]],
    last_user: int,
) -> dict[str, float]:
    a = analyze(message)
    words = a.content_words
    weights = [salience.weight(w) for w in words]
    distinctive = [w for w in weights if w >= 0.5]
    in_history = set().union(*turn_stems.values()) if turn_stems else set()
    return {
        "msg_words": min(len(words), 10) / 10,
        "msg_distinctive": min(len(distinctive), 5) / 5,
        "msg_max_idf": max(weights, default=0.0),
        "msg_referent": float(bool(a.referents)),
        "msg_ellipsis": float(a.ellipsis is not None),
        "msg_gate": float(verdict.needs_resolution),
        "msg_names": float(bool(names_in(message))),
        "depth": min(sum(1 for t in history if t.role == "user"), 10) / 10,
        "msg_in_last_user": len(own & turn_stems.get(last_user, set())) / max(len(own), 1),
        "msg_in_history": len(own & in_history) / max(len(own), 1),
    }
