"""reStructuredText (.rst) through docutils, then the HTML loader's Markdown conversion.

Support sites and product docs are often Sphinx projects written in reStructuredText. docutils,
the reference parser, renders a file as HTML, which `html_to_markdown` turns into the same
Markdown-like text the other loaders give the chunker: sections as `#` headings at their
depth, lists, tables (the shared `table_text`), links and emphasis as Markdown writes them.

Choices, each measured on a sample in tests/ingest/test_rst.py:

- No title promotion (`doctitle_xform` off): docutils would lift a lone top-level section's
  title to the document title and, when one section follows it, lift that section's title to
  a subtitle, so the section's heading left the text and its chunks named no section. Without
  it the lone top-level section is the `#` heading and its sections `##`, the same text; the
  title is a `.. title::` directive's, else that first `#` heading, else the file stem.
- Never reads anything but the file: `include` and `raw` are disabled (an .rst file must not
  pull /etc/passwd into the index), no docutils.conf is read, nothing is reported or halts
  (a malformed file gives its text, never an exception).
- Sphinx's own directives and roles are unknown to docutils, which drops an unknown
  directive's whole body with its error message and leaves a role's markup (":ref:`x`") in
  the text. A transform of the parser's (`_parser`) keeps them readable: a directive's body
  is parsed as reStructuredText in its place (`.. versionadded:: 2.0` reads "New in version
  2.0."), a role reads as its text ("the vacation rules" of ":ref:`the vacation rules
  <vacation>`"). Directives that name other files or steer the build (`toctree`,
  `literalinclude`) go.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any, ClassVar

from tellmemore.errors import LoaderError
from tellmemore.ingest.loaders.base import LoadResult, Source, text_too_long
from tellmemore.ingest.loaders.html import converted, html_to_markdown

SETTINGS: dict[str, Any] = {
    "report_level": 5,
    "halt_level": 5,
    "warning_stream": False,
    "traceback": True,
    "file_insertion_enabled": False,
    "raw_enabled": False,
    "_disable_config": True,
    "doctitle_xform": False,
    "initial_header_level": 1,
    "syntax_highlight": "none",
    "language_code": "en",  # the unknown-directive message is matched in English
    "embed_stylesheet": False,
}
"""docutils settings: the file alone, never an exception (see the module docstring)."""
_DROPPED = frozenset(
    {
        "toctree",
        "literalinclude",
        "highlight",
        "index",
        "currentmodule",
        "module",
        "sectionauthor",
        "codeauthor",
        "tabularcolumns",
        "autosummary",
    }
)
"""Sphinx directives that name other files or steer the build; no text of the file's own."""
_VERSIONS = {
    "versionadded": "New in version",
    "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version",
    "versionremoved": "Removed in version",
}
"""How Sphinx introduces a version note: "Changed in version 3.1: <its text>"."""
_DIRECTIVE = re.compile(r"\.\.\s+([\w:.+-]+)::[ \t]*(.*)")
_OPTION = re.compile(r":[\w.+-]+:(?:\s|$)")
_ROLE = re.compile(r":(?:[\w.+-]+:)+`(.*)`\Z", re.S)
_LABELLED = re.compile(r"(.*?)\s*<[^<>]*>\Z", re.S)
_UNKNOWN = 'Unknown directive type "'
MAX_ROUNDS = 50
"""Unknown directives nested deeper than this lose their body, as docutils alone loses it."""


def role_text(raw: str) -> str:
    """What an unknown role reads as: ":ref:`time off <leave>`" -> "time off",
    ":doc:`/guide/install`" -> "/guide/install", ":term:`~API key`" -> "API key"."""
    match = _ROLE.match(raw)
    if match is None:
        return raw
    inner = match.group(1)
    labelled = _LABELLED.match(inner)
    if labelled and labelled.group(1):
        return labelled.group(1)
    return inner.lstrip("~!")


def directive_source(name: str, argument: str, body: str) -> str:
    """The reStructuredText an unknown directive is read as: its lead line, then its body."""
    if name in _DROPPED:
        return ""
    lead = _VERSIONS.get(name)
    if lead and argument:
        version, _, said = argument.partition(" ")
        argument = f"{lead} {version}: {said}" if said else f"{lead} {version}."
    elif name == "seealso":
        argument = f"See also: {argument}" if argument else "See also:"
    return f"{argument}\n\n{body}" if argument else body


