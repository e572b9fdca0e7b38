"""The same handbook as Word files, web pages, OpenDocument, reStructuredText, PDFs or
PowerPoint decks, and as Markdown: does each answer as well?

    HF_HUB_OFFLINE=1 nice -n 5 .venv/bin/python bench/format_parity.py \
        [--corpus clef tts posthog gitlab] [--format docx html pdf odt rst pptx]

Handbooks and policies often live in Word, LibreOffice, PDFs or on an intranet, support docs
in Sphinx, and onboarding in slide decks. Each loader (`ingest.loaders.docx`, `.html`, `.odt`,
`.rst`, `.pdf`, `.pptx`) reads a document into the Markdown-like text the chunker reads. This
bench writes each bundled Markdown handbook as Word files (headings as Heading 1-6, list
items as Word list paragraphs at their depth, pipe tables as Word tables, bold and links as
runs; python-docx, the dev extra), as HTML pages (markdown-it's rendering, the title in
`<title>`), as .odt files (odfpy, the dev extra: headings with their outline level, lists
nested in their items, tables with a header row, bold as a text style, links), as .rst pages
(a title heading, sections underlined by depth, list-tables, literal blocks), as PDFs (the
HTML pages printed by headless Chromium, which needs `chromium` on the PATH) or as decks
(python-pptx: a slide per `#`/`##` section, list items as bulleted paragraphs at their depth,
tables as slide tables), with the conversations' gold documents renamed, and runs the
default-mode trial (`bench/handbook_trial.py`) on each. A loader that keeps what the
Markdown says gives the same answers; one that loses sections, lists, tables or links shows
up as turns lost. Results: bench/results/format_parity.md.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from handbook_corpora import CORPORA  # noqa: E402

NOT_DOCUMENTS = ("README.md", "LICENSE.md")
MODE = "floor (default)"
_W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.S)


Run = tuple[str, bool, str]
"""Text, bold, and the address of the link it is the text of ("" outside links)."""


def _inline(token: Any) -> list[Run]:
    """The runs of an inline token: bold and links kept, images and other markup dropped."""
    runs: list[Run] = []
    bold, href = 0, ""
    for child in token.children or []:
        if child.type == "strong_open":
            bold += 1
        elif child.type == "strong_close":
            bold -= 1
        elif child.type == "link_open":
            href = str(child.attrs.get("href", ""))
        elif child.type == "link_close":
            href = ""
        elif child.type in ("text", "code_inline"):
            runs.append((child.content, bold > 0, href))
        elif child.type in ("softbreak", "hardbreak"):
            runs.append((" ", False, ""))
    return runs


def _paragraph(document: Any, runs: list[Run], style: str | None = None) -> Any:
    """A paragraph of `runs`; a link's runs go inside a Word hyperlink to its address."""
    from xml.sax.saxutils import escape

    from docx.opc.constants import RELATIONSHIP_TYPE
    from docx.oxml import parse_xml

    p = document.add_paragraph(style=style)
    for text, bold, href in runs:
        if not href:
            p.add_run(text).bold = bold
            continue
        rid = document.part.relate_to(href, RELATIONSHIP_TYPE.HYPERLINK, is_external=True)
        rpr = "<w:rPr><w:b/></w:rPr>" if bold else ""
        p._p.append(
            parse_xml(
                f'<w:hyperlink {_W} xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/'
                f'relationships" r:id="{rid}"><w:r>{rpr}<w:t xml:space="preserve">{escape(text)}'
                "</w:t></w:r></w:hyperlink>"
            )
        )
    return p


def _list_numbering(document: Any) -> dict[str, int]:
    """Two Word list definitions (bullets, decimals; nine levels each, indented as Word
    indents them) added to the document's numbering part: {"bullet": numId, "ordered": numId}.
    python-docx's template lists have one level only, so a nested item would come out flat."""
    from docx.oxml import parse_xml
    from docx.oxml.ns import qn

    numbering = document.part.numbering_part.element
    abstract = max(
        (int(a.get(qn("w:abstractNumId"))) for a in numbering.findall(qn("w:abstractNum"))),
        default=0,
    )
    nums = max((int(n.get(qn("w:numId"))) for n in numbering.findall(qn("w:num"))), default=0)
    out = {}
    for k, (kind, fmt) in enumerate((("bullet", "bullet"), ("ordered", "decimal"))):
        levels = "".join(
            f'<w:lvl w:ilvl="{i}"><w:start w:val="1"/><w:numFmt w:val="{fmt}"/>'
            f'<w:lvlText w:val="{"•" if fmt == "bullet" else f"%{i + 1}."}"/>'
            f'<w:pPr><w:ind w:left="{720 * (i + 1)}" w:hanging="360"/></w:pPr></w:lvl>'
            for i in range(9)
        )
        aid, nid = abstract + 1 + k, nums + 1 + k
        numbering.insert(
            k, parse_xml(f'<w:abstractNum {_W} w:abstractNumId="{aid}">{levels}</w:abstractNum>')
        )
        numbering.append(
            parse_xml(f'<w:num {_W} w:numId="{nid}"><w:abstractNumId w:val="{aid}"/></w:num>')
        )
        out[kind] = nid
    return out


