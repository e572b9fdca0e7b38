"""OpenDocument text: sections, lists and tables as the chunker reads them, every bad file a
reason, and an .odt handbook answered end to end."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest

from tellmemore.errors import LoaderError
from tellmemore.ingest.chunking import chunk_document
from tellmemore.ingest.loaders import load_path, supported_extensions

from .helpers import (
    assert_a_broken_file_costs_only_itself,
    assert_a_zip_bomb_is_skipped_unread,
    one_document_assistant,
)

pytest.importorskip("odf")  # odfpy writes the fixtures (the dev extra)

from odf import dc
from odf.opendocument import OpenDocumentText
from odf.style import ListLevelProperties, Style, TextProperties
from odf.table import Table, TableCell, TableColumn, TableHeaderRows, TableRow
from odf.text import (
    A,
    H,
    List,
    ListItem,
    ListLevelStyleBullet,
    ListLevelStyleNumber,
    ListStyle,
    Note,
    NoteBody,
    NoteCitation,
    P,
    Span,
)


def _row(cells: tuple[str, ...]) -> TableRow:
    row = TableRow()
    for text in cells:
        cell = TableCell(valuetype="string")
        cell.addElement(P(text=text))
        row.addElement(cell)
    return row


def _items(style: ListStyle | None, texts: list[str | tuple[str, List]]) -> List:
    lst = List(stylename=style) if style is not None else List()
    for text in texts:
        item = ListItem()
        if isinstance(text, tuple):
            item.addElement(P(text=text[0]))
            item.addElement(text[1])
        else:
            item.addElement(P(text=text))
        lst.addElement(item)
    return lst


def handbook(path: Path, *, title: str | None = "People Handbook") -> Path:
    """An .odt handbook as LibreOffice writes one: the title in meta.xml and a Title
    paragraph, headings with their outline level, bold as an automatic text style, a link,
    a nested bullet list, numbered steps, a table with a header row, and a footnote."""
    doc = OpenDocumentText()
    if title:
        doc.meta.addElement(dc.Title(text=title))
    bold = Style(name="T1", family="text")
    bold.addElement(TextProperties(fontweight="bold"))
    doc.automaticstyles.addElement(bold)
    bullets, numbers = ListStyle(name="L1"), ListStyle(name="L2")
    for level in (1, 2):
        style = ListLevelStyleBullet(level=level, bulletchar="•")
        style.addElement(ListLevelProperties())
        bullets.addElement(style)
    numbers.addElement(ListLevelStyleNumber(level=1, numformat="1", numsuffix="."))
    doc.automaticstyles.addElement(bullets)
    doc.automaticstyles.addElement(numbers)
    title_style = Style(name="Title", family="paragraph")
    doc.styles.addElement(title_style)
    body = doc.text
    body.addElement(P(stylename=title_style, text="People Handbook"))
    body.addElement(H(outlinelevel=1, text="Vacation"))
    p = P(text="Every employee gets ")
    p.addElement(Span(stylename=bold, text="20 days"))
    p.addText(" of paid vacation a year. Read the ")
    p.addElement(A(href="https://hr.example/time-off", type="simple", text="time off page"))
    p.addText(" first.")
    note = Note(id="ftn1", noteclass="footnote")
    note.addElement(NoteCitation(text="1"))
    note_body = NoteBody()
    note_body.addElement(P(text="Part-time staff get days pro rata."))
    note.addElement(note_body)
    p.addElement(note)
    body.addElement(p)
    body.addElement(
        _items(
            bullets,
            [
                ("Book time off in:", _items(None, ["HR Links", "the team calendar"])),
                "Tell your manager two weeks ahead.",
            ],
        )
    )
    body.addElement(H(outlinelevel=2, text="Sick leave"))
    body.addElement(
        _items(
            numbers, ["Call your manager before 9:00.", "Send a doctor's note after three days."]
        )
    )
    body.addElement(H(outlinelevel=1, text="Salary levels"))
    table = Table(name="Salaries")
    table.addElement(TableColumn(numbercolumnsrepeated=3))
    header = TableHeaderRows()
    header.addElement(_row(("Level", "2025", "2026")))  # figures in the header row
    table.addElement(header)
    table.addElement(_row(("Junior", "$90,000", "$95,000")))
    table.addElement(_row(("Senior", "$140,000", "$150,000")))
    body.addElement(table)
    doc.save(str(path))
    return path


def test_odt_is_a_supported_extension() -> None:
    assert ".odt" in supported_extensions()


def test_odt_sections_lists_and_tables_become_the_markdown_the_chunker_reads(
    tmp_path: Path,
) -> None:
    [doc] = load_path(handbook(tmp_path / "people.odt"))
    assert (doc.title, doc.format) == ("People Handbook", "odt")
    text = doc.text
    assert text.startswith("# People Handbook\n\n# Vacation\n")
    assert (
        "Every employee gets **20 days** of paid vacation a year. Read the "
        "[time off page](https://hr.example/time-off) first." in text
    )
    assert "- Book time off in:\n  - HR Links\n  - the team calendar\n- Tell your manager" in text
    assert "## Sick leave\n\n1. Call your manager before 9:00.\n2. Send a doctor's note" in text
    # The header row is the column labels even with figures in it (odfpy's own XHTML marks
    # it as a data row, and then this table read as a list of rows).
    assert (
        "| Level | 2025 | 2026 |\n| --- | --- | --- |\n| Junior | $90,000 | $95,000 |\n"
        "| Senior | $140,000 | $150,000 |" in text
    )
    assert text.rstrip().endswith("Part-time staff get days pro rata.")  # the footnote, last
    assert "first.1" not in text and "first. Part-time" not in text  # no mark in the sentence


def test_odt_chunks_name_their_section(tmp_path: Path) -> None:
    [doc] = load_path(handbook(tmp_path / "people.odt"))
    chunks = chunk_document(doc, max_tokens=60, count_tokens=lambda t: len(t.split()))
    sections = {c.section for c in chunks}
    assert ("Vacation", "Sick leave") in sections and ("Salary levels",) in sections
    sick = next(c for c in chunks if c.section == ("Vacation", "Sick leave"))
    assert "Call your manager before 9:00." in sick.text and "$140,000" not in sick.text


def test_odt_title_falls_back_to_the_first_heading_then_the_stem(tmp_path: Path) -> None:
    doc = OpenDocumentText()
    doc.text.addElement(H(outlinelevel=1, text="Travel policy"))
    doc.text.addElement(P(text="Book trains for trips under four hours."))
    doc.save(str(tmp_path / "travel.odt"))
    assert load_path(tmp_path / "travel.odt")[0].title == "Travel policy"
    doc = OpenDocumentText()
    doc.text.addElement(P(text="Just a note without headings."))
    doc.save(str(tmp_path / "note.odt"))
    assert load_path(tmp_path / "note.odt")[0].title == "note"


def test_odt_leaves_out_comments_tracked_deletions_and_the_table_of_contents(
    tmp_path: Path,
) -> None:
    """What is no text of the document: a reviewer's comment, a deleted sentence kept for
    change tracking, and a table of contents that repeats the headings."""
    path = handbook(tmp_path / "people.odt")
    with zipfile.ZipFile(path) as z:
        parts = {name: z.read(name) for name in z.namelist()}
    extra = (
        "<text:tracked-changes><text:changed-region text:id='c1'><text:deletion>"
        "<text:p>Deleted: unlimited vacation.</text:p></text:deletion></text:changed-region>"
        "</text:tracked-changes>"
        "<text:table-of-content text:name='toc'><text:index-body>"
        "<text:p>Contents Vacation 1 Salary levels 2</text:p></text:index-body>"
        "</text:table-of-content>"
        "<text:p>Approved by HR.<office:annotation><text:p>Reviewer: check this</text:p>"
        "</office:annotation></text:p>"
    )
    parts["content.xml"] = parts["content.xml"].replace(
        b"<office:text>", b"<office:text>" + extra.encode()
    )
    with zipfile.ZipFile(path, "w") as z:
        for name, data in parts.items():
            z.writestr(name, data)
    text = load_path(path)[0].text
    assert "Approved by HR." in text
    for gone in ("unlimited vacation", "Contents Vacation", "Reviewer"):
        assert gone not in text


def _zip(parts: dict[str, str | bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in parts.items():
            z.writestr(name, data)
    return buf.getvalue()


_MANIFEST_ENCRYPTED = (
    '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">'
    '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml">'
    '<manifest:encryption-data manifest:checksum-type="SHA1/1K" manifest:checksum="x">'
    '<manifest:algorithm manifest:algorithm-name="Blowfish CFB" '
    'manifest:initialisation-vector="y"/>'
    "</manifest:encryption-data></manifest:file-entry></manifest:manifest>"
)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"plain text, not a zip", "cannot read ODT: not an .odt file"),
        (b"PK\x03\x04 truncated", "cannot read ODT: not an .odt file"),
        (_zip({"hello.txt": "hi"}), "cannot read ODT: no content.xml in the file"),
        (
            _zip(
                {
                    "mimetype": "application/vnd.oasis.opendocument.text",
                    "META-INF/manifest.xml": _MANIFEST_ENCRYPTED,
                    "content.xml": b"\x8f\x03binary ciphertext",
                }
            ),
            "password-protected; save it without a password",
        ),
        (
            _zip({"mimetype": "application/vnd.oasis.opendocument.text", "content.xml": "<a><b>"}),
            "cannot read ODT: content.xml is not XML",
        ),
        (
            _zip(
                {
                    "mimetype": "application/vnd.oasis.opendocument.spreadsheet",
                    "content.xml": "<a/>",
                }
            ),
            "not a text document but application/vnd.oasis.opendocument.spreadsheet",
        ),
        (
            _zip({"mimetype": "application/vnd.oasis.opendocument.text", "content.xml": "<a/>"}),
            "content.xml has no text body",
        ),
        (  # a billion laughs: a kilobyte of entities that expands to gigabytes
            _zip(
                {
                    "content.xml": '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa">'
                    + "".join(
                        f'<!ENTITY {chr(98 + i)} "' + f"&{chr(97 + i)};" * 10 + '">'
                        for i in range(9)
                    )
                    + "]><l>&j;</l>"
                }
            ),
            "cannot read ODT: content.xml declares a DTD",
        ),
    ],
)
def test_bad_odt_files_are_loader_errors_with_reasons(
    tmp_path: Path, content: bytes, reason: str
) -> None:
    path = tmp_path / "bad.odt"
    path.write_bytes(content)
    with pytest.raises(LoaderError, match=re.escape(reason)):
        load_path(path)


def test_an_odt_with_only_empty_paragraphs_has_no_text(tmp_path: Path) -> None:
    doc = OpenDocumentText()
    doc.text.addElement(P(text="   "))
    doc.save(str(tmp_path / "blank.odt"))
    with pytest.raises(LoaderError, match="no text in the OpenDocument text"):
        load_path(tmp_path / "blank.odt")


def test_an_odt_whose_xml_expands_past_the_text_limit_is_skipped_unread(tmp_path: Path) -> None:
    """A zip bomb costs a look at the zip's directory: 60 MB of XML compresses to kilobytes."""
    path = tmp_path / "bomb.odt"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        z.writestr("content.xml", "<a/>" * 15_000_000)
    assert_a_zip_bomb_is_skipped_unread(path)


