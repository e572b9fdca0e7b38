"""OpenDocument text (.odt): content.xml read into HTML, then the HTML loader's conversion.

LibreOffice writes .odt, and Google Docs exports it. The document body is one XML part,
content.xml: headings carry their outline level, lists nest, tables mark their header rows,
and bold or italics are automatic text styles. This module writes that body as HTML (headings
as `h1`-`h6`, lists as `ul`/`ol` by their list style, header rows as `th`, bold and italics
as `strong`/`em`, links as links), which `html_to_markdown` turns into the Markdown-like text
the other loaders give the chunker. odfpy's ODF2XHTML does the same but writes bold as a
styled `span` and header rows as plain cells: the bold was lost, and a header row with a
figure in it read as a data row. Written as .odt, 38 of Clef's 38 handbook files read
exactly as their Word versions through this module, 25 through ODF2XHTML
(bench/results/format_parity.md).

Left out, as the Word loader leaves them out: images and their descriptions, comments,
tracked deletions, and generated indexes (a table of contents repeats the headings).
Footnotes follow the body. Title: meta.xml's `dc:title`, else the first top-level heading,
else the file stem; version: a custom property named "version" when set.

Bad input is a LoaderError with the reason, never a crash: a file that is no zip ("not an
.odt file"), a password-protected one, a zip without content.xml, another OpenDocument kind
(a spreadsheet), XML that does not parse or declares entities, or parts that expand past the
text limit (checked on the zip's directory, before anything is inflated).
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from html import escape
from typing import ClassVar
from xml.etree import ElementTree

from tellmemore.errors import LoaderError
from tellmemore.ingest.loaders.base import LoadResult, Source, text_too_long
from tellmemore.ingest.loaders.html import converted, html_to_markdown
from tellmemore.ingest.loaders.zipped import open_zip, parse_part, read_part

_PARTS = ("content.xml", "styles.xml", "meta.xml", "META-INF/manifest.xml")
"""The parts read: they count against the limit (pictures and thumbnails are never read)."""
_MIMETYPE = "application/vnd.oasis.opendocument.text"
_NS = {
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "style": "urn:oasis:names:tc:opendocument:xmlns:style:1.0",
    "fo": "urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0",
    "xlink": "http://www.w3.org/1999/xlink",
    "draw": "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0",
    "dc": "http://purl.org/dc/elements/1.1/",
    "svg": "urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0",
    "meta": "urn:oasis:names:tc:opendocument:xmlns:meta:1.0",
    "manifest": "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0",
}


def _q(name: str) -> str:
    """ "text:p" as ElementTree names it: "{urn:...:text:1.0}p"."""
    prefix, local = name.split(":")
    return f"{{{_NS[prefix]}}}{local}"


_SKIPPED = frozenset(
    _q(n)
    for n in (
        "office:annotation",
        "office:annotation-end",
        "text:tracked-changes",
        "text:note-citation",
        "text:table-of-content",
        "text:alphabetical-index",
        "text:illustration-index",
        "text:table-index",
        "text:object-index",
        "text:user-index",
        "text:bibliography",
        "text:sequence-decls",
        "text:variable-decls",
        "text:user-field-decls",
        "text:ruby-text",
        "draw:image",
        "svg:title",
        "svg:desc",
        "office:forms",
        "table:covered-table-cell",
        "table:table-columns",
        "table:table-column",
        "table:table-header-columns",
    )
)
"""Elements with no text of the document's own (or text the reader should not get)."""
_BOLD = frozenset({"bold", "600", "700", "800", "900"})
_NAMED = {"Strong_20_Emphasis": "strong", "Emphasis": "em"}
"""LibreOffice's character styles for bold and italics, by name: a document that uses them
often leaves their definitions to the application's defaults, not in styles.xml."""
_ADJACENT = re.compile(r"</(strong|em)><\1>")
"""Where one bold (italic) span ends and the next begins: "**a** **b**" would read oddly."""
MAX_REPEAT = 20
"""A cell or row written once with "repeated N times" is written at most this many times."""


