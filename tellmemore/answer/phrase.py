"""Does the evidence state the thing the question names, or only its head noun?

"what's the annual bonus?" over a passage on the referral bonus, "what about a phone
stipend?" over the education stipend, "my home internet" over the company's Internet
policy: the question's head noun ("bonus", "stipend") is in the passages, and the vectors
are close, but the kind it asks about ("annual", "phone") is never said of it. A noun
phrase of the question of exactly one modifier and a head (`focal_phrases`) is *unstated*
when a top passage holds the head and no passage that holds the head holds the modifier:
by its stem, another spelling of it (`focus._close_spelling`), or a word of the passage
at least `min_near` close to it (MiniLM, word against word: "medical" holds "health").

Only a two-word phrase is read (a longer one is more often a parse of a clause: "cross
party line coalition", "stuck transient state"), and not one that opens a sentence of
the question (there the first word is as often an adverb or a verb: "Briefly narrate
...", "Recently BRICS ..."). The cosine ceiling, the nearness and the scope (a passage,
not a sentence) were chosen on one data set and reported on the others
(bench/phrase_coverage.py, bench/results/phrase_coverage.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from tellmemore.analysis import lexicon, mood
from tellmemore.answer import focus
from tellmemore.conversation.text import COMMON_VERBS, content_words, stem
from tellmemore.conversation.verbforms import ADJECTIVE_ENDINGS, has_third_person
from tellmemore.index.base import Vector
from tellmemore.index.vector_cache import cache_for
from tellmemore.types import Hit

PHRASE_HITS = 5
"""Top passages read."""
_SENTENCE_START = re.compile(r"(?:^|[.?!:;]\s+)[\"'(]*([A-Za-z])")
_NOT_KINDS = (
    lexicon.words("not_nouns")
    | lexicon.words("unique_modifiers")
    | lexicon.words("gradable")
    | lexicon.words("comparatives")
    | lexicon.words("quantifiers")
    | lexicon.words("number_words")
    | lexicon.words("postpositive")
)
"""Modifiers that grade, count or pick out ("a certain browser", "the second user"),
never a kind of thing."""
_ADJECTIVE_ENDINGS = tuple(e for e in ADJECTIVE_ENDINGS if e != "ing")
"""Endings of an adjective modifier ("daily", "annual", "unused"); an "-ing" modifier is
as often a noun ("parking subsidy", "training budget")."""
_PARTICLES = lexicon.words("particles")


def names_a_kind(modifier: str) -> bool:
    """The modifier reads as a noun naming another thing ("gym stipend", "phone
    stipend", "citizenship ceremony"), not an adjective grading or qualifying the head
    ("daily commute", "second monitor", "different method"): no word of the lexicon's
    grading and picking lists, no adjective ending. A word-class guess without a tagger."""
    w = modifier.lower()
    return (
        any(c.isalpha() for c in w) and w not in _NOT_KINDS and not w.endswith(_ADJECTIVE_ENDINGS)
    )


def _before_particle(text: str, end: int) -> bool:
    """The phrase ends before a particle: its last word is a phrasal verb's ("if the commit
    turns out")."""
    following = text[end:].split(maxsplit=1)
    return bool(following) and following[0].strip(".,;:?!") in _PARTICLES


def reads_as_noun(head: str) -> bool:
    """The head can be a noun: no particle ("money back") and no verb's "-s" form ("if
    the commit turns out")."""
    w = head.lower()
    return w not in _PARTICLES and not (
        w in COMMON_VERBS and w.endswith("s") and has_third_person(w[:-1])
    )


@dataclass(frozen=True)
class Phrase:
    """A modifier and the head noun it says which kind of."""

    modifier: str
    head: str

    @property
    def text(self) -> str:
        return f"{self.modifier} {self.head}"


def focal_phrases(question: str, *, kinds_only: bool = False) -> list[Phrase]:
    """The question's noun phrases of one modifier and a head (content words, the
    question's asking words left out), except those opening one of its sentences; with
    `kinds_only`, only those whose modifier names a kind (`names_a_kind`) of a head that
    reads as a noun."""
    from tellmemore.conversation.phrases import phrases  # the parser loads the lexicon

    starts = {m.start(1) for m in _SENTENCE_START.finditer(question)}
    lowered = question.lower()
    out: list[Phrase] = []
    for p in phrases(question):
        words = focus.candidates(p.text)
        if len(words) != 2:
            continue
        at = lowered.find(p.text.lower())
        if at in starts or at == 0:
            continue
        if kinds_only and not (
            names_a_kind(words[0])
            and reads_as_noun(words[1])
            and not _before_particle(lowered, at + len(p.text))
        ):
            continue
        out.append(Phrase(words[0], words[1]))
    return out


def _passage_words(hit: Hit) -> list[str]:
    c = hit.chunk
    return content_words(f"{c.title}\n{' '.join(c.section)}\n{c.header}\n{c.text}")


def _nearness(
    embed: Callable[[list[str]], Vector] | None, words: Sequence[str], vocabulary: Sequence[str]
) -> dict[str, dict[str, float]]:
    """Each word's cosine to each vocabulary word (empty without an embedder)."""
    if embed is None or not words or not vocabulary:
        return {}
    vectors = cache_for(embed).get(embed, [*words, *vocabulary])
    sims = vectors[len(words) :] @ vectors[: len(words)].T
    return {
        w: {v: float(s) for v, s in zip(vocabulary, np.asarray(sims[:, i]), strict=True)}
        for i, w in enumerate(words)
    }


def unstated(
    question: str,
    hits: Sequence[Hit],
    embed: Callable[[list[str]], Vector] | None,
    *,
    min_near: float,
    kinds_only: bool = False,
) -> Phrase | None:
    """The first focal phrase whose head a top passage holds while no passage holding the
    head holds its modifier; None when every such phrase is stated (or none is read)."""
    wanted = focal_phrases(question, kinds_only=kinds_only)
    top = list(hits[:PHRASE_HITS])
    if not wanted or not top:
        return None
    passages = [_passage_words(h) for h in top]
    vocabulary = sorted({w for ws in passages for w in ws if len(w) >= 3})
    asked = sorted({w for p in wanted for w in (p.modifier, p.head)})
    near = _nearness(embed, asked, vocabulary)

    def holds(word: str, words: list[str], stems: set[str]) -> bool:
        if stem(word) in stems or focus._close_spelling(word, [w for w in words if len(w) >= 3]):
            return True
        close = near.get(word, {})
        return any(close.get(w, 0.0) >= min_near for w in words)

    units = [(ws, {stem(w) for w in ws}) for ws in passages]
    for p in wanted:
        with_head = [(ws, st) for ws, st in units if holds(p.head, ws, st)]
        if with_head and not any(holds(p.modifier, ws, st) for ws, st in with_head):
            return p
    return None


def lacking(
    question: str,
    hits: Sequence[Hit],
    embed: Callable[[list[str]], Vector] | None,
    *,
    min_near: float,
    max_cos: float,
    kinds_only: bool = False,
    message: str | None = None,
) -> str | None:
    """The unstated phrase as the question names it ("annual bonus"), read only when no
    top passage is at least `max_cos` close (over a close passage a modifier it lacks is
    likelier another wording); None when stated, and when the user's `message` asks
    nothing: a remark ("So, no game meat from now on!") is no question to answer
    "nothing about game meat" to (`analysis.mood.asks`)."""
    if message is not None and not mood.asks(message):
        return None
    if max((h.dense for h in hits if h.dense is not None), default=0.0) >= max_cos:
        return None
    found = unstated(question, hits, embed, min_near=min_near, kinds_only=kinds_only)
    return found.text if found is not None else None
