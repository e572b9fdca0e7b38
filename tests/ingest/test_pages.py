"""Page spans of PDF chunks: each chunk names the pages its text came from."""

from __future__ import annotations

from pathlib import Path

from tellmemore.answer.citations import citation, page_label
from tellmemore.ingest.chunking import chunk_document
from tellmemore.ingest.loaders import load_path
from tellmemore.ingest.pages import PageLocator
from tellmemore.types import Chunk, Hit

from .pdfgen import make_pdf


def _words(text: str) -> int:
    return len(text.split())


def test_a_body_is_placed_on_its_page_and_a_body_across_a_break_on_both() -> None:
    text = "Alpha one two.\nAlpha three.\n\nBeta four five.\n\nGamma six."
    starts = ((0, 1), (text.index("Beta"), 2), (text.index("Gamma"), 5))
    pages = PageLocator(text, starts)
    assert pages.span("Alpha one two. Alpha three.") == (1,)
    assert pages.span("Alpha three.\n\nBeta four five.") == (1, 2)
    assert pages.span("Gamma six.") == (5,)
    assert pages.span("Not in the document.") == ()


def test_a_passage_repeated_later_is_found_where_the_chunker_is() -> None:
    text = "Contact support.\n\nOther things.\n\nContact support."
    pages = PageLocator(text, ((0, 1), (text.index("Other"), 2), (text.rindex("Contact"), 3)))
    assert pages.span("Other things.") == (2,)
    assert pages.span("Contact support.") == (3,)  # not the page-1 copy


def test_pdf_chunks_carry_the_pages_their_text_is_on(tmp_path: Path) -> None:
    long_pages = [
        [f"Rule {p}.{i}: item {p}.{i} applies to teams." for i in range(12)] for p in (1, 2)
    ]
    short_pages = [[f"Rule {p}.0: item {p}.0 applies."] for p in (3, 4, 5, 6)]
    pages = long_pages + short_pages  # the short pages are packed together
    path = tmp_path / "handbook.pdf"
    path.write_bytes(make_pdf(pages, title="Handbook"))
    [doc] = load_path(path)
    chunks = chunk_document(doc, max_tokens=64, count_tokens=_words)
    assert len(chunks) >= 4
    for chunk in chunks:
        first_rule = chunk.text.split("Rule ", 1)[1]
        first_page = int(first_rule.split(".", 1)[0])
        span = chunk.metadata["page_span"]
        assert span[0] == first_page, chunk.text
        last_rule = chunk.text.rsplit("Rule ", 1)[1]
        assert span[-1] == int(last_rule.split(".", 1)[0]), chunk.text
    assert any(len(c.metadata["page_span"]) == 2 for c in chunks)


def test_non_pdf_chunks_have_no_page_span(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# Notes\n\nSome text.\n", encoding="utf-8")
    [doc] = load_path(path)
    [chunk] = chunk_document(doc, max_tokens=64, count_tokens=_words)
    assert "page_span" not in chunk.metadata
    assert citation(Hit(chunk=chunk, score=1.0, rank=1)).pages == ()


def test_a_citation_reads_the_page_span_and_ignores_a_malformed_one() -> None:
    def cite(span: object) -> tuple[int, ...]:
        chunk = Chunk(id="c", doc_id="d", text="x", metadata={"page_span": span})
        return citation(Hit(chunk=chunk, score=1.0, rank=1)).pages

    assert cite([4]) == (4,)
    assert cite([4, 5]) == (4, 5)
    assert cite("4") == () and cite([0]) == () and cite([1, 2, 3]) == () and cite([True]) == ()
    assert (page_label((4,)), page_label((4, 5)), page_label(())) == ("p. 4", "pp. 4-5", "")


def test_an_answer_from_the_sample_pdf_cites_its_page(sample_assistant) -> None:  # type: ignore[no-untyped-def]
    """The sample's router PDF has its firmware notes on page 2."""
    answer = sample_assistant.session().ask("which Norrland firmware drops tunnels every 24 hours?")
    pdf = [c for c in answer.citations if c.doc.endswith("supported-routers.pdf")]
    assert pdf, [c.doc for c in answer.citations]
    notes = [c for c in pdf if "drops tunnels" in c.snippet]
    assert notes and all(c.pages == (2,) for c in notes), [(c.snippet, c.pages) for c in pdf]
    assert answer.to_dict()["citations"][answer.citations.index(notes[0])]["pages"] == [2]
