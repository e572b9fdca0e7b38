"""A description of a kind of thing that nothing in the conversation picks out.

"When was the famous basketball player born?", "How wealthy is this county of
California?", "Does this fast food chain operate in India?": the message speaks of one
thing ("the", "this") but only says what kind of thing it is, and no earlier turn names
a thing of that kind. A definite description normally points back ("the projector" after
"a pinhole projector", `conversation.definites`) or is unique by itself ("the largest
city") or by the phrase after it ("the capital of France", "the policy on remote work");
when neither holds and the passages retrieved for it are about several distinct
subjects, the question fits each of them and the user should be asked which one
(`answer.clarify`).

Read from the message's tokens only (no tagger): a determiner, then the run of content
words after it up to a function word, a verb or punctuation; the run's words must not
occur in the conversation before (none of them: a shared word counts as an antecedent,
the conservative side), must not make it unique (a superlative, an ordinal, "same",
"other"), must not all be capitalised (a name: "the Super Bowl"), and no prepositional
phrase may follow it, unless it is demonstrative ("this county of California" still
points at one the conversation should have named).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tellmemore.analysis import lexicon
from tellmemore.conversation.phrases import PREPOSITIONS
from tellmemore.conversation.text import (
    AUXILIARIES,
    COMMON_VERBS,
    FUNCTION_WORDS,
    GENERIC_NOUNS,
    RELATIONAL_NOUNS,
    Token,
    norm,
    singular,
    tokenize,
)
from tellmemore.types import Turn

DEMONSTRATIVES = lexicon.words("demonstratives") - {"that"}
DETERMINERS = DEMONSTRATIVES | {"the"}
"""Determiners of one (or one group of) definite thing(s). Not "that": as often a
conjunction ("I heard that the ...") as a determiner, and no tagger tells them apart."""
UNIQUE = lexicon.words("unique_modifiers") | lexicon.words("comparatives")
_IRREGULAR_PARTICIPLES = lexicon.words("irregular_participles")
"""Words that make a description pick one thing by themselves ("the first", "the same",
"the largest")."""
_BREAKS = frozenset(',.;:?!()[]"')
_OBJECT_OPENERS = lexicon.words("object_openers")
_DO = lexicon.words("do_support")
_BE_HAVE = lexicon.words("be_have_forms")
_QUESTION_AUXILIARIES = lexicon.words("question_auxiliaries")


@dataclass(frozen=True)
class Description:
    text: str
    """As written: "the famous basketball player"."""
    det: str
    words: tuple[str, ...]
    """Its content words, lower-cased ("famous", "basketball", "player")."""
    head: str
    """The last word, the kind of thing ("player")."""
    start: int
    end: int
    complement: bool
    """A prepositional phrase follows ("this county of California", "the policy on
    remote work", "the distance to the Sun")."""
    qualifier: tuple[str, ...] = ()
    """The content words of that phrase ("grey", "anatomy" of "the season of Grey's
    Anatomy"), or of the run after a possessive ("anatomy", "season" of "the Grey's
    Anatomy season")."""
    possessive: bool = False

    @property
    def demonstrative(self) -> bool:
        return self.det in DEMONSTRATIVES


def descriptions(message: str, determiners: frozenset[str] = DETERMINERS) -> list[Description]:
    """The definite descriptions of `message`, left to right (with `determiners`: the
    noun phrases those open, "which form")."""
    toks = tokenize(message)
    out: list[Description] = []
    for i, tok in enumerate(toks):
        if tok.low not in determiners:
            continue
        run = _run(message, toks, i + 1)
        if not run:
            continue
        if len(run) >= 2 and _verb_last(message, toks, i, i + 1 + len(run)):
            run = run[:-1]  # "when was the famous basketball player born?"
        words = tuple(norm(t.text) for t in run)
        end = run[-1].end
        nxt = toks[i + 1 + len(run)] if i + 1 + len(run) < len(toks) else None
        complement = (
            nxt is not None and nxt.low in PREPOSITIONS and not _break(message, end, nxt.start)
        )
        possessive = run[-1].text.lower().endswith(("'s", "’s"))
        after = i + 2 + len(run) if complement else i + 1 + len(run)
        qualifier = _phrase(message, toks, i, after) if complement or possessive else ()
        out.append(
            Description(
                message[tok.start : end],
                tok.low,
                words,
                words[-1],
                tok.start,
                end,
                complement,
                qualifier,
                possessive,
            )
        )
    return out


def _phrase(message: str, toks: Sequence[Token], det: int, j: int) -> tuple[str, ...]:
    """The content words of the noun phrase at `toks[j]` (after a preposition or a
    possessive), past a determiner and through one possessive ("the Grey's Anatomy"),
    without the question's verb (`_verb_last`: "did the season of X premiere?")."""
    if j < len(toks) and toks[j].low in DETERMINERS | {"a", "an"}:
        j += 1
    start = j
    run = _run(message, toks, j) if j < len(toks) else []
    if run and run[-1].text.lower().endswith(("'s", "’s")):
        j += len(run)
        run += _run(message, toks, j) if j < len(toks) else []
    if len(run) >= 2 and _verb_last(message, toks, det, start + len(run)):
        run = run[:-1]
    return tuple(norm(t.text) for t in run)


def _run(message: str, toks: Sequence[Token], j: int) -> list[Token]:
    """The content words from `toks[j]` on, up to a function word, a verb, an adverb,
    a participle or punctuation; a possessive ends it ("the actor's approach": the
    actor)."""
    run: list[Token] = []
    prev_end = toks[j - 1].end if j > 0 else 0
    while j < len(toks):
        t = toks[j]
        low = norm(t.text)
        if _break(message, prev_end, t.start) or (not low.isalpha() and "-" not in low):
            break
        if low in FUNCTION_WORDS or low in COMMON_VERBS or low in AUXILIARIES:
            break
        if low.endswith("ly") or _participle(t.text):
            break  # "this intended for ...", "the language officially spoken"
        if run and j + 1 < len(toks) and toks[j + 1].low in _OBJECT_OPENERS:
            break  # "the chain establish a presence": a verb takes the article, not a noun
        run.append(t)
        prev_end = t.end
        if t.text.lower().endswith(("'s", "’s")):
            break
        j += 1
    return run


def _verb_last(message: str, toks: Sequence[Token], det: int, after: int) -> bool:
    """The run's last word is the question's verb: an auxiliary opened the clause right
    before the determiner ("when was the X born?", "did the X premiere?") and the run
    ends the clause, or "do" did and a preposition follows ("does this chain operate
    in India?")."""
    if det == 0 or toks[det - 1].low not in _QUESTION_AUXILIARIES:
        return False
    last = toks[after - 1]
    if toks[det - 1].low in _BE_HAVE and not _verb_form(last.text):
        return False  # "what are the opening hours?": "are" is the verb, "hours" a noun
    if after >= len(toks) or _break(message, last.end, toks[after].start):
        return True
    # "does the patent license of X terminate?": "of" follows a noun, never a verb
    return toks[det - 1].low in _DO and toks[after].low in PREPOSITIONS - {"of"}


def _break(message: str, a: int, b: int) -> bool:
    return any(ch in _BREAKS for ch in message[a:b])


def _verb_form(word: str) -> bool:
    """A participle or a frequent verb form: what "is/was/has ... the X" can end on."""
    low = word.lower()
    return _participle(word) or low in _IRREGULAR_PARTICIPLES or low in COMMON_VERBS


def _participle(word: str) -> bool:
    low = word.lower()
    return (
        word.islower() and len(low) >= 5 and low.endswith(("ed", "en")) and not low.endswith("eed")
    )


def unanchored(message: str, history: Sequence[Turn]) -> list[Description]:
    """The descriptions of `message` that nothing said before picks out (module doc)."""
    said = {_form(w) for t in history for w in _words(t.content)}
    out = []
    for d in descriptions(message):
        if any(w in UNIQUE or (w.endswith("est") and len(w) > 5) for w in d.words):
            continue  # "the largest city": unique by itself
        if d.complement and not d.demonstrative:
            continue  # "the role of ...", "the policy on remote work": its phrase says which
        if d.head in GENERIC_NOUNS or d.head in RELATIONAL_NOUNS:
            continue  # "the way", "the fee": of something else, not a kind of thing
        if _named(message, d):
            continue
        if any(_form(w) in said for w in d.words):
            continue  # a word of it was said before: it points back
        out.append(d)
    return out


def named_kinds(message: str, history: Sequence[Turn]) -> list[Description]:
    """The descriptions `unanchored` leaves out only for their capitals or their phrase
    ("the Prime Minister", "the season of Grey's Anatomy"): such a name or phrase picks
    one thing when the documents hold one thing so called, and not when their titles
    hold several ("Prime Minister of Canada", "Prime Minister of the United Kingdom"):
    `answer.clarify` reads the titles. A word said before still points back."""
    said = {_form(w) for t in history for w in _words(t.content)}
    out = []
    for d in descriptions(message):
        if any(w in UNIQUE or (w.endswith("est") and len(w) > 5) for w in d.words):
            continue
        if d.head in GENERIC_NOUNS or d.head in RELATIONAL_NOUNS:
            continue
        if not (_named(message, d) or (d.complement and not d.demonstrative)):
            continue  # `unanchored`'s own
        if any(_form(w) in said for w in d.words):
            continue
        out.append(d)
    return out


ASKING = frozenset({"which"})
"""The determiner that asks for one of several things of a kind ("which form"). Not "what":
"What phone do we get?" asks the documents to describe the one they speak of (TTS
handbook: both "what" questions it reached were answerable)."""


def bare_kinds(message: str, history: Sequence[Turn]) -> list[Description]:
    """The descriptions of `message` that are one singular noun and nothing else ("the
    budget", "which form"), a kind no word of the conversation qualifies: which thing of
    the kind is meant, only the documents can tell (`answer.qualified`). A plural ("the
    benefits") asks for all of them; a phrase after it ("the budget for travel") or a
    word said before picks one, and so does a superlative anywhere in the message."""
    if any(_unique(w) for w in _words(message)):
        return []  # "which industry provides the largest employment": that picks one
    said = {_form(w) for t in history for w in _words(t.content)}
    out = []
    for d in descriptions(message, DETERMINERS | ASKING):
        if len(d.words) != 1 or d.complement or d.possessive or _named(message, d):
            continue
        if d.head in GENERIC_NOUNS or d.head in RELATIONAL_NOUNS or d.head in UNIQUE:
            continue
        if _form(d.head) != d.head or _form(d.head) in said:
            continue
        out.append(d)
    return out


def _unique(word: str) -> bool:
    return word in UNIQUE or (word.endswith("est") and len(word) > 5)


def _named(message: str, d: Description) -> bool:
    """Every word capitalised: a name ("the Super Bowl", "the USA"), not a kind of
    thing; with "the", a capitalised word anywhere: the kind of one named thing ("the
    Free Software Foundation helpdesk", "the BSD license"). "this Fast food chain" still
    needs an antecedent."""
    toks = tokenize(message[d.start : d.end])[1:]
    if not toks:
        return False
    if d.demonstrative:
        return all(t.text[:1].isupper() for t in toks)
    return any(t.text[:1].isupper() for t in toks)


def _form(word: str) -> str:
    """A word without its plural ending: not the Porter stem, which makes "animal" said
    where only "animated" was ("anim")."""
    return singular(word.lower())


def _words(text: str) -> list[str]:
    return [norm(t.text) for t in tokenize(text) if norm(t.text) not in FUNCTION_WORDS]
