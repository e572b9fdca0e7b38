"""PowerPoint decks (.pptx): the slide XML read into HTML, then the HTML loader's conversion.

Onboarding and training material is often a deck. Each shown slide, in the deck's order
(presentation.xml's slide list, not the part names), is a section: its title placeholder an
`h2` ("Slide N" when it has none), its text frames paragraphs, and paragraphs with an
indentation level (`a:pPr lvl`) or an explicit bullet nested list items (a paragraph just
above deeper ones is their parent item). Tables are HTML tables, so `table_text` reads them
like every other format; links on runs stay links; bold and italics are marked. Speaker notes
follow the slide's content as plain paragraphs: they are the presenter's words on that
slide's subject, so they belong in its section, and a "Notes" line would only be one more
word in every chunk's vector and BM25 terms. The deck's title (`dc:title`, else the first
slide's title) is the `h1`; a first slide titled the same is not repeated as an `h2`.

Read with the stdlib, as .odt is: python-pptx gives the same slides, shapes and paragraphs
but brings lxml, Pillow and XlsxWriter at run time (a 126 ms import; 5.9 ms to walk the test
deck, against 4.2 ms for this whole reading), and tells hidden slides only through its
private XML. Left out: hidden slides (`show="0"`: the presenter skips them), images, charts,
SmartArt, slide numbers, dates and footers (the same line on every slide).

Bad input is a LoaderError with the reason, never a crash: a file that is no zip ("not a
.pptx file"), a legacy PowerPoint 97-2003 or password-protected file, a zip without
ppt/presentation.xml, XML that does not parse or declares a DTD, parts that expand past the
text limit (checked on the zip's directory, before anything is inflated), a deck with no text.
"""

from __future__ import annotations

import posixpath
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from html import escape
from typing import ClassVar
from xml.etree import ElementTree

from tellmemore.errors import LoaderError
from tellmemore.ingest.loaders.base import LoadResult, Source, text_too_long
from tellmemore.ingest.loaders.html import converted, html_to_markdown
from tellmemore.ingest.loaders.zipped import open_zip, parse_part

_READ = ("ppt/presentation.xml", "ppt/_rels/", "ppt/slides/", "ppt/notesSlides/", "docProps/")
"""The parts read: they count against the limit (media, layouts and themes are never read)."""
_PRESENTATION = "ppt/presentation.xml"
_NS = {
    "p": "http://schemas.openxmlformats.org/presentationml/2006/main",
    "a": "http://schemas.openxmlformats.org/drawingml/2006/main",
    "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
    "rel": "http://schemas.openxmlformats.org/package/2006/relationships",
    "dc": "http://purl.org/dc/elements/1.1/",
}
_TITLES = frozenset({"title", "ctrTitle"})
_CHROME = frozenset({"sldNum", "dt", "ftr", "hdr", "sldImg"})
"""Placeholders that repeat on every slide (or picture it in the notes): no text of its own."""
_ADJACENT = re.compile(r"</(strong|em)><\1>")
MAX_LEVEL = 8
"""PowerPoint's deepest indentation level (`lvl` 0-8)."""


def _q(name: str) -> str:
    """ "a:p" as ElementTree names it: "{http://...drawingml/2006/main}p"."""
    prefix, local = name.split(":")
    return f"{{{_NS[prefix]}}}{local}"


@dataclass(frozen=True)
class _Para:
    level: int
    bullet: str  # "ul", "ol", or "" when the paragraph sets none
    html: str


class _Part:
    """One part of the package: its XML root and its relationships (id -> (type, target))."""

    def __init__(self, archive: zipfile.ZipFile, name: str, source: Source) -> None:
        self.name = name
        root = _parse(archive, name, source)
        if root is None:
            raise LoaderError(source.source, f"cannot read PPTX: no {name} in the file")
        self.root = root
        folder, file = posixpath.split(name)
        self.rels: dict[str, tuple[str, str, bool]] = {}
        rels = _parse(archive, f"{folder}/_rels/{file}.rels", source)
        for rel in rels.iter(_q("rel:Relationship")) if rels is not None else ():
            kind = rel.get("Type", "").rsplit("/", 1)[-1]
            target, external = rel.get("Target", ""), rel.get("TargetMode") == "External"
            if not external:
                target = posixpath.normpath(
                    target.lstrip("/") if target.startswith("/") else f"{folder}/{target}"
                )
            self.rels[rel.get("Id", "")] = (kind, target, external)

    def related(self, kind: str) -> str | None:
        """The first part of a relationship type ("notesSlide"), None when there is none."""
        return next((t for k, t, ext in self.rels.values() if k == kind and not ext), None)


