"""Ask back when what a follow-up points at is a coin flip between things of one kind the
conversation just named, instead of binding one silently (seed 003).

Two shapes, both read from what binding already has (candidates and their scores, the
last answer's list items), never from the message's wording:

- a pronoun whose best antecedent has a rival of the same kind ("Which is better: the
  query runtime distribution chart or the query throughput chart?" then "How does it
  help?"): two phrases with the same head and different modifiers, the rival scoring at
  least `constants.RIVAL_RATIO` of the best;
- a definite description of the kind the last answer listed ("Explain each plan" answered
  with a list of plans, then "How many domains are included in the plan?"): the noun is
  what the user asked about, the answer listed at least `constants.KIND_ITEMS` of them,
  and nothing since names one;
- a singular pronoun whose best antecedent is that plural kind, or one of its listed items
  ("What plans are there?", then "how much does it cost?"): the same list, the same ask.

Both thresholds are chosen by `bench/referent_ambiguity.py` on the MTRAG follow-ups (each
has a human rewrite, so each was resolvable: an ask there is a false one) and one
MTRAG-UN domain, and reported on the other (bench/results/referent_ambiguity.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tellmemore.analysis import lexicon
from tellmemore.conversation import constants as C
from tellmemore.conversation.binding import Candidate, Phrase, phrases
from tellmemore.conversation.definites import _names_more
from tellmemore.conversation.lists import list_items, quoted_items
from tellmemore.conversation.text import FUNCTION_WORDS, content_words, looks_plural, norm, stem
from tellmemore.types import Turn

MAX_OPTIONS = 4

_THE = lexicon.pattern("the")


@dataclass(frozen=True)
class Rivals:
    """The best antecedent and its same-kind rivals (best first), and how close they come."""

    options: tuple[Phrase, ...]
    ratio: float
    """The best rival's score over the best one's (1: a tie)."""


def same_kind(a: Phrase, b: Phrase) -> bool:
    """Two names of one kind of thing: the same head word, different words before it
    ("query runtime distribution chart", "query throughput chart"); a phrase that holds
    the other's words is the same thing said again ("Disk UUIDs", "different disk UUIDs")."""
    if len(a.stems) < 2 or len(b.stems) < 2 or a.stems[-1] != b.stems[-1]:
        return False
    return not set(a.stems) <= set(b.stems) and not set(b.stems) <= set(a.stems)


def rivals(ranked: Sequence[tuple[Candidate, float]]) -> Rivals | None:
    """The best candidate's same-kind rivals; `ranked`: candidates with the score binding
    compares them by, best first. None when it has none."""
    if len(ranked) < 2 or ranked[0][1] <= 0:
        return None
    best, top = ranked[0]
    found: list[tuple[Candidate, float]] = []
    for c, s in ranked[1:]:
        if same_kind(best.phrase, c.phrase) and all(
            same_kind(c.phrase, k.phrase) for k, _ in found
        ):
            found.append((c, s))
    if not found:
        return None
    options = (best.phrase, *(c.phrase for c, _ in found))
    return Rivals(options[:MAX_OPTIONS], found[0][1] / top)


def asks(found: Rivals | None, ratio: float = C.RIVAL_RATIO) -> bool:
    return found is not None and found.ratio >= ratio


@dataclass(frozen=True)
class KindAsked:
    """A definite description of the kind the last answer listed, and the items."""

    description: str
    items: tuple[Phrase, ...]


def definite_heads(message: str) -> list[tuple[str, str]]:
    """Each "the <noun>" of `message` as written, with the noun's stem (the head when the
    next word ends the noun phrase: "the plan include", not "the plan code")."""
    out = []
    for m in _THE.finditer(message):
        word = m.group(1)
        low = norm(word)
        if low in FUNCTION_WORDS or not word[:1].islower():
            continue  # "the Pro plan" names one: capitalised, it is a name, no kind
        rest = message[m.end() :].split(None, 1)
        nxt = norm(rest[0].rstrip("?!.,;:)\"'")) if rest and rest[0][:1].isalnum() else ""
        if nxt and _names_more(nxt):
            continue  # "the query API": the word is a modifier, not the head
        out.append((m.group(0), stem(low)))
    return out


