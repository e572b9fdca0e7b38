"""Which single words of the history a follow-up's query should carry: term classification.

In the manner of QuReTeC (Voskarides et al. 2020), without a transformer: every content
word of a noun phrase in the user's first and latest turns and in the last answers'
openings that the resolved query lacks gets one feature vector (its IDF, where and how
recently it was said, how many turns it persisted through, whether it was capitalised,
how often it shares a turn with the message's own words, the phrase selector's
probability for the best phrase holding it, and what the message itself brings), and a
logistic model (`scripts/train_terms.py`, fitted leave-one-domain-out on human
rewrites) says whether a person writing the standalone query would have kept it.

The words picked are appended as the history spelt them ("how do I apply? (FMLA
leave)"), so the query stays readable and the binding shows what was carried.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

from tellmemore.conversation.analysis import analyze
from tellmemore.conversation.binding import Salience, exchange_ages
from tellmemore.conversation.gate import GateResult, gate
from tellmemore.conversation.realize import append_words
from tellmemore.conversation.resolvers.base import ResolveContext
from tellmemore.conversation.selector import Scored, SelectorModel, default_model, each_candidate
from tellmemore.conversation.text import stem
from tellmemore.types import Resolution, Turn

TERM_FEATURES: tuple[str, ...] = (
    "idf",
    "in_last_user",
    "in_first_user",
    "user_share",
    "in_last_answer",
    "answer_share",
    "recency",
    "mentions",
    "capitalized",
    "multiword",
    "with_message",
    "phrase_prob",
    "resolved",
    "query_grew",
    "msg_words",
    "msg_max_idf",
    "msg_gate",
    "msg_referent",
    "msg_in_last_user",
    "depth",
)
"""Feature names, in the order of the term model's weight vector."""

_USER_TURNS = 4
_ASSISTANT_TURNS = 2
_ANSWER_SENTENCES = 3


@dataclass(frozen=True)
class Term:
    """A history word the query lacks: its stem, its spelling there, its features."""

    stem: str
    text: str
    features: tuple[float, ...]
    order: tuple[int, int]
    """(turn, position) of its first mention in the user's turns (answers after): the order
    carried words are written in."""


@dataclass
class _Word:
    """Where one history word (by its stem) was said."""

    text: str
    order: tuple[int, int]
    turns: set[int] = field(default_factory=set)
    count: int = 0
    capitalized: bool = False
    multiword: bool = False


def term_candidates(
    message: str,
    query: str,
    history: Sequence[Turn],
    salience: Salience,
    verdict: GateResult,
    phrases: Sequence[Scored] = (),
    *,
    resolved: bool = False,
) -> list[Term]:
    """The candidate words of the history for `query` (the message as resolved so far),
    with their features. `phrases`: the phrase selector's scored candidates (probability
    set), whose best phrase holding a word is one of its features."""
    users = [i for i, t in enumerate(history) if t.role == "user"]
    if not users:
        return []
    users = sorted({users[0], *users[-_USER_TURNS:]})
    answers = [i for i, t in enumerate(history) if t.role == "assistant"][-_ASSISTANT_TURNS:]
    last_user, first_user = users[-1], users[0]
    last_answer = answers[-1] if answers else -1
    msg = analyze(message)
    own = msg.stems | analyze(query).stems
    read = {i: analyze(history[i].content) for i in (*users, *answers)}
    found: dict[str, _Word] = {}
    turn_stems: dict[int, frozenset[str]] = {}
    for i, a in read.items():
        is_user = history[i].role == "user"
        said = a.phrases if is_user else a.opening(_ANSWER_SENTENCES)
        turn_stems[i] = a.stems if is_user else a.opening_words(_ANSWER_SENTENCES)[1]
        for pos, p in enumerate(said):
            for w in p.text.split():
                s = stem(w)
                if not s or s in own or not any(c.isalnum() for c in w):
                    continue
                e = found.setdefault(s, _Word(w, ((0 if is_user else 1) * 1000 + i, pos)))
                e.turns.add(i)
                e.count += 1
                e.capitalized |= w[:1].isupper() and p.capitalized
                e.multiword |= len(p.stems) > 1
    if not found:
        return []
    salience.prime_words([msg.vocabulary, frozenset(e.text.lower() for e in found.values())])
    ages = exchange_ages(history)
    best: dict[str, float] = {}
    for sc in phrases:
        for s in sc.phrase.stems:
            best[s] = max(best.get(s, 0.0), sc.probability)
    msg_stems = msg.stems
    weights = [salience.weight(w) for w in msg.content_words]
    n_users, n_answers = len(users), max(len(answers), 1)
    fixed = (
        float(resolved),
        float(len(analyze(query).stems - msg_stems) > 0),
        min(len(msg.content_words), 10) / 10,
        max(weights, default=0.0),
        float(verdict.needs_resolution),
        float(bool(msg.referents)),
        len(msg_stems & turn_stems.get(last_user, frozenset())) / max(len(msg_stems), 1),
        min(len(users), 10) / 10,
    )
    out = []
    for s, e in found.items():
        turns = e.turns
        n_user = sum(1 for i in turns if history[i].role == "user")
        with_msg = max(len(msg_stems & turn_stems[i]) for i in turns) / max(len(msg_stems), 1)
        x = (
            salience.weight(e.text),
            float(last_user in turns),
            float(first_user in turns),
            n_user / n_users,
            float(last_answer in turns),
            (len(turns) - n_user) / n_answers,
            max(0.6 ** ages[i] for i in turns),
            min(e.count, 5) / 5,
            float(e.capitalized),
            float(e.multiword),
            with_msg,
            best.get(s, 0.0),
            *fixed,
        )
        out.append(Term(s, e.text, x, e.order))
    return out


