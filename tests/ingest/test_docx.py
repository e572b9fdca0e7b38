"""Word documents: sections, lists and tables as the chunker reads them, every bad file a
reason, and a Word handbook answered end to end."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from tellmemore.errors import LoaderError
from tellmemore.ingest.loaders import load_path, supported_extensions

from .helpers import (
    assert_a_broken_file_costs_only_itself,
    assert_a_zip_bomb_is_skipped_unread,
    one_document_assistant,
)

docx = pytest.importorskip("docx")  # python-docx writes the fixtures (the dev extra)


def handbook(path: Path, *, title: str = "People Handbook", version: str = "") -> Path:
    """A Word handbook as HR writes one: a Title paragraph, headings, bullets, numbered
    steps, a table, bold text inside a sentence and an image."""
    d = docx.Document()
    d.core_properties.title = title
    if version:
        d.core_properties.version = version
    d.add_paragraph("People Handbook", style="Title")
    d.add_heading("Vacation", 1)
    p = d.add_paragraph("Every employee gets ")
    p.add_run("20 days").bold = True
    p.add_run(" of paid vacation a year. Unused days do not roll over.")
    d.add_paragraph("Book time off in HR Links.", style="List Bullet")
    d.add_paragraph("Tell your manager two weeks ahead.", style="List Bullet")
    d.add_heading("Sick leave", 2)
    d.add_paragraph("Call your manager before 9:00.", style="List Number")
    d.add_paragraph("Send a doctor's note after three days.", style="List Number")
    d.add_heading("Salary levels", 1)
    table = d.add_table(rows=3, cols=2)
    for row, cells in zip(
        table.rows,
        [("Level", "Salary"), ("Junior", "$90,000"), ("Senior", "$140,000")],
        strict=True,
    ):
        for cell, text in zip(row.cells, cells, strict=True):
            cell.text = text
    d.add_picture(io.BytesIO(_png()))
    d.save(str(path))
    return path


def _png() -> bytes:
    """A 1x1 PNG, so the document carries an image part."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def test_docx_is_a_supported_extension() -> None:
    assert ".docx" in supported_extensions()


def test_docx_sections_lists_and_tables_become_the_markdown_the_chunker_reads(
    tmp_path: Path,
) -> None:
    [doc] = load_path(handbook(tmp_path / "people.docx", version="2026.2"))
    assert (doc.title, doc.version, doc.format) == ("People Handbook", "2026.2", "docx")
    text = doc.text
    assert text.startswith("# People Handbook\n\n# Vacation\n")
    assert "Every employee gets **20 days** of paid vacation a year." in text  # as in Markdown
    assert "- Book time off in HR Links.\n- Tell your manager two weeks ahead." in text
    assert "## Sick leave\n\n1. Call your manager before 9:00.\n2. Send a doctor's note" in text
    assert "| Level | Salary |\n| --- | --- |\n| Junior | $90,000 |\n| Senior | $140,000 |" in text
    assert "base64" not in text and "data:image" not in text


def test_docx_links_stay_markdown_links_and_nested_items_stay_nested(tmp_path: Path) -> None:
    """A link's address often names its subject, and an item under another belongs to it:
    both are kept as a Markdown handbook keeps them. A link inside the document (a table of
    contents) keeps its text only."""
    from docx.opc.constants import RELATIONSHIP_TYPE
    from docx.oxml import parse_xml

    w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    r = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
    d = docx.Document()
    p = d.add_paragraph("Read the ")
    rid = d.part.relate_to("https://hr.example/time-off", RELATIONSHIP_TYPE.HYPERLINK, True)
    p._p.append(
        parse_xml(
            f'<w:hyperlink {w} {r} r:id="{rid}"><w:r><w:t>time off page</w:t></w:r></w:hyperlink>'
        )
    )
    p.add_run(" first.")
    toc = d.add_paragraph()
    toc._p.append(
        parse_xml(f'<w:hyperlink {w} w:anchor="_Toc1"><w:r><w:t>Vacation</w:t></w:r></w:hyperlink>')
    )
    numbering = d.part.numbering_part.element
    levels = "".join(
        f'<w:lvl w:ilvl="{i}"><w:start w:val="1"/><w:numFmt w:val="bullet"/>'
        f'<w:lvlText w:val="-"/></w:lvl>'
        for i in range(2)
    )
    numbering.insert(
        0, parse_xml(f'<w:abstractNum {w} w:abstractNumId="90">{levels}</w:abstractNum>')
    )
    numbering.append(parse_xml(f'<w:num {w} w:numId="90"><w:abstractNumId w:val="90"/></w:num>'))
    for text, level in (("Spaces include:", 0), ("Slack", 1), ("GitHub", 1), ("Offices", 0)):
        item = d.add_paragraph(text, style="List Paragraph")
        item._p.get_or_add_pPr().append(
            parse_xml(f'<w:numPr {w}><w:ilvl w:val="{level}"/><w:numId w:val="90"/></w:numPr>')
        )
    d.save(str(tmp_path / "links.docx"))
    text = load_path(tmp_path / "links.docx")[0].text
    assert "Read the [time off page](https://hr.example/time-off) first." in text
    assert "Vacation" in text and "_Toc1" not in text
    assert "- Spaces include:\n  - Slack\n  - GitHub\n- Offices" in text


