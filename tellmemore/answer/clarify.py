"""Ask back when the top passages are about several subjects and nothing picks one.

"When was the famous basketball player born?" finds passages on LeBron James, Kobe
Bryant and Pete Maravich; "How wealthy is this county of California?" finds several
counties. The question fits each of them, and neither the question nor the conversation
names one. The resolver's clarification (`conversation`) works from the history; this one
works from the documents, after retrieval: its options are the subjects of the passages.

Features (`judge` weighs them with a fitted scorer; precision over recall):

- `subjects`: how many distinct subjects the top passages have (a subject is a title, or
  the first section when the passages share one title);
- `unnamed`: the share of those subjects the conversation never names (their own words,
  those the subjects do not share, are absent from the message and the history);
- `top_unnamed`: the best passage's subject is not named;
- `referent`: the message points at something ("this county", "the actor", "it") and the
  resolver bound nothing;
- `cos`: the best cosine on the index's own scale;
- `first_turn`: no history;
- `rarity`: how rare (normalised IDF) the message's rarest word is: "the famous basketball
  player" names nobody, "LeBron James" does;
- `runner_up`: how close the best passage of another subject comes to the best one;
- `same_kind`: how many unnamed subjects share a word of the message ("this language"
  over "Spanish language" and "Italian language").

The question reads "Do you mean A, B or C?", so the existing reply path
(`conversation.realize.clarify.parse_clarification`) answers the original question with the
chosen subject.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tellmemore.answer import qualified, vague
from tellmemore.answer.unanchored import Description, bare_kinds, named_kinds, unanchored
from tellmemore.answer.units import sentences
from tellmemore.conversation.phrases import PREPOSITIONS
from tellmemore.conversation.realize.clarify import parse_clarification
from tellmemore.conversation.referents import find_referents
from tellmemore.conversation.text import content_words, stem
from tellmemore.types import Hit, Resolution, TermStats, Turn

FEATURES = (
    "subjects",
    "unnamed",
    "top_unnamed",
    "referent",
    "first_turn",
    "rarity",
    "runner_up",
    "same_kind",
)
"""What the shipped clarify scorer reads (`cos` is measured, not read: bench/results/
behaviour.md)."""
TOP = 5
"""Passages whose subjects are compared."""
MAX_OPTIONS = 3


@dataclass(frozen=True)
class Subject:
    name: str
    stems: frozenset[str]
    rank: int


def _stems(text: str) -> frozenset[str]:
    words = content_words(text) + [w for w in text.split() if w.isdigit()]
    return frozenset(stem(w) for w in words)


def _names(hits: Sequence[Hit], kind: str = "") -> list[str]:
    """Each hit's subject, a name the user can tell from the others': its title, or its
    first section when all hits share one title (one handbook, several policies) and
    the kind asked about is not what the title names ("which license?" over licences
    all titled "GNU GENERAL PUBLIC LICENSE" asks for the document, not its "Preamble");
    qualified by the document's path when distinct documents read the same
    ("Parks (alameda)", "Parks (ventura)"); "" for a passage with nothing to call it by."""
    # an untitled passage with an opaque id ("ibmcld_04178-7-2164") names nothing to offer
    titles = [_title(h.chunk.title, h.chunk.doc_id) for h in hits]
    head = _head(kind)
    by_section = len({t.lower() for t in titles}) == 1 and not (head and head in _stems(titles[0]))
    keys: list[tuple[str, str]] = []
    for h, t in zip(hits, titles, strict=True):
        section = h.chunk.section[0].strip() if by_section and h.chunk.section else ""
        keys.append((section or t, _path(h.chunk.doc_id)))
    return [_qualified(k, keys) for k in keys]


def _title(title: str, doc_id: str) -> str:
    """The title a user can read: not a record id standing in for a missing one (a JSONL
    record without a title is titled by its id)."""
    title = title.strip()
    if title and not (title == doc_id and not _path(doc_id) and _opaque(title)):
        return title
    return _path(doc_id)


def _opaque(text: str) -> bool:
    return " " not in text and any(ch.isdigit() for ch in text)


def _path(doc_id: str) -> str:
    """A document id that reads as a file path ("alameda/parks.md"), without its
    extension; "" for an opaque id (one passage of many of an article)."""
    if "/" not in doc_id and not _EXTENSION.search(doc_id):
        return ""
    return _EXTENSION.sub("", doc_id.strip("/"))


_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,4}$")


def _qualified(key: tuple[str, str], keys: Sequence[tuple[str, str]]) -> str:
    """The name, qualified by the first part of its document's path that differs when
    another document's subject reads the same."""
    name, path = key
    others = [k[1] for k in keys if k[0].lower() == name.lower() and k[1] and k[1] != path]
    if not path or not others:
        return name  # nothing the user could tell them apart by: one subject
    parts = path.split("/")
    for i, part in enumerate(parts):
        if any(o.split("/")[i : i + 1] != [part] for o in others):
            return f"{name} ({part})"
    return f"{name} ({path})"


