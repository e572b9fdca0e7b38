"""Markdown files, natively: optional front matter, title from it, else the first H1, else the stem.

MDX (Docusaurus, Nextra, Mintlify) is Markdown with ES module lines and JSX components: its
`import`/`export` lines are dropped (code, never prose); components stay as written, like
inline HTML, so the text inside them is indexed.

Front matter is the common `---` block of `key: value` lines. `title`, `version`
and `url` become Document fields; every other key is kept in `metadata`
(values as strings; no YAML dependency for a handful of scalars).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from typing import ClassVar

from tellmemore.errors import LoaderError
from tellmemore.ingest.blocks import clean_heading
from tellmemore.ingest.loaders.base import Document, LoadResult, Source
from tellmemore.ingest.loaders.html import table_markdown

_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_H1 = re.compile(r"^#[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def split_front_matter(text: str) -> tuple[dict[str, str], str]:
    """(front matter keys, body). Text without a front matter block is all body."""
    match = _FRONT_MATTER.match(text)
    if match is None:
        return {}, text
    meta: dict[str, str] = {}
    for line in match.group(1).splitlines():
        if not line.strip() or line.lstrip().startswith("#") or ":" not in line:
            continue
        key, _, value = line.partition(":")
        meta[key.strip().lower()] = _unquote(value.strip())
    return meta, text[match.end() :]


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def fenced_lines(text: str) -> Iterator[tuple[str, bool]]:
    """Each line of `text` with its line end, and whether it is code: inside a fenced block
    or one of its fence lines. What rewrites Markdown leaves code as written."""
    fenced = False
    for line in text.splitlines(keepends=True):
        if _FENCE.match(line):
            fenced = not fenced
            yield line, True
        else:
            yield line, fenced


def first_h1(text: str) -> str | None:
    """The text of the first `# ` heading outside code fences, without its Markdown
    emphasis and link marks ("# **Leaving the company**" is titled "Leaving the company")."""
    for line, code in fenced_lines(text):
        match = None if code else _H1.match(line.rstrip("\r\n"))
        if match:
            return clean_heading(match.group(1)) or None
    return None


def html_tables_as_markdown(text: str) -> str:
    """`<table>` blocks outside code fences rewritten as Markdown (`html.table_markdown`):
    handbooks written for GitHub use them, and as raw HTML a chunk cut the holiday table
    mid-cell ("First Monday in | September")."""
    if "<table" not in text.lower():
        return text
    out: list[str] = []
    plain: list[str] = []

    def flush() -> None:
        joined = "".join(plain)
        out.append(_HTML_TABLE.sub(lambda m: "\n\n" + table_markdown(m.group(0)) + "\n\n", joined))
        plain.clear()

    for line, code in fenced_lines(text):
        if code:
            flush()  # the text before a fence is converted; code is kept as is
            out.append(line)
        else:
            plain.append(line)
    flush()
    return "".join(out)


_HTML_TABLE = re.compile(r"<table\b.*?</table\s*>", re.IGNORECASE | re.DOTALL)


def document_from_text(source: Source, *, format: str) -> Document:
    """A Document from Markdown-like text with optional front matter."""
    meta, body = split_front_matter(source.text)
    if format == "markdown":
        body = html_tables_as_markdown(body)
    if not body.strip():
        raise LoaderError(source.source, "no text after the front matter")
    title = meta.pop("title", "") or first_h1(body) or source.stem
    version = meta.pop("version", "")
    url = meta.pop("url", "")
    metadata = {**meta, **source.base_metadata()}
    return Document(
        doc_id=source.doc_id,
        title=title,
        text=body.strip("\n") + "\n",
        source=source.source,
        format=format,
        url=url,
        version=version,
        metadata=metadata,
    )


class MarkdownLoader:
    format: ClassVar[str] = "markdown"
    extensions: ClassVar[tuple[str, ...]] = (".md", ".markdown")
    binary: ClassVar[bool] = False
    streaming: ClassVar[bool] = False

    def load(self, source: Source) -> LoadResult:
        return LoadResult((document_from_text(source, format=self.format),))


class MdxLoader(MarkdownLoader):
    extensions: ClassVar[tuple[str, ...]] = (".mdx",)

    def load(self, source: Source) -> LoadResult:
        _, body = split_front_matter(source.text)
        head = source.text[: len(source.text) - len(body)]  # the front matter, kept to read
        shaped = replace(source, text=head + without_esm(body))
        return LoadResult((document_from_text(shaped, format=self.format),))


_ESM_START = re.compile(r"^(?:import|export)\b")
_ESM_END = re.compile(r"(?:;|\bfrom\s+['\"][^'\"]+['\"]|^\s*['\"][^'\"]+['\"])\s*;?\s*$")


def without_esm(text: str) -> str:
    """MDX text without its top-level `import ... from "x"` and `export ...` statements
    (outside code fences; a statement may run over several lines until it ends)."""
    out: list[str] = []
    statement = ""
    block_start = True  # MDX reads ESM only where a block starts ("...you can\nimport ...")
    for line, code in fenced_lines(text):
        esm = not code and (statement or (block_start and _ESM_START.match(line)))
        block_start = not line.strip() or bool(esm)
        if not esm:
            out.append(line)
            continue
        statement += line
        if _statement_ends(statement):
            statement = ""
    return "".join(out)


def _statement_ends(statement: str) -> bool:
    """An import/export statement read so far is complete: its last line names its module
    (`from "x"`) or ends in ";", or its brackets are balanced and its last line does not
    ask for more (a trailing "=", "," or opening bracket)."""
    last = statement.rstrip().rsplit("\n", 1)[-1].strip()
    if _ESM_END.search(last):
        return True
    balanced = all(statement.count(o) <= statement.count(c) for o, c in ("{}", "()", "[]"))
    return balanced and not last.endswith(("=", ",", "{", "(", "["))


LOADER = MarkdownLoader()
MDX_LOADER = MdxLoader()
