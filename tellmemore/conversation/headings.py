"""Which words the documents' own headings hold together: a subject the documents name.

"how much is the pro plan?" has two content words, neither rare in a small corpus
where every page mentions plans, so by salience alone it reads as a follow-up that
needs the history ("too little signal"), and the resolver carried the abandoned
"escalation options" into it. But the documents have a section "Cloud Connect plans
and pricing > Pro": a message whose content words all stand together in one heading
(title and section path) names a subject of its own. One word is not enough: in a
large corpus every common noun is in some title ("How many teams?" still follows up).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from tellmemore.conversation.text import content_words, stem

HeadingsLookup = Callable[[], Sequence[str]]
"""The index's distinct headings ("Title > Section > Subsection"), read when needed."""

MIN_WORDS = 2
"""A message names a heading's subject with at least this many of its words."""


class Headings:
    """An inverted index from stem to the headings that hold it."""

    def __init__(self, headings: Iterable[str]) -> None:
        self._by_stem: dict[str, set[int]] = {}
        for i, heading in enumerate(headings):
            for s in {stem(w) for w in content_words(heading)}:
                self._by_stem.setdefault(s, set()).add(i)

    def name_together(self, words: Sequence[str]) -> bool:
        """Whether one heading holds every one of `words` (at least MIN_WORDS of them)."""
        stems = {stem(w) for w in words}
        if len(stems) < MIN_WORDS:
            return False
        postings = sorted((self._by_stem.get(s, set()) for s in stems), key=len)
        return bool(set.intersection(*postings)) if postings[0] else False


_built: tuple[Sequence[str], Headings] | None = None


def _current(lookup: HeadingsLookup) -> Headings:
    """The inverted index of the lookup's headings, rebuilt only when the index returns a
    new sequence (it keeps one per write generation)."""
    global _built
    current = lookup()
    built = _built
    if built is None or built[0] is not current:
        built = _built = (current, Headings(current))
    return built[1]


class IndexHeadings:
    """The index's headings, read only when a message asks (the gate's "too little signal"
    branch): most turns never need them, and on Milvus a read costs a round trip."""

    def __init__(self, lookup: HeadingsLookup) -> None:
        self._lookup = lookup

    def name_together(self, words: Sequence[str]) -> bool:
        return _current(self._lookup).name_together(words)


def headings_of(lookup: HeadingsLookup | None) -> IndexHeadings | None:
    """What the gate asks of the index's headings, or None without an index."""
    return None if lookup is None else IndexHeadings(lookup)