def _numbered(paragraph: Any, num_id: int, level: int) -> None:
    from docx.oxml import parse_xml

    paragraph._p.get_or_add_pPr().append(
        parse_xml(f'<w:numPr {_W}><w:ilvl w:val="{level}"/><w:numId w:val="{num_id}"/></w:numPr>')
    )


def _html_block(document: Any, html: str) -> None:
    """An HTML block of the Markdown (Clef's holiday table): its tables as Word tables, the
    rest of its text as paragraphs."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    for table in soup.find_all("table"):
        rows = [
            [" ".join(cell.get_text(" ").split()) for cell in tr.find_all(["td", "th"])]
            for tr in table.find_all("tr")
        ]
        rows = [r for r in rows if r]
        if rows:
            grid = document.add_table(rows=len(rows), cols=max(len(r) for r in rows))
            for row, cells in zip(grid.rows, rows, strict=True):
                for cell, text in zip(row.cells, cells, strict=False):
                    cell.text = text
        table.decompose()
    rest = " ".join(soup.get_text(" ").split())
    if rest:
        document.add_paragraph(rest)


def markdown_to_docx(markdown: str, target: Path) -> None:
    """Write `markdown` as a Word document at `target`."""
    import docx
    from markdown_it import MarkdownIt

    document = docx.Document()
    numbering = _list_numbering(document)
    front = _FRONT_MATTER.match(markdown)
    title = re.search(r"^title:\s*[\"']?(.+?)[\"']?\s*$", front.group(), re.M) if front else None
    if title:  # how a Word document carries its title: a core property and a Title paragraph
        document.core_properties.title = title.group(1)
        document.add_paragraph(title.group(1), style="Title")
    tokens = MarkdownIt("commonmark").enable("table").parse(_FRONT_MATTER.sub("", markdown))
    lists: list[str] = []  # "bullet" / "ordered", innermost last
    table: list[list[list[Run]]] | None = None
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.type == "heading_open":
            level = int(t.tag[1])
            document.add_heading("".join(text for text, _, _ in _inline(tokens[i + 1])), level)
            i += 2
        elif t.type in ("bullet_list_open", "ordered_list_open"):
            lists.append("bullet" if t.type == "bullet_list_open" else "ordered")
        elif t.type in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif t.type == "table_open":
            table = []
        elif t.type == "tr_open" and table is not None:
            table.append([])
        elif t.type == "inline" and table is not None:
            table[-1].append(_inline(t))
        elif t.type == "table_close" and table:
            width = max(len(row) for row in table)
            grid = document.add_table(rows=len(table), cols=width)
            for row, cells in zip(grid.rows, table, strict=True):
                for cell, runs in zip(row.cells, cells, strict=False):
                    cell.text = "".join(text for text, _, _ in runs)
            table = None
        elif t.type == "inline" and table is None:
            p = _paragraph(document, _inline(t), "List Paragraph" if lists else None)
            if lists:  # a Word list item at its depth, as Word writes one
                _numbered(p, numbering[lists[-1]], min(len(lists) - 1, 8))
        elif t.type in ("fence", "code_block"):
            for line in t.content.rstrip("\n").split("\n"):
                document.add_paragraph(line)
        elif t.type == "html_block":
            _html_block(document, t.content)
        i += 1
    target.parent.mkdir(parents=True, exist_ok=True)
    document.save(str(target))


def markdown_to_html(markdown: str, target: Path) -> None:
    """Write `markdown` as a web page at `target` (its front-matter title as `<title>`)."""
    from html import escape

    from markdown_it import MarkdownIt

    front = _FRONT_MATTER.match(markdown)
    title = re.search(r"^title:\s*[\"']?(.+?)[\"']?\s*$", front.group(), re.M) if front else None
    body = (
        MarkdownIt("commonmark", {"html": True})
        .enable("table")
        .render(_FRONT_MATTER.sub("", markdown))
    )
    head = f"<title>{escape(title.group(1))}</title>" if title else ""
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(f"<html><head>{head}</head><body>{body}</body></html>", encoding="utf-8")


def markdown_to_pdf(markdown: str, target: Path) -> None:
    """Write `markdown` as a PDF at `target`: the web page printed by headless Chromium (as a
    browser's "Save as PDF" would; no header or footer), so headings are set in larger type
    and the PDF's own outline lists them, as in a handbook exported from a word processor."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("--format pdf needs Chromium (apt-get install -y chromium)")
    page = target.with_suffix(".html")
    markdown_to_html(markdown, page)
    subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-pdf-header-footer",
            "--generate-pdf-document-outline",
            f"--print-to-pdf={target}",
            page.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    page.unlink()


def _odt_runs(element: Any, runs: list[Run], bold: Any) -> Any:
    """`runs` appended to an ODT paragraph: bold as a bold text style, links as links."""
    from odf.text import A, Span

    for text, strong, href in runs:
        node = Span(stylename=bold, text=text) if strong else None
        if href:
            link = A(href=href, type="simple")
            if node is not None:
                link.addElement(node)
            else:
                link.addText(text)
            element.addElement(link)
        elif node is not None:
            element.addElement(node)
        else:
            element.addText(text)
    return element


def _odt_table(rows: list[list[list[Run]]], header: int, bold: Any) -> Any:
    """An ODT table; its first `header` rows as header rows, as LibreOffice marks them."""
    from odf.table import Table, TableCell, TableColumn, TableHeaderRows, TableRow
    from odf.text import P

    table = Table()
    table.addElement(TableColumn(numbercolumnsrepeated=max(len(r) for r in rows)))
    head = TableHeaderRows() if header else None
    if head is not None:
        table.addElement(head)
    for n, cells in enumerate(rows):
        row = TableRow()
        for runs in cells:
            cell = TableCell(valuetype="string")
            cell.addElement(_odt_runs(P(), runs, bold))
            row.addElement(cell)
        (head if head is not None and n < header else table).addElement(row)
    return table


def markdown_to_odt(markdown: str, target: Path) -> None:
    """Write `markdown` as an OpenDocument text at `target`, as LibreOffice writes one: the
    front-matter title as `dc:title` and a Title paragraph, headings with their outline level,
    lists nested in their items with bullet and number list styles, tables with a header
    row, bold as an automatic bold text style, links as links."""
    from bs4 import BeautifulSoup
    from markdown_it import MarkdownIt
    from odf import dc
    from odf.opendocument import OpenDocumentText
    from odf.style import ListLevelProperties, Style, TextProperties
    from odf.text import H, List, ListItem, ListLevelStyleBullet, ListLevelStyleNumber, P
    from odf.text import ListStyle as OdfListStyle

    document = OpenDocumentText()
    bold = Style(name="T1", family="text")
    bold.addElement(TextProperties(fontweight="bold"))
    document.automaticstyles.addElement(bold)
    list_styles = {}
    for kind, level_style in (("bullet", ListLevelStyleBullet), ("ordered", ListLevelStyleNumber)):
        style = OdfListStyle(name="L1" if kind == "bullet" else "L2")
        for level in range(1, 11):
            attrs = (
                {"bulletchar": "•"} if kind == "bullet" else {"numformat": "1", "numsuffix": "."}
            )
            ls = level_style(level=level, **attrs)
            ls.addElement(ListLevelProperties())
            style.addElement(ls)
        document.automaticstyles.addElement(style)
        list_styles[kind] = style
    titled = Style(name="Title", family="paragraph")
    document.styles.addElement(titled)
    headings = {}
    for level in range(1, 7):
        headings[level] = Style(name=f"Heading_20_{level}", family="paragraph")
        document.styles.addElement(headings[level])
    body = document.text
    front = _FRONT_MATTER.match(markdown)
    title = re.search(r"^title:\s*[\"']?(.+?)[\"']?\s*$", front.group(), re.M) if front else None
    if title:
        document.meta.addElement(dc.Title(text=title.group(1)))
        body.addElement(P(stylename=titled, text=title.group(1)))
    tokens = MarkdownIt("commonmark").enable("table").parse(_FRONT_MATTER.sub("", markdown))
    lists: list[list[Any]] = []  # [list element, current item, kind], innermost last
    table: list[list[list[Run]]] | None = None
    header = 0

    def add(element: Any) -> None:
        (lists[-1][1] if lists and lists[-1][1] is not None else body).addElement(element)

    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.type == "heading_open":
            level = int(t.tag[1])
            heading = H(outlinelevel=level, stylename=headings[level])
            add(_odt_runs(heading, [(x, False, "") for x, _, _ in _inline(tokens[i + 1])], bold))
            i += 2
            continue
        if t.type in ("bullet_list_open", "ordered_list_open"):
            kind = "bullet" if t.type == "bullet_list_open" else "ordered"
            # a nested list takes the outer list's style at its level unless it names its own
            same = bool(lists) and lists[-1][2] == kind
            element = List() if same else List(stylename=list_styles[kind])
            add(element)
            lists.append([element, None, kind])
        elif t.type in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif t.type == "list_item_open":
            item = ListItem()
            lists[-1][0].addElement(item)
            lists[-1][1] = item
        elif t.type == "table_open":
            table, header = [], 0
        elif t.type == "tr_open" and table is not None:
            table.append([])
        elif t.type == "th_open":
            header = len(table or [])
        elif t.type == "inline" and table is not None:
            table[-1].append(_inline(t))
        elif t.type == "table_close" and table:
            add(_odt_table(table, header, bold))
            table = None
        elif t.type == "inline" and table is None:
            add(_odt_runs(P(), _inline(t), bold))
        elif t.type in ("fence", "code_block"):
            for line in t.content.rstrip("\n").split("\n"):
                add(P(text=line))
        elif t.type == "html_block":
            soup = BeautifulSoup(t.content, "html.parser")
            for html_table in soup.find_all("table"):
                rows = [
                    [
                        [(" ".join(c.get_text(" ").split()), False, "")]
                        for c in tr.find_all(["td", "th"])
                    ]
                    for tr in html_table.find_all("tr")
                ]
                rows = [r for r in rows if r]
                if rows:
                    add(_odt_table(rows, int(html_table.find("th") is not None), bold))
                html_table.decompose()
            rest = " ".join(soup.get_text(" ").split())
            if rest:
                add(P(text=rest))
        i += 1
    target.parent.mkdir(parents=True, exist_ok=True)
    document.save(str(target))


def _pptx_runs(paragraph: Any, runs: list[Run]) -> None:
    """`runs` appended to a slide paragraph: bold as bold runs, links as run hyperlinks."""
    for text, strong, href in runs:
        run = paragraph.add_run()
        run.text = text
        if strong:
            run.font.bold = True
        if href:
            run.hyperlink.address = href


def _bullet(paragraph: Any, ordered: bool) -> None:
    """An explicit bullet (or number) on a paragraph, as a text box's list paragraphs carry."""
    from pptx.oxml.ns import qn

    props = paragraph._p.get_or_add_pPr()
    mark = props.makeelement(qn("a:buAutoNum" if ordered else "a:buChar"), {})
    mark.set("type" if ordered else "char", "arabicPeriod" if ordered else "\u2022")
    props.append(mark)


def markdown_to_pptx(markdown: str, target: Path, slide_depth: int = 2) -> None:
    """Write `markdown` as a PowerPoint deck at `target`: the front-matter title as the
    core property and a title slide, each `#`/`##` section a slide with its title, paragraphs
    and list items as text-frame paragraphs at their depth (list items with a bullet or
    number), deeper headings as bold paragraphs (`slide_depth` 6: every heading a slide), tables
    (pipe or HTML) as slide tables with a header row when they have one; python-pptx."""
    from bs4 import BeautifulSoup
    from markdown_it import MarkdownIt
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    front = _FRONT_MATTER.match(markdown)
    title = re.search(r"^title:\s*[\"']?(.+?)[\"']?\s*$", front.group(), re.M) if front else None
    tokens = MarkdownIt("commonmark").enable("table").parse(_FRONT_MATTER.sub("", markdown))
    state: dict[str, Any] = {"slide": None, "frame": None, "used": False}

    def slide(heading: str | None) -> Any:
        layout = deck.slide_layouts[5 if heading is not None else 6]  # title only, blank
        state["slide"] = deck.slides.add_slide(layout)
        if heading is not None:
            state["slide"].shapes.title.text = heading
        state["frame"] = None
        return state["slide"]

    def paragraph(level: int) -> Any:
        current = state["slide"] or slide(None)
        if state["frame"] is None:
            box = current.shapes.add_textbox(Inches(0.5), Inches(1.5), Inches(9), Inches(5))
            state["frame"], state["used"] = box.text_frame, False
        frame = state["frame"]
        para = frame.paragraphs[0] if not state["used"] else frame.add_paragraph()
        state["used"] = True
        para.level = min(level, 8)
        return para

    def table(rows: list[list[list[Run]]], header: bool) -> None:
        current = state["slide"] or slide(None)
        width = max(len(r) for r in rows)
        shape = current.shapes.add_table(
            len(rows), width, Inches(0.5), Inches(1.5), Inches(9), Inches(5)
        )
        shape.table.first_row = header
        for r, cells in enumerate(rows):
            for c, runs in enumerate(cells):
                _pptx_runs(shape.table.cell(r, c).text_frame.paragraphs[0], runs)
        state["frame"] = None  # text after the table goes below it, in reading order

    if title:  # a title slide, as a deck opens; text before the first heading goes on it
        deck.core_properties.title = title.group(1)
        slide(title.group(1))
    lists: list[list[Any]] = []  # [ordered, the item's first paragraph written], innermost last
    rows: list[list[list[Run]]] | None = None
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.type == "heading_open":
            text = "".join(x for x, _, _ in _inline(tokens[i + 1]))
            if int(t.tag[1]) <= slide_depth:
                slide(text)
            else:
                _pptx_runs(paragraph(0), [(text, True, "")])
            i += 2
            continue
        if t.type in ("bullet_list_open", "ordered_list_open"):
            lists.append([t.type == "ordered_list_open", True])
        elif t.type in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif t.type == "list_item_open":
            lists[-1][1] = False
        elif t.type == "table_open":
            rows = []
        elif t.type == "tr_open" and rows is not None:
            rows.append([])
        elif t.type == "inline" and rows is not None:
            rows[-1].append(_inline(t))
        elif t.type == "table_close" and rows:
            table(rows, True)  # markdown-it's pipe tables always have their header row
            rows = None
        elif t.type == "inline":
            para = paragraph(len(lists) - 1 if lists else 0)
            if lists and not lists[-1][1]:
                _bullet(para, lists[-1][0])
                lists[-1][1] = True
            _pptx_runs(para, _inline(t))
        elif t.type in ("fence", "code_block"):
            for line in t.content.rstrip("\n").split("\n"):
                _pptx_runs(paragraph(0), [(line, False, "")])
        elif t.type == "html_block":
            soup = BeautifulSoup(t.content, "html.parser")
            for html_table in soup.find_all("table"):
                found = [
                    [
                        [(" ".join(c.get_text(" ").split()), False, "")]
                        for c in tr.find_all(["td", "th"])
                    ]
                    for tr in html_table.find_all("tr")
                ]
                found = [r for r in found if r]
                if found:
                    table(found, html_table.find("th") is not None)
                html_table.decompose()
            rest = " ".join(soup.get_text(" ").split())
            if rest:
                _pptx_runs(paragraph(0), [(rest, False, "")])
        i += 1
    target.parent.mkdir(parents=True, exist_ok=True)
    deck.save(str(target))


_RST_SPECIAL = re.compile(r"([\\`*_|])")
_RST_CONSTRUCT = re.compile(
    r"(?:[-+*•]|\d+[.)]|[a-zA-Z#][.)]|\(\w+\)|\.\.|:[^:\s][^:]*:|>>>)(?:\s|$)"
)
"""A paragraph opening that reStructuredText reads as a list, a directive or a field."""
_RST_ADORN = '=-~^"+'
"""Section underlines by depth: the first style met is a top-level section, and so on."""


def _rst_escape(text: str) -> str:
    return _RST_SPECIAL.sub(r"\\\1", text)


def _rst_runs(runs: list[Run]) -> str:
    """Runs as reStructuredText: bold as `**`, links as anonymous hyperlinks, the rest
    escaped; markup that touches a word is set off by an escaped space, as the syntax needs."""
    merged: list[Run] = []  # bold over a line break is one bold run, not two
    for text, bold, href in runs:
        if merged and not href and not merged[-1][2]:
            last, last_bold, _ = merged[-1]
            if last_bold == bold or not text.strip():
                merged[-1] = (last + text, last_bold, "")
                continue
        merged.append((text, bold, href))
    pieces: list[tuple[bool, str]] = []  # (is markup, text)
    for text, bold, href in merged:
        core = text.strip()
        lead, trail = text[: len(text) - len(text.lstrip())], text[len(text.rstrip()) :]
        if href and core and not re.search(r"[\s<>`]", href):
            label = re.sub(r"([`<>\\])", r"\\\1", core)
            pieces += [(False, lead), (True, f"`{label} <{href}>`__"), (False, trail)]
        elif bold and core:
            pieces += [
                (False, lead),
                (True, "**" + _rst_escape(core) + "**"),
                (False, trail),
            ]
        else:
            pieces.append((False, _rst_escape(text)))
    out = ""
    touching = False  # the last piece was markup
    for markup, text in pieces:
        if not text:
            continue
        if (markup or touching) and out and not out[-1].isspace() and not text[0].isspace():
            out += "\\ "
        out += text
        touching = markup
    return " ".join(out.split())


def _rst_paragraph(runs: list[Run]) -> str:
    text = _rst_runs(runs)
    return "\\" + text if _RST_CONSTRUCT.match(text) else text


def _rst_table(rows: list[list[str]], header: bool) -> list[str]:
    width = max(len(r) for r in rows)
    lines = [".. list-table::"] + (["   :header-rows: 1"] if header else []) + [""]
    for row in rows:
        for n, cell in enumerate(row + [""] * (width - len(row))):
            lines.append(f"   {'* ' if n == 0 else '  '}- {cell}".rstrip())
    return lines


def markdown_to_rst(markdown: str, target: Path) -> None:
    """Write `markdown` as reStructuredText at `target`, as a Sphinx page is written: it opens
    with its title (the front matter's, else the file name, unless a top-level heading opens
    it: reStructuredText has no heading levels of its own, so a page whose headings start at
    `##` would make its first `##` the page title), headings underlined by depth (a skipped
    level closes up: reStructuredText has no section without a parent), nested bullet and
    numbered lists, pipe and HTML tables as list-tables with their header row, code as
    literal blocks, quotes indented, bold and links as reStructuredText writes them."""
    from bs4 import BeautifulSoup
    from markdown_it import MarkdownIt

    out: list[str] = []
    front = _FRONT_MATTER.match(markdown)
    title = re.search(r"^title:\s*[\"']?(.+?)[\"']?\s*$", front.group(), re.M) if front else None
    tokens = MarkdownIt("commonmark").enable("table").parse(_FRONT_MATTER.sub("", markdown))
    opens_with_h1 = bool(tokens) and tokens[0].type == "heading_open" and tokens[0].tag == "h1"
    sections: list[int] = []  # Markdown heading levels of the open sections
    if not opens_with_h1:  # a page opens with its title: the front matter's, else the name
        name = _rst_escape(title.group(1) if title else target.stem)
        out += [name, "=" * (len(name) + 2)]
        sections.append(0)
    elif title:
        out += [f".. title:: {title.group(1)}", ""]
    items: list[list[Any]] = []  # [marker, used], innermost last: list items and quotes
    numbers: list[int] = []  # the next number of each open numbered list (0: bullets)
    table: list[list[str]] | None = None
    header = False

    def emit(lines: list[str]) -> None:
        """A block at the current depth, the open list item's marker on its first line."""
        outer = "".join(" " * len(m) for m, _ in items[:-1])
        full = outer + (" " * len(items[-1][0]) if items else "")
        out.append("")
        for n, line in enumerate(lines):
            if n == 0 and items and not items[-1][1]:
                out.append((outer + items[-1][0] + line).rstrip())
                items[-1][1] = True
            else:
                out.append((full + line).rstrip() if line else "")

    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.type == "heading_open":
            text = _rst_runs([(x, False, "") for x, _, _ in _inline(tokens[i + 1])])
            if text and not items:
                level = int(t.tag[1])
                while sections and sections[-1] >= level:
                    sections.pop()
                sections.append(level)
                adorn = _RST_ADORN[min(len(sections), len(_RST_ADORN)) - 1]
                emit([text, adorn * (len(text) + 2)])
            elif text:
                emit([text])
            i += 2
            continue
        if t.type in ("bullet_list_open", "ordered_list_open"):
            numbers.append(int(t.attrGet("start") or 1) if t.type == "ordered_list_open" else 0)
        elif t.type in ("bullet_list_close", "ordered_list_close"):
            numbers.pop()
        elif t.type == "list_item_open":
            marker = f"{numbers[-1]}. " if numbers[-1] else "- "
            if numbers[-1]:
                numbers[-1] += 1
            items.append([marker, False])
        elif t.type == "list_item_close":
            if not items[-1][1]:
                emit([""])
            items.pop()
        elif t.type == "blockquote_open":
            items.append(["    ", False])
        elif t.type == "blockquote_close":
            items.pop()
        elif t.type == "table_open":
            table, header = [], False
        elif t.type == "tr_open" and table is not None:
            table.append([])
        elif t.type == "th_open":
            header = True
        elif t.type == "inline" and table is not None:
            table[-1].append(_rst_paragraph(_inline(t)))
        elif t.type == "table_close" and table:
            emit(_rst_table(table, header))
            table = None
        elif t.type == "inline" and table is None:
            text = _rst_paragraph(_inline(t))
            if text:
                emit([text])
        elif t.type in ("fence", "code_block") and t.content.strip():
            emit(["::", "", *("    " + line for line in t.content.rstrip("\n").split("\n"))])
        elif t.type == "html_block":
            soup = BeautifulSoup(t.content, "html.parser")
            for html_table in soup.find_all("table"):
                rows = [
                    [
                        _rst_paragraph([(" ".join(c.get_text(" ").split()), False, "")])
                        for c in tr.find_all(["td", "th"])
                    ]
                    for tr in html_table.find_all("tr")
                ]
                rows = [r for r in rows if r]
                if rows:
                    emit(_rst_table(rows, html_table.find("th") is not None))
                html_table.decompose()
            rest = " ".join(soup.get_text(" ").split())
            if rest:
                emit([_rst_paragraph([(rest, False, "")])])
        i += 1
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("\n".join(out).strip("\n") + "\n", encoding="utf-8")


WRITERS = {
    "docx": markdown_to_docx,
    "html": markdown_to_html,
    "pdf": markdown_to_pdf,
    "odt": markdown_to_odt,
    "rst": markdown_to_rst,
    "pptx": markdown_to_pptx,
}


SITE_PYTHON = sys.executable
"""The Python that has MkDocs (mkdocs-material) and Sphinx (furo, myst-parser) installed:
`--site-python`. They are only needed to build the sites, never by tellmemore."""


def build_site(generator: str, corpus_root: Path, root: Path) -> None:
    """The corpus built as a documentation site by `generator` into `root`: every page with
    its theme's chrome (site navigation, table of contents, heading permalinks, search box,
    footer), as a user's published support docs are. Page paths are the Markdown files'
    paths with `.html` (MkDocs without directory URLs; Sphinx's own)."""
    src = Path(tempfile.mkdtemp(prefix=f"site-{generator}-"))
    docs = src / "docs"
    shutil.copytree(corpus_root, docs, ignore=shutil.ignore_patterns(*NOT_DOCUMENTS))
    for page in docs.rglob("*.md"):  # "#Title" is a heading to Python-Markdown, not to MyST
        text = page.read_text(encoding="utf-8")
        page.write_text(re.sub(r"^(#{1,6})(?=[^#\s])", r"\1 ", text, flags=re.M), "utf-8")
    pages = sorted(p.relative_to(docs).with_suffix("").as_posix() for p in docs.rglob("*.md"))
    site = corpus_root.name.replace("_", " ").title()
    if generator == "mkdocs":
        (src / "mkdocs.yml").write_text(
            f"site_name: {site}\nuse_directory_urls: false\ntheme:\n  name: material\n"
            "markdown_extensions:\n  - toc:\n      permalink: true\n  - tables\n",
            encoding="utf-8",
        )
        command = [SITE_PYTHON, "-m", "mkdocs", "build", "-q", "-f", str(src / "mkdocs.yml")]
        command += ["-d", str(root)]
    elif generator == "docusaurus":
        command = _docusaurus_project(src, docs, root)
    else:
        toctree = "".join(f"   {p}\n" for p in pages)
        (docs / "index.rst").write_text(
            f"{site}\n{'=' * len(site)}\n\n.. toctree::\n   :maxdepth: 2\n\n{toctree}",
            encoding="utf-8",
        )
        (docs / "conf.py").write_text(
            f"project = {site!r}\nextensions = ['myst_parser']\nhtml_theme = 'furo'\n"
            "source_suffix = {'.rst': 'restructuredtext', '.md': 'markdown'}\n"
            "html_copy_source = False\n"  # else each page's source is a second .txt document
            "myst_title_to_header = True\n",  # a front matter title is the page's heading
            encoding="utf-8",
        )
        command = [SITE_PYTHON, "-m", "sphinx", "-q", "-b", "html", str(docs), str(root)]
    shutil.rmtree(root, ignore_errors=True)
    subprocess.run(command, check=True, capture_output=True, cwd=src)
    shutil.rmtree(src, ignore_errors=True)


DOCUSAURUS: Path | None = None
"""A Docusaurus project made by `npx create-docusaurus@3 site classic --javascript` and
`npm install` (`--docusaurus`): its config and installed packages build each handbook."""
_EDIT = "/templates/shared/"
"""Where the classic template's "Edit this page" links point: the page's source path follows."""


def _docusaurus_project(src: Path, docs: Path, root: Path) -> list[str]:
    """`src` made a copy of the Docusaurus project around `docs`: blog and home page off,
    Markdown files read as CommonMark (not MDX, which rejects a handbook's bare `<` and `{`),
    broken links only warned about. Returns the build command."""
    if DOCUSAURUS is None:
        raise SystemExit("--format docusaurus needs --docusaurus PROJECT (see its help)")
    for name in ("docusaurus.config.js", "sidebars.js", "package.json", "static"):
        if (DOCUSAURUS / name).is_dir():
            shutil.copytree(DOCUSAURUS / name, src / name)
        else:
            shutil.copy2(DOCUSAURUS / name, src / name)
    (src / "src" / "css").mkdir(parents=True)
    shutil.copy2(DOCUSAURUS / "src" / "css" / "custom.css", src / "src" / "css" / "custom.css")
    (src / "node_modules").symlink_to(DOCUSAURUS / "node_modules")
    config = (src / "docusaurus.config.js").read_text(encoding="utf-8")
    config = re.sub(
        r"        blog: \{.*?\n        \},\n", "        blog: false,\n", config, flags=re.S
    )
    config = re.sub(r"\{to: '/blog'[^}]*\},|\{\s*label: 'Blog',\s*to: '/blog',\s*\},", "", config)
    config = config.replace("onBrokenLinks: 'throw'", "onBrokenLinks: 'warn'")
    if "format: 'detect'" not in config:
        config = config.replace(
            "onBrokenLinks: 'warn',", "onBrokenLinks: 'warn',\n  markdown: {format: 'detect'},"
        )
    (src / "docusaurus.config.js").write_text(config, encoding="utf-8")
    for page in docs.rglob("*.md"):  # Docusaurus validates front matter keys ("keywords")
        text = page.read_text(encoding="utf-8")
        front = _FRONT_MATTER.match(text)
        if front:
            title = re.search(r"^title:.*$", front.group(0), re.M)
            kept = f"---\n{title.group(0)}\n---\n" if title else ""
            page.write_text(kept + text[front.end() :], encoding="utf-8")
    return ["npx", "docusaurus", "build", "--out-dir", str(root)]


def docusaurus_pages(root: Path) -> dict[str, str]:
    """Each built page's source (`Benefits/Leave.md`) to its path in the site
    (`docs/Benefits/Leave/index.html`), read from the page's "Edit this page" link."""
    pages: dict[str, str] = {}
    for page in root.rglob("*.html"):
        html = page.read_text(encoding="utf-8", errors="replace")
        edit = re.escape(_EDIT) + "docs/"
        found = re.search(
            f'href="[^"]*{edit}([^"]+?\\.md)"|href=[^\\s>]*{edit}([^\\s>]+?\\.md)', html
        )
        if found:
            source = found.group(1) or found.group(2)
            pages[unquote(source)] = page.relative_to(root).as_posix()
    return pages


SITES = ("mkdocs", "sphinx", "docusaurus")


ONE_DOCUMENT = "-one"
"""A format's suffix for the whole handbook as one document ("pdf-one"): many employee
handbooks are a single PDF or Word file, its pages chapters, its title the company's."""


def one_document(corpus_root: Path, title: str) -> str:
    """Every page of the corpus in one Markdown text under `# title`: each page a chapter,
    its headings one level down (its title, or its front matter's, as its `##` heading)."""
    parts = [f"# {title}\n"]
    for source in sorted(corpus_root.rglob("*.md")):
        if source.name in NOT_DOCUMENTS:
            continue
        text = source.read_text(encoding="utf-8")
        front = _FRONT_MATTER.match(text)
        named = (
            re.search(r"^title:\s*[\"']?(.+?)[\"']?\s*$", front.group(), re.M) if front else None
        )
        lines, fenced = [], False
        for line in _FRONT_MATTER.sub("", text).splitlines():
            if line.lstrip().startswith(("```", "~~~")):
                fenced = not fenced
            lines.append("#" + line if not fenced and re.match(r"#{1,5} ", line) else line)
        if not any(line.startswith("## ") for line in lines):
            lines.insert(0, f"## {named.group(1) if named else source.stem}\n")
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def written_corpus(name: str, fmt: str, work: Path, slide_depth: int = 2) -> tuple[Path, Path]:
    """The corpus `name` written as `fmt` files under `work`, and its conversations with
    the gold documents renamed; both beside each other as handbook_trial.py expects."""
    corpus = CORPORA[name]
    root = work / f"{name}_{fmt}"
    if fmt.endswith(ONE_DOCUMENT):
        suffix = fmt.removesuffix(ONE_DOCUMENT)
        target = root / f"{name.capitalize()} Employee Handbook.{suffix}"
        text = one_document(corpus.root, target.stem)
        if suffix == "md":
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        else:
            WRITERS[suffix](text, target)
        pages = {
            str(p.relative_to(corpus.root)): target.name
            for p in corpus.root.rglob("*.md")
            if p.name not in NOT_DOCUMENTS
        }
        return root, _renamed_conversations(name, fmt, suffix, work, pages)
    if fmt == "docusaurus":
        build_site(fmt, corpus.root, root)
        pages = docusaurus_pages(root)
        return root, _renamed_conversations(name, fmt, "html", work, pages)
    if fmt in SITES:
        build_site(fmt, corpus.root, root)
        return root, _renamed_conversations(name, fmt, "html", work)
    for source in sorted(corpus.root.rglob("*.md")):
        if source.name in NOT_DOCUMENTS:
            continue
        relative = source.relative_to(corpus.root).with_suffix(f".{fmt}")
        text = source.read_text(encoding="utf-8")
        if fmt == "pptx":
            markdown_to_pptx(text, root / relative, slide_depth)
        else:
            WRITERS[fmt](text, root / relative)
    return root, _renamed_conversations(name, fmt, fmt, work)


def _renamed_conversations(
    name: str, fmt: str, suffix: str, work: Path, pages: dict[str, str] | None = None
) -> Path:
    """The corpus's conversations with each gold document renamed: to its page in `pages`
    when given (a site whose paths are not the sources'), else `.md` to `.suffix`."""
    conversations = work / f"{name}_{fmt}_conversations.jsonl"
    missing: set[str] = set()
    with conversations.open("w", encoding="utf-8") as out:
        for line in CORPORA[name].conversations.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            if pages is None:
                out.write(re.sub(r"\.md\b", f".{suffix}", line) + "\n")
                continue
            conversation = json.loads(line)
            for turn in conversation["turns"]:
                missing.update(g for g in turn.get("gold", []) if g not in pages)
                turn["gold"] = [pages.get(g, g) for g in turn.get("gold", [])]
            out.write(json.dumps(conversation) + "\n")
    if missing:
        print(f"{name}: {len(missing)} gold documents have no built page", file=sys.stderr)
    return conversations


def trial(corpus: str, conversations: Path | None, out: Path) -> dict[str, Any]:
    command = [
        sys.executable,
        str(ROOT / "bench" / "handbook_trial.py"),
        "--corpus",
        corpus,
        "--modes",
        MODE,
        "--out",
        str(out),
    ]
    if conversations is not None:
        command += ["--conversations", str(conversations)]
    subprocess.run(command, check=True, cwd=ROOT, capture_output=True)
    result: dict[str, Any] = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    return result


def summary(result: dict[str, Any]) -> dict[str, Any]:
    rows = [r for r in result["rows"] if r["mode"] == MODE]
    answerable = [r for r in rows if r["label"] == "ANSWERABLE"]
    return {
        "chunks": result.get("chunks"),
        "right": sum(r["category"] is None for r in answerable),
        "answerable": len(answerable),
        "categories": Counter(r["category"] for r in rows if r["category"]),
        "by_turn": {(r["conversation"], r["turn"]): r["category"] for r in rows},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", nargs="+", default=["clef", "tts", "posthog"], choices=CORPORA)
    ap.add_argument(
        "--format",
        nargs="+",
        default=["docx", "html"],
        choices=[*WRITERS, *SITES, *(f"{f}{ONE_DOCUMENT}" for f in ("md", "docx", "pdf"))],
    )
    ap.add_argument(
        "--site-python",
        default=sys.executable,
        help="mkdocs / sphinx: a Python with mkdocs-material, sphinx, furo and myst-parser",
    )
    ap.add_argument(
        "--slide-depth",
        type=int,
        default=2,
        help="pptx: headings down to this level open a slide (2: # and ##), deeper are bold lines",
    )
    ap.add_argument("--work", type=Path, help="where the written corpora and trials go (kept)")
    ap.add_argument(
        "--docusaurus",
        type=Path,
        help="docusaurus: a project made by `npx create-docusaurus@3 site classic --javascript`"
        " and `npm install` (its config and packages build each handbook)",
    )
    args = ap.parse_args()
    global SITE_PYTHON, DOCUSAURUS
    SITE_PYTHON = args.site_python
    DOCUSAURUS = args.docusaurus.resolve() if args.docusaurus else None
    work = args.work or Path(tempfile.mkdtemp(prefix="format-parity-"))
    work.mkdir(parents=True, exist_ok=True)
    lines = [
        "| corpus | format | chunks: Markdown / format | ANSWERABLE fully right: Markdown | "
        "format | turns whose category differs | failures by category (Markdown -> format) |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name in args.corpus:
        markdown = summary(trial(name, None, work / f"trial_{name}_md"))
        for fmt in args.format:
            root, conversations = written_corpus(name, fmt, work, args.slide_depth)
            other = summary(trial(str(root), conversations, work / f"trial_{name}_{fmt}"))
            differ = sum(
                markdown["by_turn"][k] != other["by_turn"].get(k) for k in markdown["by_turn"]
            )
            kinds = sorted(set(markdown["categories"]) | set(other["categories"]))
            moved = ", ".join(
                f"{k} {markdown['categories'][k]} -> {other['categories'][k]}" for k in kinds
            )
            lines.append(
                f"| {name} | {fmt} | {markdown['chunks']} / {other['chunks']} | "
                f"{markdown['right']}/{markdown['answerable']} | "
                f"{other['right']}/{other['answerable']} | {differ} | {moved} |"
            )
    print("\n".join(lines))
    print(f"\n(work folder: {work})", file=sys.stderr)


if __name__ == "__main__":
    main()
