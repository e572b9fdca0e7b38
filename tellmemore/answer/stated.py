"""Does one sentence of the evidence state the quantity the question asks for, about it?

"How many languages do they provide assistance in?" over passages on language support,
"what is the cost of restoring toolchain?" over one on restoring from a backup and another
with a price list: the documents hold the question's words and some figures, but no
sentence holds both, so no sentence answers it. A question for a quantity ("how many",
"how much", "how long") is answered by a sentence, list item or table row that states
one *and* speaks of what is asked; a figure elsewhere in the passage belongs to
something else.

`value_share` reads, over the units of the top five passages, the largest IDF-weighted
share of the question's focus words (`focus.candidates`, without the words that ask:
"how", "long", "price") that a unit stating a quantity holds (its passage's title and
section headings count as held: a table row under "Pricing > Lite plan"). A focus word
no chunk of the index uses is left out: no sentence can state a value about a word the
documents never write, so it only asks whether the documents speak of the subject at
all (the floor's and the phrase rule's question), and as the rarest word it outweighed
the rest: "I'm having a baby in the spring. How much paid leave do I get?" (no chunk
says "baby" or "spring") read 0.0 over "12 weeks of paid parental leave". The turn
abstains below `retrieval.min_value_share`: opt-in (0.0 by default), 0.5 chosen on one
MTRAG-UN domain and reported on the other, both ways (bench/results/stated_value.md).

Three readings keep an answerable question from abstaining (session 21, measured in
bench/results/stated_precision.md): a value phrase embedded in a clause another question
word opens is not what is asked ("how do I change how much I put in?" asks how); the unit
a quantity is counted in is the answer's, not its subject ("how many megabytes?" over
"5 GB"); and a word of a stating unit at least `retrieval.value_min_near` close to a
focus word holds it (MiniLM, word to word: "travel" and "flights", "vacation" and
"holidays"), since most of the rule's false abstentions were the documents' other
wording. Regular expressions over a few hundred short units, and the units' words
embedded once per process (`index.vector_cache`), only for a question asking a quantity.

Two more (session 22, bench/results/stated_subject.md): only the words of the question's
noun phrases weigh (`_subject`: "qualify", "retain", "last", "cure" ask, they are not
what the value is of), and a sentence saying the value has no bound ("however long you
serve", "no requirement", "unlimited") states it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from tellmemore.answer import answer_types
from tellmemore.answer.answer_types import AnswerType
from tellmemore.answer.focus import candidates
from tellmemore.answer.units import sentences
from tellmemore.conversation.text import content_words, stem
from tellmemore.index.base import Vector
from tellmemore.index.vector_cache import cache_for
from tellmemore.types import Hit, TermStats

log = logging.getLogger(__name__)

STATED_HITS = 5
"""Top passages whose units can state the value."""

KIND_NOUNS = {
    AnswerType.COUNT: "how many",
    AnswerType.PRICE: "how much",
    AnswerType.DURATION: "how long",
}
"""How an abstention names the value no sentence states ("nothing that says how many")."""


@dataclass(frozen=True)
class Stated:
    """What the question asks for and how close the evidence comes to stating it."""

    kind: AnswerType | None
    """The value kind asked for; None: the question asks for no value."""
    share: float
    """The largest share of the question's focus a unit stating such a value holds; 1.0
    when the question asks for no value (nothing to check)."""


_DIGIT = re.compile(r"\d")
"""Any figure states a value: "how long is the Great Wall?" asks for a length, "how fast
is India growing?" for a rate, "when did the universe begin?" is answered in billions of
years; the kinds' own cues ("free", "thirty days", "March") count as well."""


QUANTITIES = (AnswerType.COUNT, AnswerType.PRICE, AnswerType.DURATION)
"""The kinds checked: a quantity. Not a time: "when does the patent licence terminate?" is
answered by an event ("as of the date such litigation is filed"), not a date; with times
checked, answerable turns abstained on MTRAG-UN clapnq, on the licences and on MTRAG
(bench/results/behaviour.md, bench/results/abstention.md)."""


_NO_CHARGE = re.compile(
    r"\b(?:no|without) (?:extra |additional )?(?:cost|charge|fee)s?\b|\bfree of charge\b",
    re.IGNORECASE,
)
"""A price of nothing, as "free" is one ("provided to you at no cost"). Added after
MTRAG's answerable cloud turn "How much do the IBM Cloud Schematics templates cost?"
abstained over "... Workspaces are provided to you at no cost." (bench/results/
stated_value.md says so: MTRAG is then no longer a clean check for this pattern)."""


