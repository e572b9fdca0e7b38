"""One analysis per text: what every pass, the gate and the selector read of a turn.

A history turn never changes, and each turn's resolution reads the same earlier turns
again (candidates, the selector's features, the previous question's referents, list items,
a definite's antecedent). So a text is analysed once, by `analyze`, and the analysis is
kept by the text itself (an LRU of ANALYSIS_CACHE_TEXTS texts): the tokens with their
spans (tokenized once), the normalised words, the content words and their stems, the
sentences as spans, the noun phrases of each sentence, and the cue spans (referents, the
ellipsis opener, a complaint about no answer). Each part is computed the first time it is
asked for, then kept.

Noun phrases are parsed sentence by sentence from the text's one token list, so "the
phrases of the answer's first three sentences" (the selector's opening) and "of its first
five" (the candidates) are slices of one parse, not more parses of joined strings.
"""

from __future__ import annotations

import bisect
import functools
import re
import threading
from collections.abc import Iterable
from functools import cached_property

from tellmemore.analysis import sentence_spans
from tellmemore.analysis.tokens import WORD
from tellmemore.conversation import constants as C
from tellmemore.conversation.ellipses import Ellipsis, find_ellipsis, no_answer_complaint
from tellmemore.conversation.phrases import Phrase, parse_phrases
from tellmemore.conversation.referents import Referent, find_referents
from tellmemore.conversation.text import FUNCTION_WORDS, Token, norm, stem

_SPACE = re.compile(r"\s")

ANALYSIS_CACHE_TEXTS = 8192
"""Texts whose analysis is kept: many sessions' read turns (an answer, its readable form,
a message, a sentence asked about on its own)."""


