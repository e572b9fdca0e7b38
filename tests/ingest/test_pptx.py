"""PowerPoint decks: slides as sections, bullets by level, tables, links and notes as the
chunker reads them, every bad file a reason, and a deck answered end to end."""

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

pytest.importorskip("pptx")  # python-pptx writes the fixtures (the dev extra)

from pptx import Presentation
from pptx.util import Inches


def _box(slide, text: str) -> None:  # type: ignore[no-untyped-def]
    slide.shapes.add_textbox(Inches(1), Inches(2), Inches(6), Inches(1)).text_frame.text = text


def deck(path: Path, *, title: str | None = "People Onboarding") -> Path:
    """An onboarding deck as PowerPoint writes one: a title slide, bullets at two levels with
    a link and speaker notes, a table with a header row, a hidden slide, an untitled slide."""
    prs = Presentation()
    if title:
        prs.core_properties.title = title
    slide = prs.slides.add_slide(prs.slide_layouts[0])
    slide.shapes.title.text = "Welcome to Acme"
    slide.placeholders[1].text = "Your first week"
    slide = prs.slides.add_slide(prs.slide_layouts[1])
    slide.shapes.title.text = "Vacation"
    frame = slide.placeholders[1].text_frame
    frame.text = "Every employee gets 20 days of paid vacation a year."
    for text, level in (
        ("Book time off in:", 0),
        ("HR Links", 1),
        ("the team calendar", 1),
        ("Tell your manager two weeks ahead.", 0),
    ):
        para = frame.add_paragraph()
        para.text, para.level = text, level
    para = frame.add_paragraph()
    para.add_run().text = "Read the "
    run = para.add_run()
    run.text = "time off page"
    run.hyperlink.address = "https://hr.example/time-off"
    para.add_run().text = " first."
    slide.notes_slide.notes_text_frame.text = "Part-time staff get days pro rata."
    slide = prs.slides.add_slide(prs.slide_layouts[5])
    slide.shapes.title.text = "Salary levels"
    table = slide.shapes.add_table(3, 3, Inches(1), Inches(2), Inches(6), Inches(2)).table
    rows = (("Level", "2025", "2026"), ("Junior", "$90,000", "$95,000"))
    for r, row in enumerate((*rows, ("Senior", "$140,000", "$150,000"))):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    slide = prs.slides.add_slide(prs.slide_layouts[5])
    slide.shapes.title.text = "Reorg draft"
    _box(slide, "The sales team moves to Berlin.")
    slide._element.set("show", "0")  # hidden: python-pptx has no API for it
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    _box(slide, "Questions? Ask in the people-help channel.")
    prs.save(str(path))
    return path


def test_pptx_is_a_supported_extension() -> None:
    assert ".pptx" in supported_extensions()


def test_pptx_slides_become_sections_with_lists_tables_links_and_notes(tmp_path: Path) -> None:
    [doc] = load_path(deck(tmp_path / "onboarding.pptx"))
    assert (doc.title, doc.format) == ("People Onboarding", "pptx")
    assert doc.text.startswith(
        "# People Onboarding\n\n## Welcome to Acme\n\nYour first week\n\n## Vacation\n\n"
        "Every employee gets 20 days of paid vacation a year.\n\n"
        "- Book time off in:\n  - HR Links\n  - the team calendar\n\n"
        "Tell your manager two weeks ahead.\n\n"
        "Read the [time off page](https://hr.example/time-off) first.\n\n"
        "Part-time staff get days pro rata.\n\n## Salary levels\n\n"  # the notes, last
    )
    assert (
        "| Level | 2025 | 2026 |\n| --- | --- | --- |\n| Junior | $90,000 | $95,000 |\n"
        "| Senior | $140,000 | $150,000 |" in doc.text
    )
    assert "Reorg draft" not in doc.text and "Berlin" not in doc.text  # the hidden slide
    # The untitled slide is named by its number in the deck, the hidden one counted.
    assert doc.text.rstrip().endswith("## Slide 5\n\nQuestions? Ask in the people-help channel.")