def test_a_word_table_without_column_labels_is_read_as_rows(tmp_path: Path) -> None:
    """A holiday table's first row is a holiday, not the column labels: the same reading
    as a table in an HTML page or inside Markdown."""
    d = docx.Document()
    d.add_heading("Holidays", 1)
    table = d.add_table(rows=2, cols=2)
    for row, cells in zip(
        table.rows, [("New Year's Day", "January 1"), ("Independence Day", "July 4")], strict=True
    ):
        for cell, text in zip(row.cells, cells, strict=True):
            cell.text = text
    d.save(str(tmp_path / "holidays.docx"))
    text = load_path(tmp_path / "holidays.docx")[0].text
    assert "- New Year's Day: January 1\n- Independence Day: July 4" in text
    assert "| --- |" not in text


def test_docx_title_falls_back_to_the_first_heading_then_the_stem(tmp_path: Path) -> None:
    d = docx.Document()
    d.add_heading("Travel policy", 1)
    d.add_paragraph("Book trains for trips under four hours.")
    d.save(str(tmp_path / "travel.docx"))
    assert load_path(tmp_path / "travel.docx")[0].title == "Travel policy"
    d = docx.Document()
    d.add_paragraph("Just a note without headings.")
    d.save(str(tmp_path / "note.docx"))
    assert load_path(tmp_path / "note.docx")[0].title == "note"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"plain text, not a zip", "not a .docx file"),
        (
            b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 600,
            "legacy Word 97-2003 document or a password-protected",
        ),
        (None, "no word/document.xml"),
        (b"PK\x03\x04 truncated", "not a .docx file"),
    ],
)
def test_bad_docx_files_are_loader_errors_with_reasons(
    tmp_path: Path, content: bytes | None, reason: str
) -> None:
    if content is None:  # a zip, but no Word document in it
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr("hello.txt", "hi")
        content = buf.getvalue()
    path = tmp_path / "bad.docx"
    path.write_bytes(content)
    with pytest.raises(LoaderError, match=reason):
        load_path(path)


def test_a_docx_whose_xml_expands_past_the_text_limit_is_skipped_unread(tmp_path: Path) -> None:
    """A zip bomb costs a look at the zip's directory: 60 MB of XML compresses to kilobytes."""
    path = handbook(tmp_path / "bomb.docx")
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("word/_rels/padding.rels", "<a/>" * 15_000_000)
    assert_a_zip_bomb_is_skipped_unread(path)


def test_a_broken_docx_costs_only_itself(tmp_path: Path) -> None:
    assert_a_broken_file_costs_only_itself(tmp_path, ".docx", handbook)


@pytest.mark.model
def test_a_word_handbook_is_answered_with_its_own_section(project_dir: Path, minilm) -> None:  # type: ignore[no-untyped-def]
    docs = project_dir / "docs"
    docs.mkdir()
    handbook(docs / "people.docx")
    with one_document_assistant(project_dir, minilm, docs) as assistant:
        chat = assistant.session()
        answer = chat.ask("What salary does a senior get?")
        assert "$140,000" in answer.answer
        assert answer.citations[0].doc == "people.docx"
        assert answer.citations[0].title == "People Handbook"
        follow = chat.ask("and what do I do when I'm sick?")
        assert "Call your manager before 9:00." in follow.answer
