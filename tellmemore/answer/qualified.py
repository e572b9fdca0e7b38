"""Which one, read from the passages' text: several things the question's bare noun names.

"What's the budget?" over a handbook whose passages speak of "the learning budget" under
"Learning Budget" and of "these budgets" under "Budgeting"; "Which form do I need to fill
out?" over "OPM Form 630", "form SF-182" and "the Advanced Sick Leave Request form". The
question names a kind of thing and nothing else; the passages speak of several things of
that kind. The titles alone cannot offer them when one document holds every top passage
(its sections are the things) or when the passages have no titles (their text names them).

What a top passage calls a thing of the kind (`things`), read by the package's one phrase
parse (`conversation.analysis`) and stemmer:

- a noun phrase of its text ending on the kind, or holding it before a code ("Form 630"),
  whose other words say which one: they are words of the passage's own headings ("learning
  budget" under "Continuing Education > Learning Budget"), or the phrase holds a code
  ("OPM Form 630"). Words any passage could use ("an annual budget", "the company budget")
  are neither;
- else a heading of the passage that is a thing of the kind ("Technical Interview — 2 Hour",
  "Budgeting": its last word, before a preposition or a dash, is the kind);
- else, with `sections`, the passage's own section when its text speaks of the kind
  bare ("This interview can take place over video chat" under "Informal/Coffee"): the
  thing is the one of that section.

`answer.clarify.ask_qualified` asks when two or more sections of the top passages hold
such things and nothing in the conversation names one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from tellmemore.conversation.analysis import analyze
from tellmemore.conversation.phrases import PREPOSITIONS, Phrase
from tellmemore.conversation.text import FUNCTION_WORDS, readable, stem
from tellmemore.types import Hit

TOP = 5
"""Passages read (as `answer.clarify.TOP`)."""


@dataclass(frozen=True)
class Thing:
    """A thing of the asked kind one passage speaks of: "learning budget"."""

    text: str
    own: frozenset[str]
    """The stems that tell it from the others (the phrase's or heading's, not the kind)."""
    section: str
    """The passage's header, lower-cased: where it is spoken of."""
    by_section: bool
    """Named by the passage's section only (its text says the kind bare)."""


def things(hits: Sequence[Hit], head: str, sections: bool = True) -> list[Thing]:
    """The things of kind `head` (a singular noun) the top passages speak of, best first,
    one per distinct set of own words; none when a top passage has a heading called by the
    kind's word alone ("Equipment > Phone" for "what phone?": the documents call one thing
    so). Words every top passage holds ("Clef" of "the Clef office") tell none apart."""
    top = list(hits[:TOP])
    if any(_called(part, head) for h in top for part in (h.chunk.title, *h.chunk.section)):
        return []
    everywhere = frozenset.intersection(*(_stems(h.chunk.text) for h in top)) if top else None
    kind = stem(head)
    out: list[Thing] = []
    seen: set[frozenset[str]] = set()
    for h in top:
        for t in _of_passage(h, kind, sections):
            own = t.own - everywhere if everywhere else t.own
            if own and own not in seen:
                seen.add(own)
                out.append(Thing(t.text, own, t.section, t.by_section))
    return out


def _called(part: str, head: str) -> bool:
    """The heading is the kind's word alone, singular ("Phone"; "Forms" heads several)."""
    words = _head_words(part)
    return len(words) == 1 and words[0].lower() == head


def _of_passage(hit: Hit, kind: str, sections: bool) -> list[Thing]:
    chunk = hit.chunk
    header = chunk.header
    parts = [p for p in (chunk.title, *chunk.section) if p.strip()]
    heading = analyze(header).stems
    text = readable(_body(chunk.text, header))
    where = header.lower()
    named = [
        Thing(_surface(p, text), own, where, False)
        for p in analyze(text).phrases
        if (own := _own(p, kind)) and (own <= heading or _name(p))
    ]
    if named:
        return named
    for part in reversed(parts):
        words = _head_words(part)
        if words and stem(words[-1]) == kind:
            own = _stems(part) - {kind} or frozenset({part.strip().lower()})
            return [Thing(part.strip(), own, where, False)]
    if sections and parts and any(p.stems == (kind,) for p in analyze(text).phrases):
        return [Thing(parts[-1].strip(), _stems(parts[-1]) - {kind}, where, True)]
    return []


def _stems(text: str) -> frozenset[str]:
    return analyze(text).stems


def _head_words(part: str) -> list[str]:
    """A heading's words before its first preposition, dash or bracket: what it is ("Prime
    Minister" of "Prime Minister of Canada", "Technical Interview" of "Technical Interview —
    2 Hour")."""
    words: list[str] = []
    for w in _CUT.split(part)[0].split():
        if w.lower() in PREPOSITIONS:
            break
        words.append(w)
    return words


_CUT = re.compile(r"\s[—–-]\s|[(:/]")


def _body(text: str, header: str) -> str:
    """The passage without the header line its text opens with."""
    first, _, rest = text.partition("\n")
    return rest if first.strip() == header.strip() else text


def _own(p: Phrase, kind: str) -> frozenset[str]:
    """The stems of `p` that qualify the kind: those before it when it ends the phrase
    ("learning budget"), or the code after it ("Form 630"); empty when `p` is not of the
    kind or says nothing more."""
    stems = p.stems
    if kind not in stems:
        return frozenset()
    i = stems.index(kind)
    if i == len(stems) - 1:
        return frozenset(stems[:i])
    after = stems[i + 1 :]
    return frozenset(stems[:i] + after) if all(_code(s) for s in after) else frozenset()


def _code(word: str) -> bool:
    return any(ch.isdigit() for ch in word)


def _name(p: Phrase) -> bool:
    """A name by its code ("Form 630", "SF-182"). (Capitals are no sign: "the Clef
    office" is the company's one office.)"""
    return any(_code(s) for s in p.stems)


_CAPITALISED_BEFORE = re.compile(r"(?:\b[A-Z][\w-]*\s+)+$")


def _surface(p: Phrase, text: str) -> str:
    """The phrase as the passage writes it, with the capitalised words right before it that
    the parse cut off ("Paid Parental Leave Request form", not "Request form")."""
    at = text.find(p.text)
    if at <= 0:
        return p.text
    m = _CAPITALISED_BEFORE.search(text[:at])
    if not (m and p.text[:1].isupper()):
        return p.text
    words = (m.group() + p.text).split()
    opens = (text[: m.start()].rstrip()[-1:] or ".") in ".!?:;"
    if opens and words[0].lower() not in FUNCTION_WORDS:
        return p.text  # "Complete OPM Form 630": a sentence's first word is no name's
    while words and words[0].lower() in FUNCTION_WORDS:
        words = words[1:]  # "The Paid Parental Leave Request form": no determiner
    return " ".join(words)