def test_pptx_slides_follow_the_slide_list_not_the_part_names(tmp_path: Path) -> None:
    """Moving a slide in PowerPoint reorders presentation.xml's list, not the part names."""
    path = deck(tmp_path / "onboarding.pptx")
    with zipfile.ZipFile(path) as z:
        parts = {name: z.read(name) for name in z.namelist()}
    xml = parts["ppt/presentation.xml"].decode()
    ids = re.findall(r"<p:sldId [^>]*/>", xml)
    xml = xml.replace(ids[1], "\0").replace(ids[2], ids[1]).replace("\0", ids[2])
    parts["ppt/presentation.xml"] = xml.encode()
    path.write_bytes(_zip(parts))
    text = load_path(path)[0].text
    assert text.index("## Salary levels") < text.index("## Vacation")


def test_a_slide_listed_twice_is_read_once(tmp_path: Path) -> None:
    """A crafted slide list naming one slide a thousand times cannot multiply its text."""
    path = deck(tmp_path / "onboarding.pptx")
    with zipfile.ZipFile(path) as z:
        parts = {name: z.read(name) for name in z.namelist()}
    xml = parts["ppt/presentation.xml"].decode()
    first = re.findall(r"<p:sldId [^>]*/>", xml)[1]
    parts["ppt/presentation.xml"] = xml.replace(first, first * 1000).encode()
    path.write_bytes(_zip(parts))
    assert load_path(path)[0].text.count("## Vacation") == 1


def test_pptx_chunks_name_their_slide(tmp_path: Path) -> None:
    [doc] = load_path(deck(tmp_path / "onboarding.pptx"))
    chunks = chunk_document(doc, max_tokens=60, count_tokens=lambda t: len(t.split()))
    by_section = {c.section: c.text for c in chunks}
    salary = next(t for s, t in by_section.items() if s and s[-1] == "Salary levels")
    vacation = next(t for s, t in by_section.items() if s and s[-1] == "Vacation")
    assert "$150,000" in salary and "$150,000" not in vacation
    assert "pro rata" in vacation


def test_pptx_title_falls_back_to_the_first_slide_then_the_stem(tmp_path: Path) -> None:
    [doc] = load_path(deck(tmp_path / "onboarding.pptx", title=None))
    assert doc.title == "Welcome to Acme"
    assert doc.text.startswith("# Welcome to Acme\n\nYour first week\n\n## Vacation")  # once
    prs = Presentation()
    _box(prs.slides.add_slide(prs.slide_layouts[6]), "Just a note on a blank slide.")
    prs.save(str(tmp_path / "note.pptx"))
    [doc] = load_path(tmp_path / "note.pptx")
    assert (doc.title, doc.text) == ("note", "## Slide 1\n\nJust a note on a blank slide.\n")


def test_pptx_explicit_bullets_and_deep_levels_nest_one_step_at_a_time(tmp_path: Path) -> None:
    """A list may start at level 2 or skip a level: each item nests one under its parent."""
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[5])
    slide.shapes.title.text = "Steps"
    frame = slide.shapes.add_textbox(Inches(1), Inches(2), Inches(6), Inches(3)).text_frame
    frame.text = "Before you start:"
    for text, level in (("Laptop", 2), ("Badge", 4), ("Keys", 2), ("Then meet HR.", 0)):
        para = frame.add_paragraph()
        para.text, para.level = text, level
    prs.save(str(tmp_path / "steps.pptx"))
    text = load_path(tmp_path / "steps.pptx")[0].text
    assert "- Before you start:\n  - Laptop\n    - Badge\n  - Keys\n\nThen meet HR." in text


