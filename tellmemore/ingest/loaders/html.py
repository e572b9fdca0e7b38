"""HTML pages through BeautifulSoup, converted to the Markdown-like text the chunker reads.

Page chrome is dropped (script, style, nav, footer, forms, embedded frames, and what
lies outside the page's main landmark: `page_content`): it repeats on every page and would
pollute both the vectors and BM25's term statistics. Headings become `#` lines so the
chunker finds sections; lists become `-` / `1.` items and tables pipe tables, so they stay
whole; links and emphasis are written as Markdown writes them, so a page reads as the same
page in Markdown. Title: the main landmark's first `<h1>`, else `<title>`, else the first
`<h1>`, else the file stem. Version and URL come from `<meta name="version">` and
`<link rel="canonical">` when present.
"""

from __future__ import annotations

import re
import warnings
from typing import ClassVar

from bs4 import BeautifulSoup
from bs4.element import Comment, NavigableString, PageElement, Tag

from tellmemore.errors import LoaderError
from tellmemore.ingest.blocks import clean_heading
from tellmemore.ingest.loaders.base import Document, LoadResult, Source
from tellmemore.ingest.loaders.page_content import page_content

_DROP = frozenset(
    {
        "script",
        "style",
        "nav",
        "footer",
        "noscript",
        "template",
        "svg",
        "iframe",
        "form",
        "button",
        "head",
        "object",
        "canvas",
    }
)
PARSER = "lxml"
"""libxml2's HTML parser, not Python's `html.parser`: HTML lets a page leave out the end tags
of cells, rows, list items and paragraphs, and minifiers do (a Docusaurus page's table is
`<tr><td>Birth parent<td>16<tr>...`). `html.parser` nests each cell in the one before, so the
table became one row of run-together cells; lxml closes them as a browser does. On every
page and document of the four handbooks in every format both parsers read the same text."""
_HEADINGS = {f"h{i}": i for i in range(1, 7)}
_INLINE = frozenset(
    {
        "a",
        "abbr",
        "b",
        "bdi",
        "bdo",
        "cite",
        "code",
        "data",
        "dfn",
        "em",
        "i",
        "kbd",
        "mark",
        "q",
        "s",
        "samp",
        "small",
        "span",
        "strong",
        "sub",
        "sup",
        "time",
        "u",
        "var",
        "wbr",
        "img",
        "label",
        "font",
        "del",
        "ins",
    }
)


_BR = "\u2028"  # marks <br> while source newlines collapse to spaces


def _squash(text: str) -> str:
    return " ".join(text.split())


_MARKS = {"strong": "**", "b": "**", "em": "*", "i": "*"}
"""Emphasis written as Markdown writes it, so a page reads as the same page in Markdown."""
_ADDRESS = re.compile(r"(?:https?://|mailto:|(?![a-z][a-z\d+.-]*:)[\w./~-])[^\s()<>]{0,300}$", re.I)
"""A link address worth keeping: web, mail or a path, short and without spaces; not
"#section", "javascript:" or a "data:" payload (a megabyte of base64 in a chunk)."""


def _inline(node: PageElement, marks: bool = True) -> str:
    """Inline text of a node, `<br>` kept as a line break; with `marks`, links and emphasis
    as Markdown writes them ("[time off](/handbook/time-off)", "**20 days**"), as a Markdown
    handbook keeps them: a link's address often names its subject, and the same handbooks
    answered fewer turns with their links reduced to text (bench/results/format_parity.md). A
    link inside the page ("#section") keeps its text only."""
    if isinstance(node, Comment):
        return ""
    if isinstance(node, NavigableString):
        return str(node)
    if not isinstance(node, Tag) or node.name in _DROP:
        return ""
    if node.name == "br":
        return _BR
    inner = "".join(_inline(c, marks) for c in node.children)
    marked = node.name == "a" or node.name in _MARKS  # only these are rewritten
    if not marks or not marked or not inner.strip() or _BR in inner:
        return inner
    lead, core = inner[: len(inner) - len(inner.lstrip())], inner.strip()
    trail = inner[len(inner.rstrip()) :]
    if node.name == "a":
        href = str(node.get("href") or "").strip()
        said = re.sub(r"^(?:mailto:|tel:|https?://)", "", href).rstrip("/")
        if _ADDRESS.match(href) and said != _squash(core):
            return f"{lead}[{_squash(core)}]({href}){trail}"
        return inner  # a link within the page, a script or data, or text that is its address
    mark = _MARKS[node.name]
    return f"{lead}{mark}{core}{mark}{trail}"


def _clean_inline(node: Tag | str) -> str:
    """Collapse whitespace; only `<br>` breaks a line (source newlines are just spaces)."""
    raw = node if isinstance(node, str) else _inline(node)
    lines = [_squash(line) for line in raw.split(_BR)]
    return "\n".join(line for line in lines if line)