def _kind_words(kind: str) -> set[str]:
    """The stems of a description's lower-case words: they say what kind of subject is
    meant ("this language", "the fast food chain") and name none; a capitalised one is
    a name that picks one ("the BSD license")."""
    return {stem(w) for w in kind.split() if w.islower()} & set(_stems(kind))


def _head(kind: str) -> str:
    """The stem of a description's last word: the kind of thing it asks about."""
    words = content_words(kind)
    return stem(words[-1]) if words else ""


def subjects(hits: Sequence[Hit], top: int = TOP, kind: str = "") -> list[Subject]:
    """Distinct subjects of the top hits, best first (`_names`; `kind`: the description
    asked about)."""
    hits = list(hits[:top])
    head = _head(kind)
    out: dict[str, tuple[Subject, Hit]] = {}
    for h, name in zip(hits, _names(hits, kind), strict=True):
        key = name.lower()
        if key and key not in out and (not head or _speaks_of(h, head)):
            out[key] = (Subject(name, _stems(name), h.rank), h)
    if not head or not out:
        return [s for s, _ in out.values()]
    shared = frozenset.intersection(*(s.stems for s, _ in out.values()))
    return [s for s, h in out.values() if _one_of_the_kind(s, h, head, shared)]


def _one_of_the_kind(subject: Subject, hit: Hit, head: str, shared: frozenset[str]) -> bool:
    """The subject is a thing of the kind asked about, not a topic that mentions it: its
    name holds the kind ("Ventura County" for "this county"), or its passage says it is
    one ("Kobe Bryant was an American professional basketball player": a word of the
    name, a copula, then the kind). A handbook's "Continuing Education" and "Referral
    Bonuses" both speak of "the company" and are no companies to choose among. Words
    every subject shares ("Clef" of "Clef Policies" and "Welcome to Clef") tell none
    apart. (Telling a proper name by its capitals was tried: title-case link lists and
    tables of contents make every topic title look like one.)"""
    if head in subject.stems:
        return True
    own = subject.stems - shared
    for sentence in sentences(hit.chunk.text) if own else ():
        m = _COPULA.search(sentence)
        said = {stem(w) for w in content_words(sentence[m.end() :])} if m else set()
        if m and head in said and own & {stem(w) for w in content_words(sentence[: m.start()])}:
            return True
    return False


_COPULA = re.compile(r"\b(?:is|was|are|were)\s+(?:an?|the|one of)\b", re.IGNORECASE)


def _speaks_of(hit: Hit, head: str) -> bool:
    """The passage speaks of the kind asked about (its stem in the title, section path or
    text): "which pass?" fits the bike rental's day pass, not the cloud plans beside it in
    the top passages, so a kind only one subject speaks of is not asked about."""
    chunk = hit.chunk
    return head in _stems(" ".join((chunk.title, *chunk.section, chunk.text)))


def _named(subject: Subject, shared: frozenset[str], said: set[str]) -> bool:
    own = subject.stems - shared or subject.stems
    return bool(own) and len(own & said) * 2 >= len(own)


def features(
    message: str,
    history: Sequence[Turn],
    resolution: Resolution,
    hits: Sequence[Hit],
    cos: float,
    term_stats: Callable[[list[str]], TermStats] | None = None,
) -> dict[str, float]:
    found = subjects(hits)
    said = set(_stems(message)) | {s for t in history for s in _stems(t.content)}
    shared = frozenset.intersection(*(s.stems for s in found)) if found else frozenset()
    unnamed = [s for s in found if not _named(s, shared, said)]
    referent = bool(find_referents(message)) and not resolution.bindings
    return {
        "subjects": float(len(found)),
        "unnamed": len(unnamed) / len(found) if found else 0.0,
        "top_unnamed": 1.0 if found and found[0] in unnamed else 0.0,
        "referent": 1.0 if referent else 0.0,
        "cos": cos,
        "first_turn": 0.0 if history else 1.0,
        "rarity": _rarity(message, term_stats),
        "runner_up": _runner_up(hits, found),
        "same_kind": float(_same_kind(message, unnamed)),
    }


