"""PDF structure read back from the text layer: headings from type sizes and bold lines,
paragraphs from gaps, list items from bullets and indents; a PDF handbook answered from
its own section."""

from __future__ import annotations

from pathlib import Path

import pytest

from tellmemore.ingest.loaders import load_path
from tellmemore.ingest.loaders.pdf import join_pages

from .helpers import one_document_assistant
from .pdfgen import Styled, make_pdf, make_styled_pdf

BODY = 11.0
PARAGRAPH = 2.0 * BODY  # a blank line's worth above the line
H1 = Styled("People Handbook", size=22, above=30)


def handbook_pages() -> list[list[Styled]]:
    """Two pages of a handbook as a word processor exports it: a title, two heading
    levels, a bold run-in heading, wrapped paragraphs, a bulleted list, an indented list
    without bullet glyphs, and a sentence cut by the page break."""
    return [
        [
            H1,
            Styled("Vacation", size=16, above=30),
            Styled("Every employee gets 20 days of paid vacation a year, booked", above=24),
            Styled("in HR Links at least two weeks ahead. Unused days do not roll"),
            Styled("over to the next year."),
            Styled("Sick leave", size=13, above=28),
            Styled("Call your manager before 9:00 on the first day.", above=20),
            Styled("\xb7 Send a note from your doctor after three days.", above=PARAGRAPH),
            Styled("\xb7 Sick leave is paid in full for the first 12 days."),
            Styled("Parental leave", size=16, above=30),
            Styled("Who is eligible", bold=True, above=24),
            Styled("Everyone who has passed probation, whatever their gender.", above=PARAGRAPH),
            Styled("You can take it as:", above=PARAGRAPH),
            Styled("one block of up to 16 weeks", indent=18),
            Styled("two blocks of 8 weeks", indent=18),
            Styled(
                "Important: tell your manager at least eight weeks before",
                bold=True,
                above=PARAGRAPH,
            ),
            Styled("the leave starts, so that cover can be arranged and your"),
        ],
        [
            Styled("projects handed over.", above=20),
            Styled("Expenses", size=16, above=30),
            Styled("Claim expenses within 30 days through the finance portal.", above=24),
        ],
    ]


def read(tmp_path: Path, pages: list[list[Styled]], title: str = "") -> str:
    path = tmp_path / "handbook.pdf"
    path.write_bytes(make_styled_pdf(pages, title=title))
    [doc] = load_path(path)
    return doc.text


def test_type_sizes_become_heading_levels_and_gaps_paragraphs(tmp_path: Path) -> None:
    text = read(tmp_path, handbook_pages())
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert headings == [
        "# People Handbook",
        "## Vacation",
        "### Sick leave",
        "## Parental leave",
        "#### Who is eligible",
        "## Expenses",
    ]
    # three wrapped lines are one paragraph again
    assert (
        "Every employee gets 20 days of paid vacation a year, booked in HR Links at least "
        "two weeks ahead. Unused days do not roll over to the next year."
    ) in text.splitlines()


def test_bullets_and_indented_lines_are_list_items(tmp_path: Path) -> None:
    lines = read(tmp_path, handbook_pages()).splitlines()
    i = lines.index("- Send a note from your doctor after three days.")
    assert lines[i + 1] == "- Sick leave is paid in full for the first 12 days."
    j = lines.index("- one block of up to 16 weeks")
    assert lines[j + 1] == "- two blocks of 8 weeks"
    assert lines[j - 2] == "You can take it as:"


def test_a_bold_sentence_inside_a_paragraph_is_no_heading(tmp_path: Path) -> None:
    text = read(tmp_path, handbook_pages())
    assert not any("Important" in line for line in text.splitlines() if line.startswith("#"))


def test_a_sentence_cut_by_the_page_break_is_one_paragraph(tmp_path: Path) -> None:
    text = read(tmp_path, handbook_pages())
    assert "so that cover can be arranged and your projects handed over." in text


def test_a_pdf_in_one_type_size_keeps_its_lines_as_paragraphs(tmp_path: Path) -> None:
    path = tmp_path / "plain.pdf"
    path.write_bytes(make_pdf([["First line of a note.", "", "Second paragraph here."]]))
    [doc] = load_path(path)
    assert not any(line.startswith("#") for line in doc.text.splitlines())
    assert "First line of a note.\n\nSecond paragraph here." in doc.text