def _directive_parts(block: str) -> tuple[str, str, str] | None:
    """(name, argument, body) of an unknown directive's source, its options left out."""
    lines = block.splitlines()
    match = _DIRECTIVE.match(lines[0].strip()) if lines else None
    if match is None:
        return None
    rest = textwrap.dedent("\n".join(lines[1:])).splitlines()
    argument = [match.group(2).strip()]
    while rest and rest[0].strip() and not _OPTION.match(rest[0]):  # an argument on more lines
        argument.append(rest.pop(0).strip())
    while rest and _OPTION.match(rest[0]):
        rest.pop(0)
    return match.group(1), " ".join(a for a in argument if a), textwrap.dedent("\n".join(rest))


def _parser() -> Any:
    """The reStructuredText parser, with a transform that reads Sphinx's markup as text."""
    from docutils import nodes
    from docutils.parsers import rst
    from docutils.transforms import Transform
    from docutils.utils import new_document

    def _roles_as_text(tree: Any) -> None:
        for node in list(tree.findall(nodes.problematic)):
            node.parent.replace(node, nodes.Text(role_text(node.rawsource or node.astext())))

    class SphinxText(Transform):  # type: ignore[misc]  # docutils ships no type information
        """Unknown directives read as their body, unknown roles as their text."""

        default_priority = 100  # before references are resolved and messages filtered

        def apply(self, **kwargs: Any) -> None:
            document = self.document
            _roles_as_text(document)
            for _ in range(MAX_ROUNDS):
                unknown = [
                    m
                    for m in document.findall(nodes.system_message)
                    if m.children and m[0].astext().startswith(_UNKNOWN)
                ]
                if not unknown:
                    return
                for message in unknown:
                    self._expand(message)

        def _expand(self, message: Any) -> None:
            blocks = [n for n in message.children if isinstance(n, nodes.literal_block)]
            parts = _directive_parts(blocks[0].astext()) if blocks else None
            source = directive_source(*parts) if parts else ""
            if not source.strip():
                message.parent.remove(message)
                return
            inner = new_document(message.get("source") or "<directive>", self.document.settings)
            rst.Parser().parse(source, inner)
            _roles_as_text(inner)
            message.parent.replace(message, list(inner.children))

    class Parser(rst.Parser):  # type: ignore[misc]
        def get_transforms(self) -> list[Any]:
            return [*super().get_transforms(), SphinxText]

    return Parser()


def rst_to_markdown(source: Source) -> tuple[str, dict[str, str]]:
    """(Markdown-like text, {title} from a `.. title::` directive) of an .rst file."""
    from docutils import core, writers

    try:
        doctree = core.publish_doctree(
            source.text, source_path=source.source, parser=_parser(), settings_overrides=SETTINGS
        )
        writer = writers.get_writer_class("html5")()
        core.publish_from_doctree(doctree, writer=writer, settings_overrides=SETTINGS)
        html = writer.parts["html_body"]
    except RecursionError as exc:
        raise LoaderError(source.source, "cannot read reStructuredText: nested too deeply") from exc
    except Exception as exc:  # docutils is not meant to raise here; a bug costs the file only
        raise LoaderError(
            source.source, f"cannot read reStructuredText: {type(exc).__name__}: {exc}"
        ) from exc
    text, _ = html_to_markdown(html)
    if len(text) > source.max_text_chars:
        raise text_too_long(source.source, source.max_text_chars)
    title = " ".join(str(doctree.get("title", "")).split())
    return text, {"title": title} if title else {}


class RstLoader:
    format: ClassVar[str] = "rst"
    extensions: ClassVar[tuple[str, ...]] = (".rst", ".rest")
    binary: ClassVar[bool] = False
    streaming: ClassVar[bool] = False

    def load(self, source: Source) -> LoadResult:
        text, info = rst_to_markdown(source)
        return converted(source, self.format, text, info, "reStructuredText file")


LOADER = RstLoader()