class _Slide:
    """A slide (or its notes) as HTML blocks: the title apart, the rest in reading order."""

    def __init__(self, part: _Part) -> None:
        self.part = part
        self.title = ""

    def blocks(self, tree: ElementTree.Element) -> Iterator[str]:
        for shape in tree:
            if shape.tag == _q("p:sp"):
                yield from self.shape(shape)
            elif shape.tag == _q("p:grpSp"):
                yield from self.blocks(shape)
            elif shape.tag == _q("p:graphicFrame"):
                table = shape.find(f".//{_q('a:tbl')}")
                if table is not None:
                    yield self.table(table)

    def shape(self, shape: ElementTree.Element) -> Iterator[str]:
        placeholder = shape.find(f"{_q('p:nvSpPr')}/{_q('p:nvPr')}/{_q('p:ph')}")
        kind = placeholder.get("type", "") if placeholder is not None else ""
        body = shape.find(_q("p:txBody"))
        if kind in _CHROME or body is None:
            return
        paras = [self.paragraph(p) for p in body.iter(_q("a:p"))]
        if kind in _TITLES and not self.title:
            self.title = " ".join(" ".join(p.html for p in paras).split())
            return
        yield from _frame(paras)

    def paragraph(self, para: ElementTree.Element) -> _Para:
        props = para.find(_q("a:pPr"))
        level, bullet = 0, ""
        if props is not None:
            lvl = props.get("lvl", "0")
            level = min(int(lvl), MAX_LEVEL) if lvl.isdigit() else 0
            if props.find(_q("a:buAutoNum")) is not None:
                bullet = "ol"
            elif props.find(_q("a:buChar")) is not None:
                bullet = "ul"
        return _Para(level, bullet, _ADJACENT.sub("", "".join(self.runs(para))))

    def runs(self, para: ElementTree.Element) -> Iterator[str]:
        for run in para:
            if run.tag == _q("a:br"):
                yield "<br>"
            elif run.tag in (_q("a:r"), _q("a:fld")):
                yield self.run(run)

    def run(self, run: ElementTree.Element) -> str:
        text = "".join(t.text or "" for t in run.iter(_q("a:t")))
        html = escape(text)
        props = run.find(_q("a:rPr"))
        if props is None or not text.strip():
            return html
        if props.get("i") in ("1", "true"):
            html = f"<em>{html}</em>"
        if props.get("b") in ("1", "true"):
            html = f"<strong>{html}</strong>"
        click = props.find(_q("a:hlinkClick"))
        if click is not None:
            _, target, external = self.part.rels.get(click.get(_q("r:id"), ""), ("", "", False))
            if external and target:
                html = f'<a href="{escape(target)}">{html}</a>'
        return html

    def table(self, table: ElementTree.Element) -> str:
        props = table.find(_q("a:tblPr"))
        header = props is not None and props.get("firstRow") in ("1", "true")
        rows = []
        for n, row in enumerate(table.findall(_q("a:tr"))):
            tag = "th" if header and n == 0 else "td"
            cells = []
            for cell in row.findall(_q("a:tc")):
                text = " ".join(self.paragraph(p).html for p in cell.iter(_q("a:p")))
                cells.append(f"<{tag}>{text}</{tag}>")
            rows.append(f"<tr>{''.join(cells)}</tr>")
        return f"<table>{''.join(rows)}</table>"


def _frame(paras: list[_Para]) -> Iterator[str]:
    """A text frame's paragraphs: plain ones as `p`, indented or bulleted ones (and the plain
    one just above deeper ones, their parent) as one nested list per run of items."""
    items: list[_Para] = []
    for n, para in enumerate(paras):
        parent = n + 1 < len(paras) and paras[n + 1].level > para.level
        if para.level or para.bullet or parent:
            if para.html.strip():
                items.append(para)
            continue
        if items:
            yield _list(items)
            items = []
        if para.html.strip():
            yield f"<p>{para.html}</p>"
    if items:
        yield _list(items)


def _list(items: list[_Para]) -> str:
    """Nested `ul`/`ol` of list paragraphs; a level deeper than its parent's by more than one
    nests one deeper (PowerPoint lets a deck start at level 2)."""
    depths: list[int] = []
    levels: list[int] = []  # the level of each open depth
    for item in items:
        while levels and item.level < levels[-1]:
            levels.pop()
        if not levels or item.level > levels[-1]:
            levels.append(item.level)
        depths.append(len(levels) - 1)
    html, _ = _nest(items, depths, 0, 0)
    return html