def pick(terms: Sequence[Term], model: SelectorModel, limit: int | None = None) -> list[Term]:
    """The terms at or above the model's threshold, most probable first (at most `limit`,
    default the model's max_phrases), then put in the order the history said them."""
    scored = sorted(((model.probability(t.features), t) for t in terms), key=lambda pt: -pt[0])
    cap = model.max_phrases if limit is None else limit
    kept = [t for p, t in scored if p >= model.threshold][:cap]
    return sorted(kept, key=lambda t: t.order)


@lru_cache(maxsize=1)
def term_model() -> SelectorModel | None:
    """The term model named by TELLMEMORE_TERM_WEIGHTS, or `terms.json` beside this module;
    None when neither exists (the step is then off)."""
    override = os.environ.get("TELLMEMORE_TERM_WEIGHTS")
    path = Path(override) if override else Path(__file__).with_name("terms.json")
    if not path.is_file():
        if override:
            raise FileNotFoundError(override)
        return None
    return SelectorModel.from_json(json.loads(path.read_text(encoding="utf-8")), TERM_FEATURES)


def candidates_for(
    message: str,
    query: str,
    history: Sequence[Turn],
    salience: Salience,
    verdict: GateResult,
    *,
    resolved: bool,
) -> list[Term]:
    """`term_candidates` with the phrase selector's probabilities (`default_model()`)."""
    phrase_model = default_model()
    phrases: list[Scored] = []
    if phrase_model is not None:
        phrases = [
            Scored(s.phrase, s.features, phrase_model.probability(s.features))
            for s in each_candidate(message, history, salience, verdict)
        ]
    return term_candidates(message, query, history, salience, verdict, phrases, resolved=resolved)


def carried_terms(
    message: str,
    query: str,
    history: Sequence[Turn],
    salience: Salience,
    verdict: GateResult,
    *,
    resolved: bool,
    model: SelectorModel | None = None,
) -> list[Term]:
    """The history words the term model (default `term_model()`) would add to `query` for
    `message`, in the order the history said them; none without a model."""
    model = model or term_model()
    if model is None:
        return []
    return pick(
        candidates_for(message, query, history, salience, verdict, resolved=resolved), model
    )


def with_terms(
    message: str, res: Resolution, history: Sequence[Turn], context: ResolveContext
) -> Resolution:
    """`res` with the words the term model picks appended to its query (pass "terms"), which
    the user sees ("Searching for: how do I apply (FMLA leave)?"). No binding is added: a
    binding is a referent's antecedent (and asks for the reply phrasing, phrasings.py).
    Unchanged without a model, without the index's term statistics (its features are IDF)
    or when the resolution asks back."""
    if context.term_stats is None or res.ambiguous or term_model() is None:
        return res
    salience = Salience(context.term_stats)
    verdict = gate(message, history, salience=salience)
    picked = carried_terms(
        message, res.query, history, salience, verdict, resolved=bool(res.passes)
    )
    if not picked:
        return res
    words = [t.text for t in picked]
    return replace(res, query=append_words(res.query, words), passes=(*res.passes, "terms"))
