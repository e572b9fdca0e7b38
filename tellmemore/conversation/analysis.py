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
from collections.abc import Iterable
from functools import cached_property

from tellmemore.analysis import sentence_spans
from tellmemore.conversation import constants as C
from tellmemore.conversation.ellipses import Ellipsis, find_ellipsis, no_answer_complaint
from tellmemore.conversation.phrases import Phrase, parse_phrases
from tellmemore.conversation.referents import Referent, find_referents
from tellmemore.conversation.text import FUNCTION_WORDS, Token, norm, stem, tokenize

ANALYSIS_CACHE_TEXTS = 8192
"""Texts whose analysis is kept: many sessions' read turns (an answer, its readable form,
a message, a sentence asked about on its own)."""


class Analysis:
    """The analysis of one text. Parts are computed on first use and kept; read-only."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._sentence_phrases: dict[int, tuple[Phrase, ...]] = {}
        self._openings: dict[int, tuple[frozenset[str], frozenset[str]]] = {}

    @cached_property
    def tokens(self) -> tuple[Token, ...]:
        """Words, codes and numbers with their character spans."""
        return tuple(tokenize(self.text))

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

    def _token_range(self, i: int) -> tuple[int, int]:
        """The tokens of sentence `i`, as a range of `tokens`."""
        a, b = self.spans[i]
        starts = self._starts
        return bisect.bisect_left(starts, a), bisect.bisect_left(starts, b)

    @cached_property
    def _starts(self) -> list[int]:
        return [t.start for t in self.tokens]

    def sentence_phrases(self, i: int) -> tuple[Phrase, ...]:
        """The noun phrases of sentence `i`, parsed once."""
        found = self._sentence_phrases.get(i)
        if found is None:
            lo, hi = self._token_range(i)
            found = self._sentence_phrases[i] = parse_phrases(self.text, self.tokens[lo:hi])
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

    def opening_words(self, n: int) -> tuple[frozenset[str], frozenset[str]]:
        """The content words of the first `n` sentences and their stems, kept per `n`."""
        found = self._openings.get(n)
        if found is None:
            end = self._token_range(n - 1)[1] if 0 < n <= len(self.spans) else len(self.tokens)
            vocab = frozenset(self.content_words[: self._content_before(end)])
            found = self._openings[n] = (vocab, frozenset(stem(w) for w in vocab))
        return found

    def _content_before(self, end: int) -> int:
        """How many content words the first `end` tokens hold."""
        return sum(1 for w in self.words[:end] if w not in FUNCTION_WORDS)

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


def analyze(text: str) -> Analysis:
    """The analysis of `text`, kept by text (a text over CACHE_MAX_CHARS is analysed each
    time it is asked for and never kept: one huge pasted turn must not flush the rest)."""
    if len(text) > C.CACHE_MAX_CHARS:
        return Analysis(text)
    return _cached(text)


@functools.lru_cache(maxsize=ANALYSIS_CACHE_TEXTS)
def _cached(text: str) -> Analysis:
    return Analysis(text)
