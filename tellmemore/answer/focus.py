"""What the question asks about that the documents do not hold.

A question's focus is its content words: a gym membership, a phone stipend, the fine in
Germany. Close vectors do not make a passage about it ("do we get a gym membership
reimbursement?" sits at cosine 0.45 to the health reimbursement), but its words do: a
focus word that

- no top passage holds (by stem, headings included),
- few or no chunks of the whole index hold (its document frequency: the index does not
  speak of it anywhere, so a better ranking would not find it either), and
- no word of the top passages is close to (MiniLM, word against word: "quit" over a
  passage that says "resign" is held, at 0.65),

is missing from the documents, and the turn says so, naming it. The thresholds
(`retrieval.focus_max_share`, `retrieval.focus_min_near`) were chosen on MTRAG's
answerable turns and one MTRAG-UN domain, and reported on the other and on real
documents (bench/focus_coverage.py, bench/results/focus_coverage.md).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tellmemore.analysis import lexicon
from tellmemore.conversation.text import FUNCTION_WORDS, content_words, stem
from tellmemore.index.base import Vector
from tellmemore.index.vector_cache import cache_for
from tellmemore.types import Hit, TermStats

log = logging.getLogger(__name__)

FOCUS_HITS = 5
"""Top passages whose words count as held."""
MAX_VOCABULARY = 600
"""Distinct passage words compared against a missing word at most (the most frequent)."""
NOT_FOCUS = lexicon.words("not_focus")
"""Words a question uses to ask, not to name what it asks about ("tell", "possible")."""
_SKIP = (
    lexicon.words("common_verbs")
    | lexicon.words("generic_nouns")
    | lexicon.words("auxiliaries")
    | lexicon.words("question_words")
    | lexicon.words("interjections")
    | lexicon.words("reaction_words")
    | lexicon.words("number_words")
    | NOT_FOCUS
)


@dataclass(frozen=True)
class FocusWord:
    """One focus word of the question no top passage holds."""

    word: str
    share: float
    """The share of the index's chunks that hold it (0.0: none)."""
    near: float
    """The best cosine between it and a word of the top passages."""
    named: bool = False
    """Written as a name (capitalised inside the sentence, or an acronym): a passage about
    Mozilla is not about Firefox, however close the two words' vectors are."""
    in_phrase: bool = True
    """Part of one of the question's noun phrases (not "heard", "sneaky")."""
    misspelt: bool = False
    """Another spelling of a word of the top passages: a letter or two off ("herper" for
    "herpes"), or its beginning ("chemo" for "chemotherapy")."""


_SPLIT = re.compile(r"\.{2,}|[/_]")
"""Inside a token, what separates words ("again...especially", "and/or")."""


def candidates(question: str) -> list[str]:
    """The question's words that can name what it asks about, in its order."""
    out = []
    for token in content_words(question):
        for w in _SPLIT.split(token):
            w = w.strip("'-.")
            if w in _SKIP or w in FUNCTION_WORDS or w.isdigit():
                continue
            if sum("a" <= c <= "z" for c in w) < 3:  # "äôs" of a mis-decoded "’s", "5g"
                continue
            out.append(w)
    return list(dict.fromkeys(out))


def _named(question: str) -> set[str]:
    """The words the question writes as names: capitalised after its first word, or in
    capitals throughout ("FSF")."""
    out = set()
    for i, m in enumerate(re.finditer(r"[^\W\d_][\w'-]*", question)):
        w = m.group()
        if (w.isupper() and len(w) >= 2) or (i > 0 and w[0].isupper()):
            out.add(w.lower())
    return out


def _in_phrases(question: str) -> set[str]:
    from tellmemore.conversation.phrases import phrases  # the parser loads the lexicon

    return {s for p in phrases(question) for s in p.stems}


def _close_spelling(word: str, vocabulary: Sequence[str]) -> bool:
    """Another spelling of a vocabulary word: within one edit of it (two for words of
    seven letters or more; a swap of two neighbours counts as one), or its beginning
    ("chemo" for "chemotherapy", "covid" for "covid-19")."""
    limit = 1 if len(word) < 7 else 2
    return any(
        (len(word) >= 4 and len(v) > len(word) and v.startswith(word))
        or (abs(len(v) - len(word)) <= limit and _distance(word, v, limit) <= limit)
        for v in vocabulary
    )