def _same_kind(message: str, unnamed: Sequence[Subject]) -> int:
    """How many unnamed subjects are of a kind the message names: "this language" over
    "Spanish language" and "Italian language", "the TV series" over "Heartland (TV
    series)" and "The Path (TV series)": the question fits each of them."""
    asked = _stems(message)
    return max((sum(w in s.stems for s in unnamed) for w in asked), default=0)


def _rarity(message: str, term_stats: Callable[[list[str]], TermStats] | None) -> float:
    words = sorted({stem(w) for w in content_words(message)})
    if not words or term_stats is None:
        return 0.0
    try:
        stats = term_stats(words)
    except Exception:
        return 0.0
    top = math.log(1.0 + (max(stats.n_chunks, 1) + 0.5) / 0.5)
    return min(1.0, max(stats.idf(w) for w in words) / top)


def _runner_up(hits: Sequence[Hit], found: Sequence[Subject]) -> float:
    """The best cosine of the second subject minus the best one's (0: a tie; -1 when
    only one subject)."""
    if len(found) < 2:
        return -1.0
    top = list(hits[:TOP])
    best: dict[str, float] = {}
    for h, name in zip(top, _names(top), strict=True):
        if h.dense is not None:
            best[name.lower()] = max(best.get(name.lower(), 0.0), h.dense)
    first, second = found[0].name.lower(), found[1].name.lower()
    return best.get(second, 0.0) - best.get(first, 0.0)


def options(
    message: str, history: Sequence[Turn], hits: Sequence[Hit], kind: str = ""
) -> list[str]:
    """The subjects to offer: distinct, not named in the conversation, best first.
    `kind`: the description asked about ("this language"): its words say what kind of
    subject is meant, they name none ("Spanish language" is offered)."""
    offered = [s.name for s in _unnamed(message, history, hits, kind)]
    # a name holding "," or " or " would read as two options when the reply is parsed
    return [o for o in offered if "," not in o and " or " not in f" {o.lower()} "][:MAX_OPTIONS]


def _unnamed(
    message: str, history: Sequence[Turn], hits: Sequence[Hit], kind: str
) -> list[Subject]:
    found = subjects(hits, kind=kind)
    said = (set(_stems(message)) - _kind_words(kind)) | {
        s for t in history for s in _stems(t.content)
    }
    shared = frozenset.intersection(*(s.stems for s in found)) if found else frozenset()
    return [s for s in found if not _named(s, shared, said)]


def picked(message: str, history: Sequence[Turn], hits: Sequence[Hit], kind: str = "") -> bool:
    """The conversation picked one of the top passages' subjects: an earlier turn named
    it, or the message names it in full ("When was the famous player Kobe Bryant
    born?"); a subject only half named by the message's topic words ("Economy of India"
    for "does this chain operate in India?") is no pick."""
    found = subjects(hits, kind=kind)
    before = {s for t in history for s in _stems(t.content)}
    shared = frozenset.intersection(*(s.stems for s in found)) if found else frozenset()
    said = set(_stems(message)) - _kind_words(kind)
    described = _stems(kind)  # "the day pass" is the subject titled "Day pass"
    return any(
        _named(s, shared, before)
        or (s.stems - shared and s.stems - shared <= said)
        or (s.stems and s.stems <= described)
        for s in found
    )


def question(choices: Sequence[str], kind: str = "") -> str:
    """ "Do you mean A, B or C?" after a sentence saying why it asks ("Which player?
    The documents speak of several.")."""
    joined = choices[0] if len(choices) == 1 else ", ".join(choices[:-1]) + " or " + choices[-1]
    why = (
        f"Which {kind}? The documents speak of several."
        if kind
        else "The documents speak of several things this could be about."
    )
    return f"{why} Do you mean {joined}?"