def _list_block(node: Tag, depth: int = 0) -> list[str]:
    lines: list[str] = []
    ordered = node.name == "ol"
    for n, item in enumerate(node.find_all("li", recursive=False), start=1):
        text_parts: list[str] = []
        nested: list[str] = []
        for child in item.children:
            if isinstance(child, Tag) and child.name in ("ul", "ol"):
                nested.extend(_list_block(child, depth + 1))
            elif isinstance(child, Tag) and child.name not in _DROP:
                inline = child.name in _INLINE or child.name == "br"
                # "<a>Install</a>: copy" is one run of text; a <p> in the item is a block
                text_parts.append(_inline(child) if inline else f" {_inline(child)} ")
            elif isinstance(child, NavigableString) and not isinstance(child, Comment):
                text_parts.append(str(child))
        marker = f"{n}." if ordered else "-"
        text = _squash("".join(text_parts))
        lines.append(f"{'  ' * depth}{marker} {text}".rstrip())
        lines.extend(nested)
    return lines


def _table_block(node: Tag) -> str:
    rows: list[list[str]] = []
    for tr in node.find_all("tr"):
        if tr.find_parent("table") is not node:
            continue
        cells = [_squash(_inline(cell)).replace("|", "\\|") for cell in tr.find_all(["th", "td"])]
        if any(cells):
            rows.append(cells)
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    out = ["| " + " | ".join(rows[0]) + " |", "| " + " | ".join(["---"] * width) + " |"]
    out.extend("| " + " | ".join(r) + " |" for r in rows[1:])
    return "\n".join(out)