class Analysis:
    """The analysis of one text. Parts are computed on first use and kept; read-only."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._sentence_phrases: dict[int, tuple[Phrase, ...]] = {}
        self._openings: dict[int, tuple[frozenset[str], frozenset[str]]] = {}
        self._first: dict[int, tuple[Phrase, ...]] = {}
        self._head: list[Token] = []
        """The tokens read so far, left to right (`_read_to`): a turn reads an answer's
        opening sentences, not its whole length."""
        self._scanned = 0
        """Where the token scan resumes: every token starting before it is in `_head`
        (a whitespace position, which no token spans, or the text's end)."""
        self._lock = threading.Lock()

    @cached_property
    def tokens(self) -> tuple[Token, ...]:
        """Words, codes and numbers with their character spans."""
        return tuple(self._read_to(len(self.text) + 1))

    def _read_to(self, end: int) -> list[Token]:
        """The tokens starting before character `end`, and perhaps a few more: the same
        tokens `tokenize` gives (the same pattern, scanned from the start in pieces that
        end at a space, which no token spans)."""
        head = self._head
        text = self.text
        if end <= self._scanned or self._scanned >= len(text):
            return head
        with self._lock:  # a service's threads share analyses
            pos = self._scanned
            if end <= pos or pos >= len(text):
                return head
            space = _SPACE.search(text, end)
            stop = space.start() if space is not None else len(text)
            head += [Token(w := m.group(), m.start(), m.end(), w.lower())
                     for m in WORD.finditer(text, pos, stop)]  # fmt: skip
            self._scanned = stop
            return head

    @cached_property
    def words(self) -> tuple[str, ...]:
        """Lower-cased words, possessive "'s" removed (`text.norm`)."""
        return tuple(norm(t.text) for t in self.tokens)

    @cached_property
    def content_words(self) -> tuple[str, ...]:
        """The words that can name a subject (no function words), in order."""
        return tuple(w for w in self.words if w not in FUNCTION_WORDS)

    @cached_property
    def vocabulary(self) -> frozenset[str]:
        """The distinct content words: what a salience look-up asks the index about."""
        return frozenset(self.content_words)

    @cached_property
    def stems(self) -> frozenset[str]:
        """Stems of the content words (the index's Porter stems)."""
        return frozenset(stem(w) for w in self.vocabulary)

    @cached_property
    def spans(self) -> tuple[tuple[int, int], ...]:
        """Where each sentence starts and ends (`analysis.sentence_spans`)."""
        return tuple(sentence_spans(self.text))

    @cached_property
    def sentences(self) -> tuple[str, ...]:
        """The sentences, stripped (the package's one splitter)."""
        return tuple(self.text[a:b] for a, b in self.spans)

    def _sentence_tokens(self, i: int) -> list[Token]:
        """The tokens of sentence `i` (those starting inside its span)."""
        a, b = self.spans[i]
        toks = self._read_to(b)
        lo = bisect.bisect_left(toks, a, key=_start)
        return toks[lo : bisect.bisect_left(toks, b, lo, key=_start)]

    def sentence_phrases(self, i: int) -> tuple[Phrase, ...]:
        """The noun phrases of sentence `i`, parsed once (and kept by its characters:
        `_phrases_of`)."""
        found = self._sentence_phrases.get(i)
        if found is None:
            found = self._sentence_phrases[i] = _phrases_of(self.text, self._sentence_tokens(i))
        return found

    @cached_property
    def phrases(self) -> tuple[Phrase, ...]:
        """The noun phrases of the whole text, left to right."""
        return tuple(p for i in range(len(self.spans)) for p in self.sentence_phrases(i))

    def phrases_in(self, which: Iterable[int]) -> list[Phrase]:
        """The noun phrases of the sentences numbered `which` (in that order); only those
        sentences are parsed."""
        n = len(self.spans)
        return [p for i in which if 0 <= i < n for p in self.sentence_phrases(i)]

    def opening(self, n: int) -> list[Phrase]:
        """The noun phrases of the first `n` sentences: an answer's subject is there."""
        return self.phrases_in(range(min(n, len(self.spans))))

    def first_phrases(self, n: int) -> tuple[Phrase, ...]:
        """The first `n` noun phrases of the text, its sentences parsed only as far as those
        reach (a list's labels are its sentences' leading phrases): `phrases[:n]`, kept."""
        found = self._first.get(n)
        if found is None:
            out: list[Phrase] = []
            for i in range(len(self.spans)):
                if len(out) >= n:
                    break
                done = self._sentence_phrases.get(i)
                if done is None:
                    want = n - len(out)
                    done = parse_phrases(self.text, self._sentence_tokens(i), want)
                    if len(done) < want:  # the sentence parsed to its end: all of it
                        self._sentence_phrases[i] = done
                out += done
            found = self._first[n] = tuple(out[:n])
        return found

    def opening_words(self, n: int) -> tuple[frozenset[str], frozenset[str]]:
        """The content words of the first `n` sentences and their stems, kept per `n`."""
        found = self._openings.get(n)
        if found is None:
            if 0 < n <= len(self.spans):
                end = self.spans[n - 1][1]
                toks = self._read_to(end)
                words = (norm(t.text) for t in toks[: bisect.bisect_left(toks, end, key=_start)])
                vocab = frozenset(w for w in words if w not in FUNCTION_WORDS)
            else:
                vocab = self.vocabulary
            found = self._openings[n] = (vocab, frozenset(stem(w) for w in vocab))
        return found

    @cached_property
    def referents(self) -> tuple[Referent, ...]:
        """What the text points back with ("it", "the second one", "that tier")."""
        return tuple(find_referents(self.text))

    @cached_property
    def ellipsis(self) -> Ellipsis | None:
        """Its ellipsis or bridging opener ("and for Enterprise?"), if it opens with one."""
        return find_ellipsis(self.text)

    @cached_property
    def complaint(self) -> str | None:
        """ "why can't you answer?": the words of a complaint about no answer, if any."""
        return no_answer_complaint(self.text)


def _start(t: Token) -> int:
    return t.start


def _phrases_of(text: str, toks: list[Token]) -> tuple[Phrase, ...]:
    """The phrases of one sentence given as its tokens. The parse reads only the characters
    from its first token to its last, so it is kept by them: the same sentence in another
    text (the selector reads an answer's opening joined into one text; a question asked
    again) is parsed once."""
    if not toks:
        return ()
    a, b = toks[0].start, toks[-1].end
    if b - a > C.CACHE_MAX_CHARS:
        return parse_phrases(text, toks)
    return _parsed(_Sentence(text[a:b], text, toks))


class _Sentence:
    """A sentence as a cache key: its characters. The text and tokens it is parsed from
    are dropped once it is parsed, so the cache keeps only the sentence itself."""

    __slots__ = ("key", "text", "toks")

    def __init__(self, key: str, text: str, toks: list[Token]) -> None:
        self.key, self.text, self.toks = key, text, toks

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Sentence) and self.key == other.key


PARSED_SENTENCES = 8192
"""Sentences whose phrases are kept (each at most CACHE_MAX_CHARS long: the same bound as
the texts analyses are kept for)."""


@functools.lru_cache(maxsize=PARSED_SENTENCES)
def _parsed(s: _Sentence) -> tuple[Phrase, ...]:
    found = parse_phrases(s.text, s.toks)
    s.text, s.toks = "", []
    return found


def analyze(text: str) -> Analysis:
    """The analysis of `text`, kept by text (a text over CACHE_MAX_CHARS is analysed each
    time it is asked for and never kept: one huge pasted turn must not flush the rest)."""
    if len(text) > C.CACHE_MAX_CHARS:
        return Analysis(text)
    return _cached(text)


@functools.lru_cache(maxsize=ANALYSIS_CACHE_TEXTS)
def _cached(text: str) -> Analysis:
    return Analysis(text)