def just_asked(history: Sequence[Turn]) -> bool:
    """The last answer was a clarifying question: never ask twice in a row."""
    last = next((t for t in reversed(history) if t.role == "assistant"), None)
    return last is not None and parse_clarification(last.content) is not None


SUBJECTS_TO_ASK = 2
"""Distinct subjects the top passages must have for a description nothing picks out to
be asked about (bench/results/clarify_detect.md: chosen on MTRAG-UN clapnq)."""
MAX_SHARED = 0.5
"""The largest share of the message's words the conversation may have used before: a
"the" description in a message mostly about what the conversation already speaks of
points back, however it is worded (a demonstrative, "this county", needs no such
check). Chosen with SUBJECTS_TO_ASK on MTRAG-UN clapnq."""


@dataclass(frozen=True)
class Unanchored:
    """A description nothing in the conversation picks out, and what the passages offer
    (`unanchored_evidence`)."""

    description: str
    head: str
    """The kind of thing it describes ("player" of "the famous basketball player")."""
    demonstrative: bool
    subjects: int
    """Distinct subjects (titles) of the top passages."""
    shared: float
    """The share of the message's content words the conversation used before."""
    bound: bool
    """The resolver bound a referent of the message to something said before."""

    def asks(self, min_subjects: int = SUBJECTS_TO_ASK, max_shared: float = MAX_SHARED) -> bool:
        """Several subjects fit it and nothing in the conversation picks one."""
        return (
            not self.bound
            and self.subjects >= min_subjects
            and (self.demonstrative or self.shared <= max_shared)
        )

    def as_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


def unanchored_evidence(
    message: str, history: Sequence[Turn], resolution: Resolution, hits: Sequence[Hit]
) -> Unanchored | None:
    """The description of `message` nothing said picks out (a demonstrative first), with
    the evidence of the top passages; None when every description points back or is
    unique by itself (`answer.unanchored`)."""
    found = unanchored(message, history)
    if not found:
        return None
    named = {s for subject in subjects(hits) for s in subject.stems}
    d = next(
        (d for d in found if d.demonstrative),
        next((d for d in found if stem(d.head) in named), found[0]),
    )  # "the income in the county" over three counties: "the county" is asked about
    top = subjects(hits, kind=d.text)
    own = [stem(w) for w in content_words(message)]
    before = {s for t in history for s in _stems(t.content)}
    shared = sum(w in before for w in own) / len(own) if own else 0.0
    return Unanchored(
        d.text,
        d.head,
        d.demonstrative,
        len(top),
        shared,
        bool(resolution.bindings),
    )


def ask_back(
    message: str,
    history: Sequence[Turn],
    resolution: Resolution,
    hits: Sequence[Hit],
    read_text: bool = False,
) -> tuple[str, tuple[str, ...]] | None:
    """The clarifying question and its options when the message describes a kind of
    thing nothing in the conversation picks out and the top passages are about several
    such things ("When was the famous basketball player born?"); None otherwise, and
    never right after a clarifying question. `read_text` (`retrieval.ask_from_text`):
    also a bare noun the passages' text names several things of (`ask_qualified`)."""
    if just_asked(history):
        return None
    found = unanchored_evidence(message, history, resolution, hits)
    if found is None or not found.asks():
        return (
            ask_titled(message, history, resolution, hits)
            or ask_vague(message, history, resolution, hits)
            or (ask_qualified(message, history, resolution, hits) if read_text else None)
        )
    if picked(message, history, hits, found.description):
        return None
    choices = options(message, history, hits, found.description)
    if len(choices) < 2:
        return None
    return question(choices, found.head), tuple(choices)


def ask_vague(
    message: str, history: Sequence[Turn], resolution: Resolution, hits: Sequence[Hit]
) -> tuple[str, tuple[str, ...]] | None:
    """`answer.vague`: a first question that points at nothing, or asks for a quantity
    in words every top subject's passages share, over two or more subjects none of
    which it names."""
    why = vague.candidate(message, history, resolution)
    found = subjects(hits) if why else []
    if len(found) < 2 or picked(message, history, hits):
        return None
    if why == "quantity":
        top = list(hits[:TOP])
        shared = frozenset.intersection(*(s.stems for s in found))
        if not vague.spread(message, top, _names(top), found[0].stems - shared):
            return None
    choices = options(message, history, hits)
    return (question(choices), tuple(choices)) if len(choices) >= 2 else None