_UNBOUNDED = re.compile(
    r"\bunlimited\b|\bindefinite(?:ly)?\b|\bhowever (?:long|much|many|often)\b"
    r"|\bno (?:set |fixed |specific |hard |strict |minimum |maximum )?"
    r"(?:limit|cap|maximum|minimum|requirement|deadline|quota)s?\b"
    r"|\bnot (?:limited|capped|required)\b|\bwithout (?:a |any )?(?:limit|cap)s?\b"
    r"|\bas (?:much|many|long|often|soon|far)(?: \w+){0,2} as (?:possible|needed|necessary"
    r"|required|you (?:need|like|want|wish))\b|\bas needed\b",
    re.IGNORECASE,
)
"""A quantity stated as having no bound, or as what is needed: "You can receive Court
Leave for however long you serve on a jury" answers "how long can jury duty last?", "as
much notice as possible ... there is no requirement" answers "how much notice do I need
to give?", "unlimited" answers "how much time off?". These sentences state the value
the question asks about, without a figure."""


def states_quantity(text: str, kind: AnswerType) -> bool:
    """`text` states a quantity: a figure, or a cue of the asked kind or of any other
    quantity ("how much physical activity?" is answered by "one hour a day"), or no bound
    to it (`_UNBOUNDED`)."""
    if _DIGIT.search(text) or _NO_CHARGE.search(text):
        return True
    if _UNBOUNDED.search(text):
        return True
    kinds = (kind, AnswerType.DURATION, AnswerType.PRICE)  # a count's cues ("no", "one")
    return any(answer_types.holds(text, k) for k in dict.fromkeys(kinds))  # only its own


def asked_value(question: str) -> AnswerType | None:
    """The quantity `question` asks for ("how many", "how much", "how long"), or None."""
    return next((k for k in answer_types.asked_types(question) if k in QUANTITIES), None)


# fmt: off
MEASURE_UNITS = frozenset((
    "bytes", "kb", "mb", "gb", "tb", "kilobytes", "megabytes", "gigabytes", "terabytes",
    "bits", "kbps", "mbps", "gbps", "dollars", "euros", "pounds", "cents", "usd", "eur",
    "gbp", "percent", "percentage", "miles", "kilometers", "kilometres", "km", "meters",
    "metres", "feet", "inches", "kilograms", "kg", "grams", "lbs", "liters", "litres",
    "gallons",
))
# fmt: on
"""Units a quantity is counted in: they name the answer's unit, not what it is about. "How
many megabytes can I use each month?" is answered by "5 GB", a sentence without the word
(time units are generic nouns the focus leaves out already)."""

_WH = re.compile(r"\b(?:what|how|where|why|which|who|when)\b")
_CLAUSE_BREAK = re.compile(r"[.!?;,]|\b(?:and|or|but|also)\b")


def _embedded(question: str, kind: AnswerType) -> bool:
    """Every phrase asking for `kind` is embedded in a clause another question word opens:
    "how do I change how much I put in?" asks how, not how much. A phrase after a clause
    break ("What was the population then, and how many stay in each part?") or opening
    its clause ("can you tell me how much it costs?") asks for the value itself."""
    low = " ".join(question.lower().split())
    cues = answer_types.cue_spans(low, kind)
    if not cues:
        return False
    for start in cues:
        before = low[:start]
        breaks = list(_CLAUSE_BREAK.finditer(before))
        clause = before[breaks[-1].end() :] if breaks else before
        if not _WH.search(clause):
            return False
    return True


def checked_value(question: str) -> AnswerType | None:
    """The quantity `question` itself asks for (`asked_value`, not embedded), or None."""
    kind = asked_value(question)
    return None if kind is None or _embedded(question, kind) else kind


def _subject(question: str) -> list[str]:
    """The focus words that name what the value is of: those of the question's noun
    phrases. A value is a value of something; the verb that relates the asker to it
    ("earn", "qualify", "retain", "last", "cure") is how it is asked, and the documents
    state it with their own ("you receive", "to be eligible", "keep"). All focus words
    when no noun phrase holds one."""
    words = candidates(question) or content_words(question)
    from tellmemore.conversation.phrases import PREDICATES, phrases  # loads the lexicon

    held: set[str] = set()
    for p in phrases(question):
        said = p.text.lower().split()
        while len(said) > 1 and said[-1] in PREDICATES:  # "how long can time off to vote
            said.pop()  # last?": a predicate ends the run, the subject is "vote"
        held |= {stem(w) for w in said}
    nouns = [w for w in words if stem(w) in held]
    return nouns or words


