"""Tokenising helpers shared by decide, gate, binding and the resolvers.

Deliberately tiny and dependency-free: the embedded resolver must stay around a
millisecond, so there is no tagger here, only word lists and regular expressions.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from tellmemore.conversation import constants as C

_WORD = re.compile(r"[^\W_](?:[\w'’./+&-]*[^\W_])?(?:(?<=\d),\d{3}(?!\d)(?:[\w'’./+&-]*[^\W_])?)*")
"""A word, a code ("ERR-4021", "v6.15.0", "4-hour") or a number ("1,500" is one);
inner punctuation kept. The thousands comma is tried only where a word ends, so the
common case costs what the plain pattern did (a per-character alternative cost 45%)."""

MONTHS = frozenset(
    """
        january february march april may june july august september october november
        december jan feb mar apr jun jul aug sep sept oct nov dec
        """.split()  # noqa: SIM905 - a word list reads better as text
)

FUNCTION_WORDS = frozenset(
    """
        a an the and or but nor so yet if then else than as of at by for from in into on
        onto to up down out off over under with without about above below between
        through during before after since until till upon within across along around
        among per via vs versus i me my mine myself we us our ours ourselves you your
        yours yourself yourselves he him his himself she her hers herself it its itself
        they them their theirs themselves this that these those here there which who
        whom whose what when where why how whether am is are was were be been being do
        does did doing done have has had having can could will would shall should may
        might must need ought not no yes very too also just only even still really quite
        rather much many more most some any all each every both either neither few less
        least lot lots such same own other another one ones s t don doesn didn isn aren
        wasn weren won wouldn couldn shouldn can't don't doesn't didn't isn't aren't
        wasn't weren't won't wouldn't couldn't shouldn't i'm i've i'd i'll you're you've
        you'd you'll we're we've they're they've it's that's what's where's who's how's
        there's here's let's please thanks thank hi hello hey ok okay well oh yeah sure
        like tell know want wanted get got give say said explain describe mean means
        meant something anything everything nothing thing things stuff way kind sort
        type bit question questions answer answers info information detail details
        example examples again now also else ever never always often sometimes usually
        overall however actually basically generally especially particularly probably
        maybe perhaps apart besides aside because although though while whereas whilst
        unless
        """.split()  # noqa: SIM905 - a word list reads better as text
)
"""Words that carry no subject of their own (stopwords plus conversational filler)."""

COMMON_VERBS = frozenset(
    """
        add adds added use uses used using work works worked make makes made making go
        goes went take takes took taken come comes came see sees saw seen look looks
        find finds found run runs ran set sets cover covers covered include includes
        included provide provides provided offer offers offered allow allows allowed
        support supports supported require requires required apply applies applied help
        helps helped happen happens happened change changes changed create creates
        created keep keeps kept let lets put puts call calls called start starts started
        stop stops stopped become becomes became show shows shown try tries tried pay
        pays paid cost costs buy buys bought leave leaves left move moves moved play
        plays played live lives lived believe think thinks thought feel feels seem seems
        seemed route routes routed mention mentioned contain contains contained enable
        enables enabled affect affects affected cause causes caused consider considered
        depend depends depended vary varies varied differ differs differed need needs
        needed
        """.split()  # noqa: SIM905 - a word list reads better as text
)
"""Frequent verbs: phrase breakers for the noun-phrase chunker (no tagger at this speed)."""


GENERIC_NOUNS = frozenset(
    """
    time times week weeks year years month months day days today tomorrow yesterday
    people person thing things way ways lot lots part parts kind kinds type types
    number numbers case cases point points fact facts place places reason reasons
    example examples question questions answer answers idea ideas problem problems
    weekend weekends holiday holidays hour hours minute minutes night nights morning
    mornings afternoon afternoons evening evenings weekday weekdays
    """.split()  # noqa: SIM905 - a word list reads better as text
)
"""Nouns too generic to be what a pronoun points at when they stand alone."""

AUXILIARIES = frozenset(
    """
    is are was were be been am do does did can could will would should shall may might
    must have has had
    """.split()  # noqa: SIM905 - a word list reads better as text
)
"""Auxiliary verbs: a message holding one is a clause, not a bare fragment."""

RELATIONAL_NOUNS = frozenset(
    """
    maximum minimum max min limit limits price prices cost costs fee fees total average
    amount size length duration rate rates deadline difference
    """.split()  # noqa: SIM905 - a word list reads better as text
)
"""Nouns that name an attribute of something else ("what's the maximum?", "the price?"):
however rare in the documents, alone they are no subject of their own."""


@dataclass(frozen=True)
class Token:
    """One word of a text with its character span, so rewrites can splice the original."""

    text: str
    start: int
    end: int

    @property
    def low(self) -> str:
        return self.text.lower()


_CITATION = re.compile(r"\s*\[\d{1,3}\]")
"""A "[2]" citation marker of an answer: no word of the conversation."""


def strip_citations(text: str) -> str:
    """`text` without "[n]" markers, which hide sentence ends from the splitter. A marker
    between two words leaves a space: "Frankfurt[1]Berlin" is two words, not one."""
    if "[" not in text:
        return text
    return _CITATION.sub(lambda m: " " if _joins_words(text, m) else "", text)


def _joins_words(text: str, m: re.Match[str]) -> bool:
    return (
        m.start() > 0
        and m.end() < len(text)
        and text[m.start() - 1].isalnum()
        and text[m.end()].isalnum()
    )


def tokenize(text: str) -> list[Token]:
    """Words, codes and numbers of `text` with their spans (never raises)."""
    return [Token(m.group(0), m.start(), m.end()) for m in _WORD.finditer(text)]


def words(text: str) -> list[str]:
    """Lower-cased words of `text`, possessive "'s" removed."""
    if len(text) > C.CACHE_MAX_CHARS:  # a huge message is read once: keep nothing of it
        return [norm(t.text) for t in tokenize(text)]
    return list(_words(text))


@functools.lru_cache(maxsize=4096)
def _words(text: str) -> tuple[str, ...]:
    """Cached: every turn re-reads the same history turns for their words."""
    return tuple(norm(t.text) for t in tokenize(text))


def norm(word: str) -> str:
    """Lower case, curly apostrophes straightened, possessive "'s" removed."""
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    return w


def stem(word: str) -> str:
    """A light plural-stripping stem, enough to match "tiers" with "tier" across turns."""
    w = norm(word)
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 3 and w.endswith("es") and w[-3] in "sxz":
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss") and not w.endswith("us"):
        return w[:-1]
    return w


def is_content(word: str) -> bool:
    """A word that can name a subject: not a function word, not pure punctuation."""
    w = norm(word)
    return bool(w) and w not in FUNCTION_WORDS


def content_words(text: str) -> list[str]:
    return [w for w in words(text) if w not in FUNCTION_WORDS]


def is_protected(token: str) -> bool:
    """Codes, numbers, dates and acronyms: kept exactly through any rewrite (seed 002)."""
    if any(c.isdigit() for c in token):
        return True
    letters = [c for c in token if c.isalpha()]
    if len(letters) >= 2 and all(c.isupper() for c in letters):
        return True
    return token[:1].isupper() and token.lower() in MONTHS


def protected_tokens(text: str) -> list[str]:
    """The tokens of `text` that a rewrite must keep verbatim."""
    return [t.text for t in tokenize(text) if is_protected(t.text)]


def missing_protected(message: str, query: str) -> list[str]:
    """Protected tokens of `message` absent from `query` (exact, case-sensitive)."""
    have = {t.text for t in tokenize(query)}
    return [t for t in protected_tokens(message) if t not in have]


def looks_plural(word: str) -> bool:
    """A plural "s" at the end ("plans", not "class", "status", "analysis"): number
    agreement and "one" -> head noun, guessed without a lexicon. An acronym's capital S
    is no plural ("MLS", "GPS"); its lower-case one is ("VMs")."""
    if len(word) > 1 and word.isupper():
        return False
    low = word.lower()
    return low.endswith("s") and not low.endswith(("ss", "us", "is"))


def surface_form(phrase: str, texts: Iterable[str]) -> str:
    """The best-cased occurrence of `phrase` in `texts` ("cloud connect" -> "Cloud Connect").

    Users type lower case; the assistant's answer or the documents usually carry the
    proper casing, which reads better in "Searching for: ..." and matches nothing worse.
    """
    # not inside a code: "Pro" is not cased as "PRO" from "CC-PRO-2026"
    pattern = re.compile(r"(?<![\w-])" + re.escape(phrase) + r"(?![\w-])", re.IGNORECASE)
    best, best_upper = phrase, sum(c.isupper() for c in phrase)
    for text in texts:
        for m in pattern.finditer(text):
            upper = sum(c.isupper() for c in m.group(0))
            if upper > best_upper and not _opens_sentence(text, m.start(), m.group(0)):
                best, best_upper = m.group(0), upper
    return best


_SENTENCE_START = re.compile(r"(?:^|[.!?;]\s+|\n\s*(?:[-*+]\s+|\d+[.)]\s+)?)$")
"""Where a capital is the position's: a sentence, a list item, a table row's next label
("Plan: Pro; Sites included: 10")."""


def _opens_sentence(text: str, start: int, found: str) -> bool:
    """ "Damage reported in the app ...": a capital that only opens a sentence says
    nothing of how the word is written (a single capital, at a sentence start)."""
    if sum(c.isupper() for c in found) != 1 or not found[:1].isupper():
        return False
    return _SENTENCE_START.search(text[max(0, start - 8) : start]) is not None


TIME_WORDS = frozenset(
    """
        weekday weekdays weekend weekends holiday holidays today tomorrow tonight morning
        mornings afternoon afternoons evening evenings night nights monday mondays tuesday
        tuesdays wednesday wednesdays thursday thursdays friday fridays saturday saturdays
        sunday sundays christmas easter summer winter spring autumn daytime
        """.split()  # noqa: SIM905 - a word list reads better as text
)
"""Days, parts of the day, seasons: a qualifier "on weekends" adds to a question, and the
"it" of "it's a weekend" points at no thing."""
