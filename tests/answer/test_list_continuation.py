"""A list whose announcement ends one chunk and whose items open the next (the chunker cut
between them): the answer quotes the items with the announcement. Over the TTS handbook's
advanced sick leave page (bench/data/tts_handbook), with the real MiniLM."""

from __future__ import annotations

from pathlib import Path

from tellmemore.answer import extractive, lists
from tellmemore.answer.units import units
from tellmemore.testing.conformance import make_chunk
from tellmemore.types import Hit

PAGE = (
    Path(__file__).resolve().parents[2]
    / "bench/data/tts_handbook/travel-and-leave/advanced-sick-leave.md"
)
HEADER = "Advanced sick leave > Getting approval for advanced sick leave"


def _section() -> tuple[str, str]:
    """The section's announcing paragraph and its numbered list."""
    body = PAGE.read_text(encoding="utf-8").split("## Getting approval for advanced sick leave\n")
    paragraphs = [p.strip() for p in body[1].split("\n\n") if p.strip()]
    return paragraphs[0], paragraphs[1]


def _hit(key: str, text: str, rank: int, ordinal: int, doc: str = "advanced-sick-leave") -> Hit:
    title, section = HEADER.split(" > ")
    chunk = make_chunk(
        key,
        f"{HEADER}\n\n{text}",
        doc_id=doc,
        title=title,
        section=(section,),
        metadata={"ordinal": ordinal},
    )
    return Hit(chunk=chunk, score=1.0 - rank / 10, rank=rank + 1)


def test_an_announcement_at_a_chunk_end_looks_past_it() -> None:
    announcing, items = _section()
    ending = units(f"{HEADER}\n\n{announcing}", HEADER)
    assert lists.announced_past_end(ending, 0, {"paperwork"})
    opening = units(f"{HEADER}\n\n{items}", HEADER)
    assert lists.leading_items(opening) == list(range(len(opening)))[: lists.MAX_ITEMS]
    # with its list in the same chunk there is nothing to look for past the end
    whole = units(f"{HEADER}\n\n{announcing}\n\n{items}", HEADER)
    assert not lists.announced_past_end(whole, 0, {"paperwork"})


def test_the_items_of_the_next_chunk_are_quoted_with_their_announcement(minilm) -> None:  # type: ignore[no-untyped-def]
    announcing, items = _section()
    unrelated = "The medical note will be used as a supporting document for PPL."
    hits = [
        _hit("a", announcing, 0, 0),
        _hit("b", unrelated, 1, 0, doc="paid-parental-leave"),
        _hit("c", items, 2, 1),
    ]
    quoted = extractive.best_sentences(
        "what paperwork do I need?", hits, embed=minilm.embed_documents, headed=True
    )
    text = [e.sentence for e in quoted]
    announcement = next(i for i, s in enumerate(text) if "following paperwork" in s)
    form = next(i for i, s in enumerate(text) if "Advanced Sick Leave Request form" in s)
    assert form == announcement + 1  # the list follows what announces it
    assert any("medical certification" in s for s in text)


def test_a_list_of_another_document_is_not_a_continuation(minilm) -> None:  # type: ignore[no-untyped-def]
    """The same list in another document's chunk is no continuation of the announcement."""
    announcing, items = _section()
    hits = [_hit("a", announcing, 0, 0), _hit("c", items, 1, 1, doc="another-page")]
    assert extractive._next_chunk(hits, 0) is None
    hits = [_hit("a", announcing, 0, 0), _hit("c", items, 1, 1)]
    assert extractive._next_chunk(hits, 0) == 1
    assert extractive._next_chunk(hits, 1) is None