def titled(hits: Sequence[Hit], d: Description) -> tuple[str, list[Subject]]:
    """The kind a capitalised or qualified description names and the top subjects whose
    titles hold all its words ("the Prime Minister": "Prime Minister of Canada" and "...
    of the United Kingdom"; "the season of Grey's Anatomy": "Grey's Anatomy (season 9)"
    and "(season 14)"); ("", []) when fewer than two do, or one is called by these words
    alone (then the description names it). A possessive's noun may be the thing's own
    ("the Prime Minister's office"): the words before it are tried too."""
    found = subjects(hits)
    tries = [d.words + d.qualifier] if d.complement else []
    if d.possessive:
        tries += [d.words + d.qualifier[:k] for k in range(len(d.qualifier), -1, -1)]
    for words in tries or [d.words]:
        want = _stems(" ".join(words))
        head = d.head if d.complement else words[-1]
        held = [s for s in found if want <= s.stems and stem(head) in _headed(s.name)]
        if len(held) >= 2 and not any(s.stems <= want for s in found):
            return head, held
    return "", []


def _headed(name: str) -> frozenset[str]:
    """The stems of a title before its first preposition: what the title is ("Prime
    Minister" of "Prime Minister of Canada", all of "Grey's Anatomy (season 9)"). "History
    of the United States" is a history: it holds "the United States" and is none."""
    words = name.split()
    cut = next((i for i, w in enumerate(words) if w.lower() in PREPOSITIONS), len(words))
    return _stems(" ".join(words[:cut]))


def ask_titled(
    message: str, history: Sequence[Turn], resolution: Resolution, hits: Sequence[Hit]
) -> tuple[str, tuple[str, ...]] | None:
    """A name or a qualified description several top subjects are called by, none of which
    the conversation names (`titled`): "Which minister? ... Prime Minister of Canada or
    Prime Minister of the United Kingdom?". As `ask_back`: never when the resolver bound a
    referent, and for "the" at most `MAX_SHARED` of the message's words said before."""
    if resolution.bindings:
        return None
    own = [stem(w) for w in content_words(message)]
    before = {s for t in history for s in _stems(t.content)}
    shared = sum(w in before for w in own) / len(own) if own else 0.0
    said = set(_stems(message)) | before
    for d in named_kinds(message, history):
        if not d.demonstrative and shared > MAX_SHARED:
            continue
        head, held = titled(hits, d)
        if not held:
            continue
        common = frozenset.intersection(*(s.stems for s in held))
        if any(_named(s, common, said) for s in held):
            return None  # the conversation or the message picks one
        choices = [s.name for s in held if "," not in s.name and " or " not in s.name.lower()]
        if len(choices) >= 2:
            return question(choices[:MAX_OPTIONS], head), tuple(choices[:MAX_OPTIONS])
    return None


def ask_qualified(
    message: str, history: Sequence[Turn], resolution: Resolution, hits: Sequence[Hit]
) -> tuple[str, tuple[str, ...]] | None:
    """A bare noun the top passages' text names several things of, in two or more of their
    sections (`answer.qualified`), none of which the conversation names: "Which budget? ...
    learning budget or equipment budget?". As `ask_titled`: never when the resolver bound
    a referent, nor when more than `MAX_SHARED` of the message's words were said before.
    A thing named only by its section counts on a first question: a follow-up's bare noun
    is of the conversation's topic (as `answer.vague`)."""
    if resolution.bindings:
        return None
    own = [stem(w) for w in content_words(message)]
    before = {s for t in history for s in _stems(t.content)}
    if own and sum(w in before for w in own) / len(own) > MAX_SHARED:
        return None
    said = set(_stems(message)) | before
    for d in bare_kinds(message, history):
        found = qualified.things(hits, d.head, sections=not history)
        if any(t.own & said for t in found):
            return None  # the conversation or the message says which
        if all(t.by_section for t in found):
            continue  # only sections that say the kind bare: no sign it comes in several
        kept: dict[str, str] = {}  # one thing per section
        for t in found:
            if "," not in t.text and " or " not in f" {t.text.lower()} ":
                kept.setdefault(t.section, t.text)
        if len(kept) < 2:
            continue
        choices = tuple(list(kept.values())[:MAX_OPTIONS])
        return question(choices, d.head), choices
    return None