def test_deeply_nested_odt_is_a_reason_not_a_crash(tmp_path: Path) -> None:
    ns = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ' + (
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"'
    )
    deep = "<text:section>" * 50_000 + "<text:p>x</text:p>" + "</text:section>" * 50_000
    content = f"<office:document-content {ns}><office:body><office:text>{deep}"
    content += "</office:text></office:body></office:document-content>"
    path = tmp_path / "deep.odt"
    path.write_bytes(_zip({"content.xml": content}))
    with pytest.raises(LoaderError, match="nested too deeply"):
        load_path(path)


def test_a_broken_odt_costs_only_itself(tmp_path: Path) -> None:
    assert_a_broken_file_costs_only_itself(tmp_path, ".odt", handbook)


@pytest.mark.model
def test_an_odt_handbook_is_answered_with_its_own_section(project_dir: Path, minilm) -> None:  # type: ignore[no-untyped-def]
    docs = project_dir / "docs"
    docs.mkdir()
    handbook(docs / "people.odt")
    with one_document_assistant(project_dir, minilm, docs) as assistant:
        chat = assistant.session()
        answer = chat.ask("What salary does a senior get in 2026?")
        assert "$150,000" in answer.answer
        assert answer.citations[0].doc == "people.odt"
        assert answer.citations[0].title == "People Handbook"
        follow = chat.ask("and what do I do when I'm sick?")
        assert "Call your manager before 9:00." in follow.answer
