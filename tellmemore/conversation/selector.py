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
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from tellmemore.conversation.binding import Phrase, Salience, exchange_ages, phrases, sentences
from tellmemore.conversation.gate import GateResult, names_in
from tellmemore.conversation.referents import find_ellipsis, find_referents
from tellmemore.conversation.text import content_words, stem
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

    def probability(self, x: Sequence[float]) -> float:
        z = self.bias
        for w, v, m, s in zip(self.weights, x, self.mean, self.scale, strict=True):
            z += w * (v - m) / s
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def to_json(self, **extra: Any) -> dict[str, Any]:
        return {
            "features": list(FEATURES),
            "weights": [round(w, 6) for w in self.weights],
            "bias": round(self.bias, 6),
            "mean": [round(m, 6) for m in self.mean],
            "scale": [round(s, 6) for s in self.scale],
            "threshold": self.threshold,
            "max_phrases": self.max_phrases,
            **extra,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SelectorModel:
        if list(data.get("features", [])) != list(FEATURES):
            raise ValueError("selector weights were trained on other features; retrain them")
        return cls(
            weights=tuple(float(w) for w in data["weights"]),
            bias=float(data["bias"]),
            mean=tuple(float(m) for m in data["mean"]),
            scale=tuple(float(s) for s in data["scale"]),
            threshold=float(data["threshold"]),
            max_phrases=int(data.get("max_phrases", 2)),
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
    users = [i for i, t in enumerate(history) if t.role == "user"]
    if not users:
        return []
    users = sorted({users[0], *users[-_USER_TURNS:]})  # a long session costs no more
    answers = [i for i, t in enumerate(history) if t.role == "assistant"][-_ASSISTANT_TURNS:]
    last_user, first_user = users[-1], users[0]
    last_answer = answers[-1] if answers else -1
    texts = {i: history[i].content for i in users}
    for i in answers:  # an answer's subject is in its opening; the rest costs look-ups
        texts[i] = " ".join(sentences(history[i].content)[:_ANSWER_SENTENCES])
    salience.prime([message, *texts.values()])

    own = {stem(w) for w in content_words(message)}
    turn_stems = {i: {stem(w) for w in content_words(t)} for i, t in texts.items()}
    all_turns = max(len(texts), 1)
    ages = exchange_ages(history)

    msg = _message_features(message, history, salience, verdict, own, turn_stems, last_user)
    pool: dict[tuple[str, ...], _Mentions] = {}
    for i, text in texts.items():
        opening: set[tuple[str, ...]] = set()
        if i == last_answer:
            opening = {p.stems for p in phrases(" ".join(sentences(text)[:_OPENING_SENTENCES]))}
        for p in phrases(text):
            if all(s in own for s in p.stems):
                continue
            entry = pool.setdefault(p.stems, _Mentions(p))
            if history[i].role == "user" and entry.phrase.text.islower() and not p.text.islower():
                entry.phrase = p  # the user's own casing of a name reads best
            entry.turns.add(i)
            entry.count += 1
            entry.opening |= p.stems in opening
    salience.prime([s for stems_key in pool for s in stems_key])  # one look-up, not one each
    out = []
    for stems_key, e in pool.items():
        p = e.phrase
        turns = e.turns
        ws = [salience.weight(s) for s in stems_key]
        new = [s for s in stems_key if s not in own]
        user_turns = [i for i in turns if history[i].role == "user"]
        answer_turns = [i for i in turns if history[i].role == "assistant"]
        persistence = sum(sum(1 for st in turn_stems.values() if s in st) for s in stems_key) / (
            len(stems_key) * all_turns
        )
        recency = max(0.6 ** ages[i] for i in turns)
        in_last_user = float(last_user in turns)
        feats = {
            "idf_max": max(ws),
            "idf_mean": sum(ws) / len(ws),
            "words": min(len(stems_key), 5) / 5,
            "new_share": len(new) / len(stems_key),
            "in_last_user": in_last_user,
            "in_first_user": float(first_user in turns),
            "user_share": len(user_turns) / len(users),
            "in_last_answer": float(last_answer in turns),
            "in_answer_opening": float(e.opening),
            "answer_share": len(answer_turns) / max(len(answers), 1),
            "recency": recency,
            "mentions": math.log1p(e.count),
            "capitalized": float(p.capitalized),
            "persistence": persistence,
            **msg,
            "referent_x_last_user": msg["msg_referent"] * in_last_user,
            "gate_x_idf": msg["msg_gate"] * max(ws),
            "distinctive_x_recency": msg["msg_distinctive"] * recency,
        }
        out.append(Scored(p, tuple(feats[f] for f in FEATURES)))
    return out


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
    own: set[str],
    turn_stems: dict[int, set[str]],
    last_user: int,
) -> dict[str, float]:
    words = content_words(message)
    weights = [salience.weight(w) for w in words]
    distinctive = [w for w in weights if w >= 0.5]
    in_history = set().union(*turn_stems.values()) if turn_stems else set()
    return {
        "msg_words": min(len(words), 10) / 10,
        "msg_distinctive": min(len(distinctive), 5) / 5,
        "msg_max_idf": max(weights, default=0.0),
        "msg_referent": float(bool(find_referents(message))),
        "msg_ellipsis": float(find_ellipsis(message) is not None),
        "msg_gate": float(verdict.needs_resolution),
        "msg_names": float(bool(names_in(message))),
        "depth": min(sum(1 for t in history if t.role == "user"), 10) / 10,
        "msg_in_last_user": len(own & turn_stems.get(last_user, set())) / max(len(own), 1),
        "msg_in_history": len(own & in_history) / max(len(own), 1),
    }