def _nest(items: list[_Para], depths: list[int], start: int, depth: int) -> tuple[str, int]:
    tag = items[start].bullet or "ul"
    out, i = [], start
    while i < len(items) and depths[i] >= depth:
        inner = items[i].html
        i += 1
        if i < len(items) and depths[i] > depth:
            sub, i = _nest(items, depths, i, depth + 1)
            inner += sub
        out.append(f"<li>{inner}</li>")
    return f"<{tag}>{''.join(out)}</{tag}>", i


def _open(source: Source) -> zipfile.ZipFile:
    archive = open_zip(
        source,
        "PPTX",
        "a .pptx file",
        lambda name: name.startswith(_READ),
        legacy="a legacy PowerPoint 97-2003 presentation",
    )
    if _PRESENTATION not in archive.namelist():
        raise LoaderError(source.source, f"cannot read PPTX: no {_PRESENTATION} in the file")
    return archive


def _parse(archive: zipfile.ZipFile, name: str, source: Source) -> ElementTree.Element | None:
    return parse_part(archive, name, source, "PPTX")


def _slides(archive: zipfile.ZipFile, source: Source) -> Iterator[tuple[int, _Part]]:
    """(number as PowerPoint shows it, slide part) of each slide in the deck's order."""
    deck = _Part(archive, _PRESENTATION, source)
    seen: set[str] = set()  # a slide listed twice is read once: no text multiplied past the limit
    for number, slide in enumerate(deck.root.iter(_q("p:sldId")), start=1):
        kind, target, external = deck.rels.get(slide.get(_q("r:id"), ""), ("", "", True))
        if kind == "slide" and not external and target not in seen and target in archive.namelist():
            seen.add(target)
            yield number, _Part(archive, target, source)


def _notes(archive: zipfile.ZipFile, slide: _Part, source: Source) -> list[str]:
    name = slide.related("notesSlide")
    if name is None or name not in archive.namelist():
        return []
    notes = _Slide(_Part(archive, name, source))
    tree = notes.part.root.find(f"{_q('p:cSld')}/{_q('p:spTree')}")
    return list(notes.blocks(tree)) if tree is not None else []


def pptx_to_markdown(source: Source) -> tuple[str, dict[str, str]]:
    """(Markdown-like text, {title} from the core properties or the first slide) of a .pptx."""
    archive = _open(source)
    info = _core_title(_parse(archive, "docProps/core.xml", source))
    sections: list[tuple[str, list[str]]] = []
    try:
        for number, part in _slides(archive, source):
            if part.root.get("show") in ("0", "false"):
                continue
            slide = _Slide(part)
            tree = part.root.find(f"{_q('p:cSld')}/{_q('p:spTree')}")
            blocks = list(slide.blocks(tree)) if tree is not None else []
            blocks += _notes(archive, part, source)
            if slide.title or blocks:
                sections.append((slide.title or f"Slide {number}", blocks))
            if not info.get("title") and slide.title and len(sections) == 1:
                info["title"] = _plain(slide.title)
    except RecursionError as exc:
        raise LoaderError(source.source, "cannot read PPTX: nested too deeply") from exc
    html = [f"<h1>{escape(info['title'])}</h1>"] if sections and info.get("title") else []
    for n, (title, blocks) in enumerate(sections):
        if n or _plain(title) != info.get("title"):
            html.append(f"<h2>{title}</h2>")
        html.extend(blocks)
    text, _ = html_to_markdown(f"<html><body>{''.join(html)}</body></html>")
    if len(text) > source.max_text_chars:
        raise text_too_long(source.source, source.max_text_chars)
    return text, info


def _plain(html: str) -> str:
    """A title's text without its markup, as the `h1` writes it."""
    text, _ = html_to_markdown(f"<p>{html}</p>")
    return " ".join(text.replace("*", "").split())


def _core_title(root: ElementTree.Element | None) -> dict[str, str]:
    node = root.find(_q("dc:title")) if root is not None else None
    if node is not None and node.text and node.text.strip():
        return {"title": " ".join(node.text.split())}
    return {}


class PptxLoader:
    format: ClassVar[str] = "pptx"
    extensions: ClassVar[tuple[str, ...]] = (".pptx",)
    binary: ClassVar[bool] = True
    streaming: ClassVar[bool] = False

    def load(self, source: Source) -> LoadResult:
        text, info = pptx_to_markdown(source)
        return converted(source, self.format, text, info, "deck")


LOADER = PptxLoader()
