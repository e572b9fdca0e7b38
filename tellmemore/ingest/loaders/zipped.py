"""Office files are zips of XML parts: one way to open them, read a part and parse it.

Word (.docx), OpenDocument (.odt) and PowerPoint (.pptx) files share their failure modes,
so the three loaders share their defences: a legacy or password-protected file in the OLE
container is named as such; a file that is no zip says so; a zip bomb is refused from the
zip's directory before anything is inflated; a damaged part, a part declaring a DTD (entity
expansion: no Office part has one) or a part that is not XML is a LoaderError with its
reason, never a crash.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from collections.abc import Callable
from xml.etree import ElementTree

from tellmemore.errors import LoaderError
from tellmemore.ingest.loaders.base import Source, text_too_long

OLE_SIGNATURE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
"""The OLE compound file: legacy Office 97-2003 files, and Office files saved with a password."""
XML_PER_TEXT_CHAR = 20
"""Bytes of XML allowed per character of `max_text_chars`: Office XML wraps each run of text
in several elements, so its XML is many times its text, but not without bound."""


def open_zip(
    source: Source,
    kind: str,
    a_file: str,
    counted: Callable[[str], bool],
    legacy: str = "",
) -> zipfile.ZipFile:
    """`source` opened as a zip (`kind`: "DOCX" in messages; `a_file`: "a .docx file").
    `counted` says which parts the loader inflates: their declared sizes must stay within
    the text limit. `legacy` ("a legacy Word 97-2003 document"): an OLE file is named as
    that, or a password-protected one."""
    if legacy and source.data.startswith(OLE_SIGNATURE):
        extension = a_file.split()[-2]
        raise LoaderError(
            source.source,
            f"cannot read {kind}: this is an OLE file, {legacy} or a password-protected one; "
            f"save it as an unprotected {extension}",
        )
    try:
        archive = zipfile.ZipFile(io.BytesIO(source.data))
    except zipfile.BadZipFile as exc:
        raise LoaderError(source.source, f"cannot read {kind}: not {a_file} ({exc})") from exc
    read = sum(i.file_size for i in archive.infolist() if counted(i.filename))
    if read > XML_PER_TEXT_CHAR * source.max_text_chars:
        raise text_too_long(source.source, source.max_text_chars)
    return archive


def read_part(archive: zipfile.ZipFile, name: str, source: Source, kind: str) -> bytes:
    """A part's bytes; a damaged one is a LoaderError."""
    try:
        return archive.read(name)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError) as exc:
        raise LoaderError(source.source, f"cannot read {kind}: {name} is damaged ({exc})") from exc


def parse_part(
    archive: zipfile.ZipFile, name: str, source: Source, kind: str
) -> ElementTree.Element | None:
    """The root of a part, None when the file has no such part."""
    if name not in archive.namelist():
        return None
    data = read_part(archive, name, source, kind)
    if b"<!DOCTYPE" in data:  # entity definitions: no Office part has them
        raise LoaderError(source.source, f"cannot read {kind}: {name} declares a DTD")
    try:
        return ElementTree.fromstring(data)
    except ElementTree.ParseError as exc:
        raise LoaderError(source.source, f"cannot read {kind}: {name} is not XML ({exc})") from exc