def table_markdown(html: str) -> str:
    """An HTML table written inside Markdown, as the chunker reads tables (`table_text`)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = BeautifulSoup(html, PARSER).find("table")
    if not isinstance(table, Tag):
        return _squash(html)
    return table_text(table)


def table_text(table: Tag) -> str:
    """A table as the chunker reads tables, whatever the format it came in (an HTML page, a
    table inside Markdown, a Word table): a pipe table when its first row has header cells
    or labels the columns, else one list item per row ("- New Year's Day: January 1"), so no
    chunk cuts a cell and no data row is taken for column labels."""
    rows_cells = [
        [c for c in (_squash(_inline(td)) for td in tr.find_all(["td", "th"])) if c]
        for tr in table.find_all("tr")
        if tr.find_parent("table") is table
    ]
    first = table.find("tr")
    if (isinstance(first, Tag) and first.find("th") is not None) or _labels_first(rows_cells):
        return _table_block(table)
    rows = []
    for cells in rows_cells:
        if len(cells) > 1:
            rows.append(f"- {cells[0]}: " + "; ".join(cells[1:]))
        elif cells:
            rows.append(f"- {cells[0]}")
    return "\n".join(rows)


def _labels_first(rows: list[list[str]]) -> bool:
    """A first row written with `<td>` that labels the columns: no figure in it, while the
    rows below hold figures ("Years Experience | Technical" above "$120k")."""
    if len(rows) < 2 or any(ch.isdigit() for cell in rows[0] for ch in cell):
        return False
    return any(ch.isdigit() for row in rows[1:] for cell in row[1:] for ch in cell)


def _preformatted(node: Tag) -> str:
    """A code block's text with its `<br>`s as line breaks: a highlighter may draw each line
    as an element ending in `<br>` (Docusaurus's Prism) instead of a newline."""
    parts: list[str] = []
    for part in node.descendants:
        if isinstance(part, Tag) and part.name == "br":
            parts.append("\n")
        elif isinstance(part, NavigableString) and not isinstance(part, Comment):
            parts.append(str(part))
    return "".join(parts)


def _blocks(node: Tag) -> list[str]:
    blocks: list[str] = []
    inline: list[str] = []

    def flush() -> None:
        text = _clean_inline("".join(inline))
        if text:
            blocks.append(text)
        inline.clear()

    for child in node.children:
        if isinstance(child, Comment):
            continue
        if isinstance(child, NavigableString):
            inline.append(str(child))
            continue
        if not isinstance(child, Tag) or child.name in _DROP:
            continue
        name = child.name
        if name in _INLINE or name == "br":
            inline.append(_inline(child))
            continue
        flush()
        if name in _HEADINGS:
            text = _squash(_inline(child, marks=False))
            if text:
                blocks.append("#" * _HEADINGS[name] + " " + text)
        elif name == "p":
            text = _clean_inline(child)
            if text:
                blocks.append(text)
        elif name in ("ul", "ol"):
            lines = _list_block(child)
            if lines:
                blocks.append("\n".join(lines))
        elif name == "table":
            table = table_text(child)
            if table:
                blocks.append(table)
        elif name == "pre":
            code = _preformatted(child).strip("\n")
            if code.strip():
                blocks.append(f"```\n{code}\n```")
        elif name == "blockquote":
            inner = _blocks(child)
            blocks.extend("\n".join("> " + line for line in b.split("\n")) for b in inner)
        elif name == "dl":
            lines = _definitions(child)
            if lines:
                blocks.append("\n".join(lines))
        elif name in ("div", "aside") and _is_admonition(child):
            blocks.extend(_admonition(child))
        elif name == "hr":
            continue
        else:
            blocks.extend(_blocks(child))
    flush()
    return blocks


def _definitions(dl: Tag) -> list[str]:
    """A definition list as one item per definition, its term first ("- Trash bin: Deleted
    files are kept for 30 days."): a definition quoted apart from its term said nothing of
    what it defines. A term without a definition stands alone."""
    lines: list[str] = []
    terms: list[str] = []
    for item in dl.find_all(["dt", "dd"], recursive=False):
        if item.name == "dt":
            text = _squash(_inline(item))
            if text:
                terms.append(text)
            continue
        parts = [b for b in _blocks(item) if b.strip()] or [_squash(_inline(item))]
        if not parts[0]:
            continue
        term = " / ".join(terms)
        lines.append(f"- {term}: {parts[0]}" if term else f"- {parts[0]}")
        lines.extend("  " + line for part in parts[1:] for line in part.split("\n"))
        terms = []
    lines.extend(f"- {t}" for t in terms)  # trailing terms with no definition
    return lines


def _is_admonition(node: Tag) -> bool:
    classes = node.get("class")
    if not isinstance(classes, list) or "admonition" not in classes:
        return False
    return node.find(class_="admonition-title") is not None


def _admonition(node: Tag) -> list[str]:
    """A note, warning or tip box (Sphinx, MkDocs): its title leads its first paragraph
    ("Note: Your quota is set by the administrator.") instead of standing alone as a
    one-word paragraph."""
    title_tag = node.find(class_="admonition-title")
    title = _squash(_inline(title_tag, marks=False)) if isinstance(title_tag, Tag) else ""
    if isinstance(title_tag, Tag):
        title_tag.extract()
    inner = _blocks(node)
    if not title:
        return inner
    if inner and not inner[0].startswith(("#", "-", "|", "```", ">")):
        return [f"{title}: {inner[0]}", *inner[1:]]
    return [title, *inner]


def html_to_markdown(html: str) -> tuple[str, dict[str, str]]:
    """(Markdown-like text, {title, version, url} found in the page head)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # bs4 warns about markup that looks like a URL or file
        soup = BeautifulSoup(html, PARSER)
    info: dict[str, str] = {}
    if soup.title is not None and soup.title.string:
        info["title"] = _squash(soup.title.string)
    version = soup.find("meta", attrs={"name": "version"})
    if isinstance(version, Tag) and version.get("content"):
        info["version"] = str(version["content"]).strip()
    canonical = soup.find("link", rel="canonical")
    if isinstance(canonical, Tag) and canonical.get("href"):
        info["url"] = str(canonical["href"]).strip()
    content, heading = page_content(soup)
    if heading:
        info["title"] = heading
    return "\n\n".join(_blocks(content)), info


class HTMLLoader:
    format: ClassVar[str] = "html"
    extensions: ClassVar[tuple[str, ...]] = (".html", ".htm", ".xhtml")
    binary: ClassVar[bool] = False
    streaming: ClassVar[bool] = False

    def load(self, source: Source) -> LoadResult:
        try:
            text, info = html_to_markdown(source.text)
        except Exception as exc:  # bs4 raises a variety of errors on hostile markup
            raise LoaderError(source.source, f"cannot parse HTML: {exc}") from exc
        return converted(source, self.format, text, info, "HTML page")


def converted(source: Source, fmt: str, text: str, info: dict[str, str], what: str) -> LoadResult:
    """The document of a file converted to Markdown-like text (an HTML page, a Word file):
    its title from `info`, else its first top-level heading, else the file stem."""
    if not text.strip():
        raise LoaderError(source.source, f"no text in the {what}")
    return LoadResult(
        (
            Document(
                doc_id=source.doc_id,
                title=info.get("title") or first_h1(text) or source.stem,
                text=text + "\n",
                source=source.source,
                format=fmt,
                url=info.get("url", ""),
                version=info.get("version", ""),
                metadata=source.base_metadata(),
            ),
        )
    )


def first_h1(text: str) -> str | None:
    """The first `# ` heading of converted text (the title when the source names none),
    without the emphasis and link marks the conversion wrote into it."""
    for line in text.splitlines():
        if line.startswith("# "):
            return clean_heading(line[2:]) or None
    return None


LOADER = HTMLLoader()
