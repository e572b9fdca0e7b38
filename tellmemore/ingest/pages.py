"""Which pages of a PDF each chunk's text came from, so a citation can say "p. 4".

The chunker rebuilds a chunk's body from the document's blocks (lines rejoined,
long blocks split, overlap sentences repeated), so a body is not a slice of the
text with known offsets. But its words are the text's words in order: with
whitespace collapsed, the opening and the end of a body are found in the
document, and the page holding each is read from where the pages start.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

PROBE_CHARS = 60
"""How much of a body's opening (and end) is looked up: long enough to be unique in a
document, short enough to stay inside one block."""


def _normal(text: str) -> str:
    return " ".join(text.split())


class PageLocator:
    """Finds the page span of successive chunk bodies of one document.

    `page_starts`: (character offset in `text`, page number) for every page with text,
    in order; a page's text runs to the next page's offset.
    """

    def __init__(self, text: str, page_starts: Sequence[tuple[int, int]]) -> None:
        offsets = [o for o, _ in page_starts] + [len(text)]
        parts = [_normal(text[offsets[i] : offsets[i + 1]]) for i in range(len(page_starts))]
        self._numbers = [n for _, n in page_starts]
        self._starts: list[int] = []
        at = 0
        for part in parts:
            self._starts.append(at)
            at += len(part) + 1
        self._text = " ".join(parts)
        self._cursor = 0

    def span(self, body: str) -> tuple[int, ...]:
        """(first page,) or (first page, last page) of `body`; () when it is not found.
        Bodies are looked up from the previous one's start on, so a passage repeated
        later in the document is matched where the chunker was."""
        if not self._numbers:
            return ()
        norm = _normal(body)
        head, tail = norm[:PROBE_CHARS], norm[-PROBE_CHARS:]
        start = self._text.find(head, self._cursor)
        if start < 0:
            start = self._text.find(head)
        if start < 0 or not head:
            return ()
        self._cursor = start
        end = self._text.find(tail, start)
        end = start if end < 0 else end + len(tail) - 1
        first, last = self._page(start), self._page(max(end, start))
        return (first,) if first == last else (first, last)

    def _page(self, offset: int) -> int:
        return self._numbers[bisect_right(self._starts, offset) - 1]