class _Styles:
    """What the document's styles say: which text styles are bold or italic, which list
    levels are numbered, which paragraph styles are a Title."""

    def __init__(self, roots: list[ElementTree.Element]) -> None:
        self.parent: dict[str, str] = {}
        self.marks: dict[str, set[str]] = {}
        self.numbered: dict[tuple[str, int], bool] = {}
        for root in roots:
            for style in root.iter(_q("style:style")):
                name = style.get(_q("style:name"), "")
                if style.get(_q("style:parent-style-name")):
                    self.parent[name] = style.get(_q("style:parent-style-name"), "")
                props = style.find(_q("style:text-properties"))
                marks = set()
                if props is not None:
                    if props.get(_q("fo:font-weight"), "") in _BOLD:
                        marks.add("strong")
                    if props.get(_q("fo:font-style"), "") in ("italic", "oblique"):
                        marks.add("em")
                self.marks[name] = marks
            for lst in root.iter(_q("text:list-style")):
                name = lst.get(_q("style:name"), "")
                for level in lst:
                    depth = _count(level.get(_q("text:level")))
                    numbered = level.tag == _q("text:list-level-style-number") and bool(
                        level.get(_q("style:num-format"))
                    )
                    self.numbered[(name, depth)] = numbered

    def _chain(self, name: str) -> Iterator[str]:
        seen: set[str] = set()
        while name and name not in seen:
            seen.add(name)
            yield name
            name = self.parent.get(name, "")

    def marks_of(self, name: str) -> set[str]:
        """ "strong" and/or "em": the first style up the chain that says either way wins."""
        for style in self._chain(name):
            if style in _NAMED:
                return {_NAMED[style]}
            if self.marks.get(style):
                return self.marks[style]
        return set()

    def is_title(self, name: str) -> bool:
        """A paragraph in the Title style is the document's first heading, as in Word."""
        return "Title" in self._chain(name)


class _Writer:
    """The body of content.xml as HTML."""

    def __init__(self, styles: _Styles) -> None:
        self.styles = styles
        self.notes: list[str] = []

    def blocks(self, node: ElementTree.Element) -> Iterator[str]:
        for child in node:
            tag = child.tag
            if tag in _SKIPPED:
                continue
            if tag == _q("text:h"):
                n = min(_count(child.get(_q("text:outline-level"))), 6)
                yield f"<h{n}>{self.inline(child)}</h{n}>"
            elif tag == _q("text:p"):
                style = child.get(_q("text:style-name"), "")
                inner = self.inline(child)
                yield f"<h1>{inner}</h1>" if self.styles.is_title(style) else f"<p>{inner}</p>"
            elif tag == _q("text:list"):
                yield from self.list(child, "", 1)
            elif tag == _q("table:table"):
                yield self.table(child)
            else:  # sections, text boxes, change markers: their blocks in place
                yield from self.blocks(child)

    def list(self, node: ElementTree.Element, style: str, depth: int) -> Iterator[str]:
        """A list as `ul`/`ol` by its style at this depth; a list of headings (numbered
        headings) is its headings."""
        style = node.get(_q("text:style-name"), style)
        if node.find(f".//{_q('text:h')}") is not None:
            yield from self.blocks_of_items(node)
            return
        tag = "ol" if self.styles.numbered.get((style, depth), False) else "ul"
        items = []
        for item in node:
            if item.tag not in (_q("text:list-item"), _q("text:list-header")):
                continue
            parts: list[str] = []
            for child in item:
                if child.tag == _q("text:list"):
                    parts.extend(self.list(child, style, depth + 1))
                elif child.tag not in _SKIPPED:
                    parts.append(f"<p>{self.inline(child)}</p>")
            items.append(f"<li>{''.join(parts)}</li>")
        yield f"<{tag}>{''.join(items)}</{tag}>"

    def blocks_of_items(self, node: ElementTree.Element) -> Iterator[str]:
        for item in node:
            for child in item:
                if child.tag == _q("text:list"):
                    yield from self.blocks_of_items(child)
                else:
                    yield from self.blocks(_wrap(child))

    def table(self, node: ElementTree.Element) -> str:
        rows: list[str] = []
        for row, header in _rows(node, False):
            cells = []
            for cell in row:
                if cell.tag != _q("table:table-cell"):
                    continue
                text = " ".join(self.cell(cell))
                repeat = _count(cell.get(_q("table:number-columns-repeated")))
                tag = "th" if header else "td"
                cells.extend([f"<{tag}>{text}</{tag}>"] * (min(repeat, MAX_REPEAT) if text else 1))
            rows.append(f"<tr>{''.join(cells)}</tr>")
        return f"<table>{''.join(rows)}</table>"

    def cell(self, node: ElementTree.Element) -> Iterator[str]:
        """A cell's text, paragraph by paragraph (a nested table or list flattened)."""
        for child in node:
            if child.tag in (_q("text:p"), _q("text:h")):
                yield self.inline(child)
            elif child.tag not in _SKIPPED:
                yield from self.cell(child)

    def inline(self, node: ElementTree.Element) -> str:
        """A paragraph's HTML; bold runs side by side are one bold run, as Word's are."""
        out = [escape(node.text or "")]
        for child in node:
            out.append(self.inline_child(child))
            out.append(escape(child.tail or ""))
        return _ADJACENT.sub("", "".join(out))

    def inline_child(self, child: ElementTree.Element) -> str:
        tag = child.tag
        if tag in _SKIPPED or tag in (_q("text:soft-page-break"), _q("text:bookmark")):
            return ""
        if tag == _q("text:s"):
            return " " * min(_count(child.get(_q("text:c"))), 100)
        if tag == _q("text:tab"):
            return " "
        if tag == _q("text:line-break"):
            return "<br>"
        if tag == _q("text:note"):
            body = child.find(_q("text:note-body"))
            if body is not None:
                self.notes.append(" ".join(self.inline(p) for p in body.iter(_q("text:p"))))
            return ""
        inner = self.inline(child)
        if tag == _q("text:a"):
            href = child.get(_q("xlink:href"), "")
            return f'<a href="{escape(href)}">{inner}</a>'
        if tag == _q("text:span"):
            for mark in sorted(self.styles.marks_of(child.get(_q("text:style-name"), ""))):
                inner = f"<{mark}>{inner}</{mark}>"
            return inner
        if tag in (_q("text:p"), _q("text:h")):  # a paragraph inside a text box or a note
            return f" {inner} "
        return inner  # fields, references, text boxes: their text