def _distance(a: str, b: str, limit: int) -> int:
    """Optimal-string-alignment distance, given up above `limit`."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        if min(cur) > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1]


_CAPITALISED_RUN = re.compile(r"\b[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)+")


def initialisms(text: str) -> set[str]:
    """The initials of every run of two to six capitalised words ("Free Software
    Foundation" -> "fsf", "sf"), so that a question's acronym is held by its spelling-out."""
    out = set()
    for m in _CAPITALISED_RUN.finditer(text):
        initials = "".join(w[0] for w in m.group().split()).lower()
        for i in range(len(initials)):
            for j in range(i + 2, min(len(initials), i + 6) + 1):
                out.add(initials[i:j])
    return out


def _vocabulary(hits: Sequence[Hit]) -> tuple[set[str], list[str]]:
    """The stems the top passages hold (and the acronyms their capitalised names spell),
    and their distinct words, most frequent first."""
    counts: dict[str, int] = {}
    spelt: set[str] = set()
    for h in hits[:FOCUS_HITS]:
        c = h.chunk
        text = f"{c.title}\n{' '.join(c.section)}\n{c.header}\n{c.text}"
        for w in content_words(text):
            counts[w] = counts.get(w, 0) + 1
        spelt |= initialisms(text)
    held = {stem(w) for w in counts} | {stem(a) for a in spelt}
    ranked = sorted(
        (w for w in counts if len(w) >= 3 and any(ch.isalpha() for ch in w)),
        key=lambda w: (-counts[w], w),
    )
    return held, ranked[:MAX_VOCABULARY]


def unheld(
    question: str,
    hits: Sequence[Hit],
    term_stats: Callable[[list[str]], TermStats] | None,
    embed: Callable[[list[str]], Vector] | None,
    *,
    max_share: float = 1.0,
) -> list[FocusWord]:
    """The question's focus words no top passage holds whose share of the index's chunks
    is at most `max_share`, each with its nearest passage word's cosine (0.0 without an
    embedder); rarest first."""
    words = candidates(question)
    if not words or not hits:
        return []
    held, vocabulary = _vocabulary(hits)
    lost = [w for w in words if stem(w) not in held]
    if not lost:
        return []
    shares = {w: 0.0 for w in lost}
    if term_stats is not None:
        try:
            stats = term_stats(lost)
            n = max(stats.n_chunks, 1)
            shares = {w: stats.df.get(w, 0) / n for w in lost}
        except Exception:  # an index that cannot count words: the focus is not read
            log.warning("term statistics failed; the question's focus is not read", exc_info=True)
            return []
    lost = [w for w in lost if shares[w] <= max_share]
    if not lost:
        return []
    near = {w: 0.0 for w in lost}
    if embed is not None and vocabulary:
        vectors = cache_for(embed).get(embed, [*lost, *vocabulary])
        sims = vectors[len(lost) :] @ vectors[: len(lost)].T
        near = {w: float(sims[:, i].max()) for i, w in enumerate(lost)}
    named, phrased = _named(question), _in_phrases(question)
    found = [
        FocusWord(
            w,
            shares[w],
            near[w],
            named=w in named,
            in_phrase=stem(w) in phrased,
            misspelt=_close_spelling(w, vocabulary),
        )
        for w in lost
    ]
    return sorted(found, key=lambda f: (f.share, f.near))


def is_missing(f: FocusWord, *, max_share: float, min_near: float) -> bool:
    """The documents do not hold this focus word: a noun of the question, in at most
    `max_share` of the chunks, no misspelling of a passage word, and no passage word
    close to it unless it is a name (a name is held by itself only)."""
    if f.share > max_share or f.misspelt or not f.in_phrase:
        return False
    return f.named or f.near < min_near


def missing(
    question: str,
    hits: Sequence[Hit],
    term_stats: Callable[[list[str]], TermStats] | None,
    embed: Callable[[list[str]], Vector] | None,
    *,
    max_share: float,
    min_near: float,
) -> list[str]:
    """The focus words the documents do not hold (`is_missing`)."""
    return [
        f.word
        for f in unheld(question, hits, term_stats, embed, max_share=max_share)
        if is_missing(f, max_share=max_share, min_near=min_near)
    ]


def naming(question: str, lost: Sequence[str]) -> str:
    """The question's own noun phrases that hold the missing words ("phone stipend",
    "Free Software Foundation helpdesk"), joined by "or"; the words themselves when no
    phrase holds them."""
    from tellmemore.conversation.phrases import phrases  # the parser loads the lexicon

    want = {stem(w) for w in lost}
    named: list[str] = []
    for p in phrases(question):
        if want & set(p.stems):
            named.append(p.text)
            want -= set(p.stems)
    named += [w for w in lost if stem(w) in want]
    return " or ".join(dict.fromkeys(named))