def kind_asked(
    message: str, asked: str, items: Sequence[Phrase], said_since: Sequence[str]
) -> KindAsked | None:
    """`message` says "the <kind>" of the kind the user's last question `asked` about
    ("each plan"), whose answer listed `items`, and neither the message, nor that question,
    nor `said_since` names one of them."""
    kinds = {stem(w) for w in content_words(asked)}
    heads = [(text, h) for text, h in definite_heads(message) if h in kinds]
    return _listed_of_kind(heads, message, asked, items, said_since)


def _listed_of_kind(
    heads: Sequence[tuple[str, str]],
    message: str,
    asked: str,
    items: Sequence[Phrase],
    said_since: Sequence[str],
) -> KindAsked | None:
    """The items of the kind of the first of `heads` (as written, head stem) that nothing
    said picks one of."""
    items = distinct_things(items)
    if len(items) < 2 or not heads:
        return None
    said = {stem(w) for t in (message, asked, *said_since) for w in content_words(t)}
    said -= {h for _, h in heads}  # "the pass" names no pass: "Day pass" is not picked
    shared = set.intersection(*(set(it.stems) for it in items))
    if any((set(it.stems) - shared) & said for it in items):
        return None  # "the plan" after "How much is the Pro plan?" is Pro
    head = heads[0][1]
    named = [it for it in items if it.stems[-1:] == (head,)]
    if len(named) >= 2:  # "the pass" over "Single ride", "Day pass", "Monthly pass"
        return KindAsked(heads[0][0], tuple(named))
    if any(head in it.stems for it in items):
        return None  # steps that speak of the dialog are no dialogs to choose among
    return KindAsked(heads[0][0], tuple(items))  # "the plan" over Starter, Pro, Enterprise


def _last_exchange(history: Sequence[Turn]) -> tuple[Turn, Turn] | None:
    """The last answer and the user question it answered."""
    last = max((i for i, t in enumerate(history) if t.role == "assistant"), default=-1)
    asked = max((i for i, t in enumerate(history[: max(last, 0)]) if t.role == "user"), default=-1)
    return None if asked < 0 else (history[asked], history[last])


def _listed(turn: Turn) -> list[Phrase]:
    return quoted_items(turn.items, turn.content) if turn.items else list_items(turn.content)


def distinct_things(items: Sequence[Phrase]) -> list[Phrase]:
    """The items less those that name another again ("Ronaldo" after "Cristiano Ronaldo"):
    one thing twice is no choice."""
    sets = [set(it.stems) for it in items]
    return [
        it
        for i, it in enumerate(items)
        if not any(
            j != i and sets[i] <= sets[j] and (sets[i] != sets[j] or j < i)
            for j in range(len(items))
        )
    ]


def kind_in_history(message: str, history: Sequence[Turn]) -> KindAsked | None:
    """`kind_asked` over the last answer's list and the user question it answered."""
    exchange = _last_exchange(history)
    if exchange is None:
        return None
    asked, answer = exchange
    kinds = {stem(w) for w in content_words(asked.content)}
    if not any(h in kinds for _, h in definite_heads(message)):
        return None  # the common case: no list to read
    return kind_asked(message, asked.content, _listed(answer), [])


def plural_kind_in_history(message: str, history: Sequence[Turn]) -> KindAsked | None:
    """The user's last question asked about a plural kind ("What plans are there?") and
    the answer listed several of them that nothing since picks one of: a singular pronoun
    next ("how much does it cost?") is one of them, and nothing says which."""
    exchange = _last_exchange(history)
    if exchange is None:
        return None
    asked, answer = exchange
    heads = [
        (p.text, p.stems[-1])
        for p in phrases(asked.content)
        if p.stems and looks_plural(p.text.split()[-1])
    ]
    return _listed_of_kind(heads, message, asked.content, _listed(answer), [])


def asks_kind(found: KindAsked | None, min_items: int = C.KIND_ITEMS) -> bool:
    return found is not None and len(found.items) >= min_items