def _count(value: str | None) -> int:
    """A count or level attribute; missing or not a positive number reads as 1."""
    return int(value) if value and value.isdigit() and int(value) > 0 else 1


def _wrap(node: ElementTree.Element) -> ElementTree.Element:
    wrapper = ElementTree.Element("wrapper")
    wrapper.append(node)
    return wrapper


def _rows(node: ElementTree.Element, header: bool) -> Iterator[tuple[ElementTree.Element, bool]]:
    """(row, in the header rows) of a table, through its row groups."""
    for child in node:
        if child.tag == _q("table:table-row"):
            yield child, header
        elif child.tag == _q("table:table-header-rows"):
            yield from _rows(child, True)
        elif child.tag in (_q("table:table-rows"), _q("table:table-row-group")):
            yield from _rows(child, header)


def _open(source: Source) -> zipfile.ZipFile:
    archive = open_zip(source, "ODT", "an .odt file", lambda name: name in _PARTS)
    names = set(archive.namelist())
    manifest = b""
    if "META-INF/manifest.xml" in names:
        manifest = read_part(archive, "META-INF/manifest.xml", source, "ODT")
    if b"encryption-data" in manifest:
        raise LoaderError(
            source.source,
            "cannot read ODT: the document is password-protected; save it without a password",
        )
    if "content.xml" not in names:
        raise LoaderError(source.source, "cannot read ODT: no content.xml in the file")
    if "mimetype" in names:
        kind = read_part(archive, "mimetype", source, "ODT")[:100]
        mimetype = kind.decode("ascii", "replace").strip()
        if not mimetype.startswith(_MIMETYPE):
            raise LoaderError(
                source.source, f"cannot read ODT: not a text document but {mimetype or 'unnamed'}"
            )
    return archive


def _parse(archive: zipfile.ZipFile, name: str, source: Source) -> ElementTree.Element | None:
    return parse_part(archive, name, source, "ODT")


def _meta(root: ElementTree.Element | None) -> dict[str, str]:
    """Title (`dc:title`) and version (a custom property "version") from meta.xml."""
    if root is None:
        return {}
    out = {}
    title = root.find(f".//{_q('dc:title')}")
    if title is not None and title.text and title.text.strip():
        out["title"] = " ".join(title.text.split())
    for field in root.iter(_q("meta:user-defined")):
        if field.get(_q("meta:name"), "").lower() == "version" and (field.text or "").strip():
            out["version"] = (field.text or "").strip()
    return out


def odt_to_markdown(source: Source) -> tuple[str, dict[str, str]]:
    """(Markdown-like text, {title, version} from meta.xml) of an .odt."""
    archive = _open(source)
    content = _parse(archive, "content.xml", source)
    assert content is not None  # _open checked it is there
    styles = [r for r in (_parse(archive, "styles.xml", source), content) if r is not None]
    info = _meta(_parse(archive, "meta.xml", source))
    body = content.find(f"{_q('office:body')}/{_q('office:text')}")
    if body is None:
        raise LoaderError(source.source, "cannot read ODT: content.xml has no text body")
    writer = _Writer(_Styles(styles))
    try:
        html = "".join(writer.blocks(body))
        html += "".join(f"<p>{note}</p>" for note in writer.notes if note.strip())
        text, _ = html_to_markdown(f"<html><body>{html}</body></html>")
    except RecursionError as exc:
        raise LoaderError(source.source, "cannot read ODT: nested too deeply") from exc
    if len(text) > source.max_text_chars:
        raise text_too_long(source.source, source.max_text_chars)
    return text, info


class OdtLoader:
    format: ClassVar[str] = "odt"
    extensions: ClassVar[tuple[str, ...]] = (".odt",)
    binary: ClassVar[bool] = True
    streaming: ClassVar[bool] = False

    def load(self, source: Source) -> LoadResult:
        text, info = odt_to_markdown(source)
        return converted(source, self.format, text, info, "OpenDocument text")


LOADER = OdtLoader()