def _zip(parts: dict[str, str | bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in parts.items():
            z.writestr(name, data)
    return buf.getvalue()


_P = "http://schemas.openxmlformats.org/presentationml/2006/main"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"plain text, not a zip", "cannot read PPTX: not a .pptx file"),
        (b"PK\x03\x04 truncated", "cannot read PPTX: not a .pptx file"),
        (
            b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600,
            "legacy PowerPoint 97-2003 presentation or a password-protected one",
        ),
        (_zip({"hello.txt": "hi"}), "cannot read PPTX: no ppt/presentation.xml in the file"),
        (_zip({"ppt/presentation.xml": "<a><b>"}), "ppt/presentation.xml is not XML"),
        (  # a billion laughs: a kilobyte of entities that expands to gigabytes
            _zip(
                {
                    "ppt/presentation.xml": '<?xml version="1.0"?><!DOCTYPE l ['
                    '<!ENTITY a "aaaaaaaaaa">'
                    + "".join(
                        f'<!ENTITY {chr(98 + i)} "' + f"&{chr(97 + i)};" * 10 + '">'
                        for i in range(9)
                    )
                    + "]><l>&j;</l>"
                }
            ),
            "cannot read PPTX: ppt/presentation.xml declares a DTD",
        ),
        (
            _zip({"ppt/presentation.xml": f'<p:presentation xmlns:p="{_P}"/>'}),
            "no text in the deck",
        ),
    ],
)
def test_bad_pptx_files_are_loader_errors_with_reasons(
    tmp_path: Path, content: bytes, reason: str
) -> None:
    path = tmp_path / "bad.pptx"
    path.write_bytes(content)
    with pytest.raises(LoaderError, match=re.escape(reason)):
        load_path(path)


def test_a_slide_that_is_not_xml_is_a_reason(tmp_path: Path) -> None:
    path = deck(tmp_path / "onboarding.pptx")
    with zipfile.ZipFile(path) as z:
        parts = {name: z.read(name) for name in z.namelist()}
    parts["ppt/slides/slide2.xml"] = b"<p:sld"
    path.write_bytes(_zip(parts))
    with pytest.raises(LoaderError, match=re.escape("ppt/slides/slide2.xml is not XML")):
        load_path(path)


def test_a_deck_of_empty_slides_has_no_text(tmp_path: Path) -> None:
    prs = Presentation()
    prs.slides.add_slide(prs.slide_layouts[6])
    prs.slides.add_slide(prs.slide_layouts[1])  # empty title and body placeholders
    prs.save(str(tmp_path / "blank.pptx"))
    with pytest.raises(LoaderError, match="no text in the deck"):
        load_path(tmp_path / "blank.pptx")


def test_a_pptx_whose_xml_expands_past_the_text_limit_is_skipped_unread(tmp_path: Path) -> None:
    """A zip bomb costs a look at the zip's directory: 60 MB of XML compresses to kilobytes."""
    path = tmp_path / "bomb.pptx"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("ppt/presentation.xml", "<a/>")
        z.writestr("ppt/slides/slide1.xml", "<a/>" * 15_000_000)
    assert_a_zip_bomb_is_skipped_unread(path)


def test_a_broken_pptx_costs_only_itself(tmp_path: Path) -> None:
    assert_a_broken_file_costs_only_itself(tmp_path, ".pptx", deck)


@pytest.mark.model
def test_a_deck_is_answered_with_its_own_slide(project_dir: Path, minilm) -> None:  # type: ignore[no-untyped-def]
    docs = project_dir / "docs"
    docs.mkdir()
    deck(docs / "onboarding.pptx")
    with one_document_assistant(project_dir, minilm, docs) as assistant:
        chat = assistant.session()
        answer = chat.ask("What salary does a senior get in 2026?")
        assert "$150,000" in answer.answer
        assert answer.citations[0].doc == "onboarding.pptx"
        assert answer.citations[0].title == "People Onboarding"
        follow = chat.ask("how many vacation days do I get?")
        assert "20 days" in follow.answer
