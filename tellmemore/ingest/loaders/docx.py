"""Word documents (.docx) through mammoth, then the HTML loader's Markdown conversion.

Employee handbooks and policies are often Word files. mammoth reads a .docx's paragraph
styles and numbering into semantic HTML (Heading 1-6 as `h1`-`h6`, numbered and bulleted
paragraphs as lists, tables as tables), which `html_to_markdown` turns into the same
Markdown-like text the other loaders give the chunker: a Word handbook is chunked by its
sections like a Markdown one (bench/results/format_parity.md measures the two side by side).

What a Word file carries that is no text is left out: images (mammoth would inline them as
base64), comments and tracked deletions. Links, bold and italics are written as Markdown
writes them, as in a Markdown handbook. Title: the document's core property, else its first
top-level heading, else the file stem; version: the core property `version` when set.

Bad input is a LoaderError with the reason, never a crash: a file that is no zip ("not a
.docx file"), a legacy Word 97-2003 or password-protected file ("save it as an unprotected
.docx"), a zip without a Word document in it, or parts that expand past the text limit (a
zip bomb costs a look at the zip's directory, not its inflation).
"""

from __future__ import annotations

import io
import logging
import zipfile
from typing import Any, ClassVar
from xml.etree import ElementTree

from tellmemore.errors import LoaderError
from tellmemore.ingest.loaders.base import LoadResult, Source, text_too_long
from tellmemore.ingest.loaders.html import converted, html_to_markdown
from tellmemore.ingest.loaders.zipped import open_zip

log = logging.getLogger(__name__)

_NOT_READ = ("word/media/", "word/embeddings/", "docProps/thumbnail")
"""Parts mammoth never inflates (images are left out): they do not count against the limit."""
_STYLE_MAP = """
p[style-name='Title'] => h1:fresh
p[style-name='Subtitle'] => p:fresh
"""
"""What mammoth's defaults leave out: a document's Title paragraph is its first heading."""
_CORE = "docProps/core.xml"
_NS = {
    "dc": "http://purl.org/dc/elements/1.1/",
    "cp": "http://schemas.openxmlformats.org/package/2006/metadata/core-properties",
}


def _no_image(image: Any) -> dict[str, str]:
    """An image's attributes without reading its bytes: only its alternative text."""
    alt = getattr(image, "alt_text", None)
    return {"alt": alt} if alt else {}


def _core_properties(archive: zipfile.ZipFile) -> dict[str, str]:
    """Title and version from docProps/core.xml, when the file has them."""
    try:
        root = ElementTree.fromstring(archive.read(_CORE))
    except (KeyError, ElementTree.ParseError):
        return {}
    out = {}
    for key, path in (("title", "dc:title"), ("version", "cp:version")):
        node = root.find(path, _NS)
        if node is not None and node.text and node.text.strip():
            out[key] = " ".join(node.text.split())
    return out


def _open(source: Source) -> zipfile.ZipFile:
    archive = open_zip(
        source,
        "DOCX",
        "a .docx file",
        lambda name: not name.startswith(_NOT_READ),
        legacy="a legacy Word 97-2003 document",
    )
    if "word/document.xml" not in archive.namelist():
        raise LoaderError(source.source, "cannot read DOCX: no word/document.xml in the file")
    return archive


def docx_to_markdown(source: Source) -> tuple[str, dict[str, str]]:
    """(Markdown-like text, {title, version} from the core properties) of a .docx."""
    import mammoth

    archive = _open(source)
    info = _core_properties(archive)
    try:
        result = mammoth.convert_to_html(
            io.BytesIO(source.data),
            style_map=_STYLE_MAP,
            convert_image=mammoth.images.img_element(_no_image),
        )
    except Exception as exc:  # mammoth raises whatever its XML reader meets in a bad file
        raise LoaderError(source.source, f"cannot read DOCX: {type(exc).__name__}: {exc}") from exc
    for message in result.messages:
        log.debug("%s: %s", source.source, message.message)
    text, _ = html_to_markdown(result.value)
    if len(text) > source.max_text_chars:
        raise text_too_long(source.source, source.max_text_chars)
    return text, info


class DocxLoader:
    format: ClassVar[str] = "docx"
    extensions: ClassVar[tuple[str, ...]] = (".docx",)
    binary: ClassVar[bool] = True
    streaming: ClassVar[bool] = False

    def load(self, source: Source) -> LoadResult:
        text, info = docx_to_markdown(source)
        return converted(source, self.format, text, info, "Word document")


LOADER = DocxLoader()