def value_share(
    question: str,
    hits: Sequence[Hit],
    term_stats: Callable[[list[str]], TermStats] | None,
    embed: Callable[[list[str]], Vector] | None = None,
    *,
    min_near: float = 1.01,
    enough: float = 1.0,
) -> Stated:
    """`Stated` of `question` over the top `hits` (see the module docstring); with
    `embed`, a focus word a unit does not hold counts as held when a word of the unit (or
    of its headings) is at least `min_near` close to it (MiniLM, word to word). The near
    words are read only when the stems alone hold less than `enough` (the threshold the
    caller compares with: a share above it decides nothing more)."""
    kind = checked_value(question)
    if kind is None:
        return Stated(None, 1.0)
    cue = answer_types.cue_words(question, kind) | MEASURE_UNITS
    words = [w for w in _subject(question) if w not in cue]
    words = list(dict.fromkeys(words))
    if not words:
        return Stated(kind, 1.0)
    weight = {w: v for w, v in _weights(words, term_stats).items() if v is not None}
    if not weight:
        return Stated(kind, 1.0)  # the documents use none of its words: not for this rule
    total = sum(weight.values()) or 1.0
    stems = {w: stem(w) for w in words}
    units: list[list[str]] = []
    for h in hits[:STATED_HITS]:
        c = h.chunk
        heading = content_words(f"{c.title} {' '.join(c.section)} {c.header}")
        for text in sentences(c.text, c.header):
            if states_quantity(text, kind):
                units.append([*heading, *content_words(text)])
    close: dict[str, set[str]] = {w: set() for w in weight}
    best = _best(units, weight, stems, close) / total
    if best < min(enough, 1.0):  # only then are the near words worth embedding
        close = _close_words(embed, list(weight), units, stems, min_near)
        best = _best(units, weight, stems, close) / total
    return Stated(kind, min(best, 1.0))


def _best(
    units: Sequence[Sequence[str]],
    weight: dict[str, float],
    stems: dict[str, str],
    close: dict[str, set[str]],
) -> float:
    """The largest weight of focus words one unit holds, by stem or by a close word."""
    best = 0.0
    for unit in units:
        held, words_of = {stem(w) for w in unit}, set(unit)
        best = max(
            best, sum(v for w, v in weight.items() if stems[w] in held or close[w] & words_of)
        )
    return best


def _close_words(
    embed: Callable[[list[str]], Vector] | None,
    words: Sequence[str],
    units: Sequence[Sequence[str]],
    stems: dict[str, str],
    min_near: float,
) -> dict[str, set[str]]:
    """Each focus word's close words among the units' words (MiniLM cosine >= `min_near`,
    word to word): "travel" and "flights", "vacation" and "holidays". Empty sets without
    an embedder, above 1.0, or for a word every unit holds."""
    close: dict[str, set[str]] = {w: set() for w in words}
    vocabulary = sorted({u for unit in units for u in unit if any(ch.isalpha() for ch in u)})
    held = [{stem(u) for u in unit} for unit in units]
    lost = [w for w in words if any(stems[w] not in h for h in held)]
    if embed is None or min_near > 1.0 or not lost or not vocabulary:
        return close
    vectors = cache_for(embed).get(embed, [*lost, *vocabulary])
    sims = np.asarray(vectors[len(lost) :] @ vectors[: len(lost)].T)
    for i, w in enumerate(lost):
        close[w] = {v for j, v in enumerate(vocabulary) if sims[j, i] >= min_near}
    return close


def _weights(
    words: Sequence[str], term_stats: Callable[[list[str]], TermStats] | None
) -> dict[str, float | None]:
    """Each word's IDF in the index (a rare word says more about what is asked), None for
    a word no chunk holds; 1.0 each when the index cannot count words."""
    if term_stats is None:
        return {w: 1.0 for w in words}
    try:
        stats = term_stats(list(words))
    except Exception:  # an index that cannot count words must not cost the turn
        log.warning("term statistics failed; the question's words weigh the same", exc_info=True)
        return {w: 1.0 for w in words}
    return {w: stats.idf(w) if stats.df.get(w, 0) > 0 else None for w in words}


def lacking(stated: Stated) -> str:
    """What the abstention says the documents lack: "that says how many"."""
    noun = KIND_NOUNS.get(stated.kind, "the value") if stated.kind else "the value"
    return f"that says {noun}"
