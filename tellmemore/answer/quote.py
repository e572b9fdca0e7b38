"""Chosen sentences -> the text of an extractive answer, its citations and its list.

Each sentence carries its source's number ("[1]"). When the sentences come from more than
one document, they are grouped under the document's title ("Parental leave: ...
[1]\\nMedical insurance: ... [2]"): three figures from three policies told apart only by
citation numbers read as one contradictory rule. A quoted list or table comes back as
data too (`Quoted.items`), so "the fourth one" reads the items, not the text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tellmemore.answer import citations
from tellmemore.answer.extractive import Extract
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


def quote(extracts: Sequence[Extract], hits: Sequence[Hit], *, by_rank: bool = False) -> Quoted:
    """The answer text for `extracts`, numbered by first citation (or, `by_rank`, by the
    hit's rank), grouped under source names when they come from more than one source."""
    order: list[int] = []
    for ex in extracts:
        if ex.hit_index not in order:
            order.append(ex.hit_index)
    cited = tuple(citations.citation(hits[i]) for i in order)
    labels = source_labels(hits, order)
    text = ""
    step = 0
    label_of_last = ""
    for i, ex in enumerate(extracts):
        number = ex.hit_index + 1 if by_rank else order.index(ex.hit_index) + 1
        part = f"{ex.sentence} [{number}]"
        before = extracts[i - 1] if i else None
        label = labels.get(ex.hit_index, "")
        if label and label != label_of_last:
            text += ("\n" if text else "") + f"{label}:"
            label_of_last = label
            before = None  # a new group starts its own line
            joiner = "\n" if ex.item else " "
        else:
            joiner = ""
        same_list = before is not None and before.step and before.hit_index == ex.hit_index
        step = (step + 1 if same_list else 1) if ex.step else 0
        if ex.item:  # a list item or table row: a line of its own, as the document has it
            text += (joiner if joiner else ("\n" if text else "")) + (
                f"{step}. " if step else "- "
            ) + part
        elif joiner:
            text += joiner + part
        elif before is not None and before.item:
            text += f"\n{part}"
        else:
            text += (" " if text else "") + part
    items = tuple(ex.sentence for ex in extracts if ex.item)
    return Quoted(text, cited, items if len(items) >= 2 else ())
