"""Chosen sentences -> the text of an extractive answer, its citations and its list.

Each sentence carries its source's number ("[1]"). When the sentences come from more than
one document, they are grouped under the document's title, on a line of its own
("Parental leave:\\n... [1]\\nMedical insurance:\\n... [2]"): three figures from three
policies told apart only by citation numbers read as one contradictory rule. A quoted
list or table comes back as data too (`Quoted.items`), so "the fourth one" reads the
items, not the text. Sentences are quoted as plain text (`plaintext`): no Markdown link,
emphasis or tag reaches the reader or the next turn's resolver.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tellmemore.answer import citations
from tellmemore.answer.extractive import Extract
from tellmemore.answer.plaintext import plain_text
from tellmemore.types import Citation, Hit


@dataclass(frozen=True)
class Quoted:
    text: str
    citations: tuple[Citation, ...]
    items: tuple[str, ...] = ()
    """The list items or table rows the answer quotes, in order ("" when none)."""


def source_key(hit: Hit) -> tuple[str, tuple[str, ...]]:
    """What a quoted sentence's rule belongs to: its document and section."""
    return (hit.chunk.title or hit.chunk.doc_id, tuple(hit.chunk.section))


def source_labels(hits: Sequence[Hit], used: Sequence[int]) -> dict[int, str]:
    """The document's title per quoted hit when the quotes come from two or more
    documents, else {}. Sections of one document are not named: the conversation layer
    reads the quoted sentences themselves ("Standard tier", "Enterprise tier") as the
    alternatives of "the enterprise one"."""
    titles = {i: source_key(hits[i])[0] for i in used}
    if len(set(titles.values())) < 2:
        return {}
    return titles


def grouped(extracts: Sequence[Extract], labels: dict[int, str]) -> list[Extract]:
    """`extracts` with each source's sentences together, sources in the order they first
    come: "A: a1 a2  B: b1", never "A: a1  B: b1  A: a2" (one title said twice)."""
    if not labels:
        return list(extracts)
    first: dict[str, int] = {}
    for k, ex in enumerate(extracts):
        first.setdefault(labels[ex.hit_index], k)
    return sorted(extracts, key=lambda ex: first[labels[ex.hit_index]])  # stable


def quote(extracts: Sequence[Extract], hits: Sequence[Hit], *, by_rank: bool = False) -> Quoted:
    """The answer text for `extracts`, numbered by first citation (or, `by_rank`, by the
    hit's rank). From two or more documents, each document's sentences follow a line of
    its own holding its title and a colon: a header the conversation layer can tell from
    a quoted sentence (`conversation.text.answer_body`), so a title is never read as one
    of the alternatives "the second one" counts."""
    distinct = list(dict.fromkeys(ex.hit_index for ex in extracts))
    labels = source_labels(hits, distinct)
    extracts = grouped(extracts, labels)
    order = list(dict.fromkeys(ex.hit_index for ex in extracts))
    cited = tuple(citations.citation(hits[i]) for i in order)
    lines: list[str] = []
    step = 0
    group = None
    before: Extract | None = None
    for ex in extracts:
        number = ex.hit_index + 1 if by_rank else order.index(ex.hit_index) + 1
        part = f"{plain_text(ex.sentence)} [{number}]"
        label = labels.get(ex.hit_index)
        if label is not None and label != group:
            lines.append(f"{label}:")
            group, before = label, None  # a new group starts its own line
        same_list = before is not None and before.step and before.hit_index == ex.hit_index
        step = (step + 1 if same_list else 1) if ex.step else 0
        if ex.item:  # a list item or table row: a line of its own, as the document has it
            lines.append(f"{step}. {part}" if step else f"- {part}")
        elif before is None or before.item:
            lines.append(part)
        else:
            lines[-1] += f" {part}"
        before = ex
    items = tuple(plain_text(ex.sentence) for ex in extracts if ex.item)
    return Quoted("\n".join(lines), cited, items if len(items) >= 2 else ())