def test_page_starts_still_point_at_each_page() -> None:
    text, starts = join_pages(["Ends with a cut", "sentence on page two.", "", "Page four."])
    assert text == "Ends with a cut sentence on page two.\n\nPage four."
    assert starts == ((0, 1), (16, 2), (39, 4))
    assert text[16:].startswith("sentence") and text[39:].startswith("Page four")


@pytest.mark.model
def test_a_pdf_handbook_is_answered_from_its_own_section(project_dir: Path, minilm) -> None:  # type: ignore[no-untyped-def]
    docs = project_dir / "docs"
    docs.mkdir()
    (docs / "handbook.pdf").write_bytes(make_styled_pdf(handbook_pages(), title="Handbook"))
    with one_document_assistant(project_dir, minilm, docs) as assistant:
        answer = assistant.session().ask("How long do I have to claim expenses?")
        assert "within 30 days" in answer.answer
        top = answer.citations[0]
        assert top.section[-1] == "Expenses" and top.pages == (2,)


def test_a_hostile_matrix_gives_no_layout_and_the_plain_text_is_kept() -> None:
    from tellmemore.ingest.loaders import pdf_layout

    nan, inf = float("nan"), float("inf")
    runs = [
        pdf_layout.run_of("Title\n", [1, 0, 0, 1, 0, 0], [nan, 0, 0, 1, 0, 0], 24),
        pdf_layout.run_of("Body text", [1, 0, 0, 1, 0, 0], [1, 0, 0, 1, inf, 0], 11),
    ]
    assert all(r.x is None and r.y is None and r.size == 0.0 for r in runs)
    assert pdf_layout.layout_of([pdf_layout.lines_of(runs)]) is None


def test_a_link_annotation_is_kept_as_a_markdown_link(tmp_path: Path) -> None:
    """A web page or Word file printed to PDF keeps its links as annotations over the text:
    the link text reads "[text](address)" as in the same handbook in Markdown; a jump
    inside the document is no link."""
    import io

    from pypdf import PdfReader, PdfWriter
    from pypdf.annotations import Link

    lines = [
        Styled("Benefits", size=16, above=30),
        Styled("Enrol on the benefits portal", above=24),
        Styled("within 30 days of your start date.", above=PARAGRAPH),
    ]
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(make_styled_pdf([lines]))))
    y = 760 - 30 - 24  # the second line's baseline
    writer.add_annotation(0, Link(rect=(71, y - 3, 300, y + 11), url="https://hr.example/portal"))
    writer.add_annotation(0, Link(rect=(72, y - 27, 200, y - 13), target_page_index=0))
    path = tmp_path / "linked.pdf"
    with path.open("wb") as out:
        writer.write(out)
    [doc] = load_path(path)
    assert "[Enrol on the benefits portal](https://hr.example/portal)" in doc.text
    assert "within 30 days of your start date." in doc.text
    assert doc.text.count("](") == 1


def test_runs_lined_up_in_columns_are_a_table_and_numbers_are_no_column(
    tmp_path: Path,
) -> None:
    """A table's cells are separate runs whose left edges line up row by row (a centred
    header above them is its header row); a numbered list's numbers are runs too, and stay
    a list. An item's second line hangs right of its number and goes on with it."""

    def row(a: str, b: str, c: str, *, above: float | None = None) -> Styled:
        return Styled(a, above=above, columns=((140, b), (260, c)))

    lines = [
        Styled("Leave", size=16, above=30),
        Styled("Days off by country:", above=24),
        Styled("Country", above=PARAGRAPH, indent=10, columns=((150, "Days"), (262, "Notice"))),
        row("United Kingdom", "25", "4 weeks"),
        row("Netherlands", "20", "2 weeks"),
        row("Canada", "15", "2 weeks"),
        Styled("1.", above=PARAGRAPH, columns=((18, "Ask your manager in the team calendar"),)),
        Styled("and copy the people team", indent=18),
        Styled("2.", columns=((18, "Book the days in Workday"),)),
        Styled("3.", columns=((18, "Set your status"),)),
    ]
    text = read(tmp_path, [lines])
    assert (
        "| Country | Days | Notice |\n| --- | --- | --- |\n| United Kingdom | 25 | 4 weeks |"
    ) in text
    assert "| Canada | 15 | 2 weeks |" in text
    assert "1. Ask your manager in the team calendar and copy the people team" in text
    assert "2. Book the days in Workday\n3. Set your status" in text
