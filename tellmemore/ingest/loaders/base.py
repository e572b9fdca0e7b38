"""Loading source files into `Document`s: the Loader protocol, the registry, the safe reader.

Every file goes through `read_source` first, which turns the ways a file can be
bad into a `LoaderError` with a reason instead of a crash:

- unreadable (permissions, a broken symlink, a directory): "cannot read file: ...";
- not a regular file (a FIFO, a socket, a device): skipped without being opened for
  a blocking read, so a FIFO named `x.md` cannot hang the run;
- a name that is not valid UTF-8 (bytes a Linux file system allows): skipped, the
  reported path shows the bytes (`caf\\xe9.md`);
- a symlink, found in a folder, that points outside that folder: skipped unless
  `follow_symlinks` (`ingest.follow_symlinks`) asks for it, so a link to `/etc/passwd`
  does not become searchable; a path given directly is followed;
- larger than `max_bytes` (default 20 MB): skipped, the reason names the limit
  and the setting to raise it;
- text longer than `max_text_chars` (default 5 million characters, `ingest.max_text_chars`)
  once extracted: skipped. A PDF stops extracting at the limit, so an 18 KB PDF that
  expands to 100 million characters costs seconds, not hours;
- empty, or only whitespace: skipped;
- binary (a NUL byte in a text format): skipped;
- invalid UTF-8. Choice: decode with U+FFFD replacement characters and keep
  the document, flagged (`metadata["encoding_errors"]` counts the replaced
  characters and the pipeline lists it in `IngestReport.flagged`), because a
  stray Latin-1 byte in an otherwise good page should not cost the whole page.
  When more than 10% of the characters would be replaced, the file is not
  UTF-8 text at all and is skipped with a reason telling to convert it.

`doc_id` of a file is its path relative to the ingested root, in POSIX form,
so the same corpus gets the same ids on every machine.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, ClassVar, Protocol

from tellmemore.errors import LoaderError
from tellmemore.types import SkippedFile

log = logging.getLogger(__name__)

DEFAULT_MAX_BYTES = 20 * 1024 * 1024
"""Files above this size are skipped (JSONL is streamed and limited per record instead)."""

DEFAULT_MAX_TEXT_CHARS = 5_000_000
"""Extracted text above this many characters per file is skipped (about 2,000 book pages)."""

MAX_REPLACED_SHARE = 0.10
"""Above this share of undecodable characters a file is treated as not UTF-8 text."""


@dataclass(frozen=True)
class Document:
    """One source document, before chunking.

    `text` is Markdown-like: headings as `#` lines, lists, pipe tables, so the
    chunker sees the same structure whatever the source format was.
    `source` is the absolute POSIX path of the file the document came from.
    """

    doc_id: str
    title: str
    text: str
    source: str
    format: str
    url: str = ""
    version: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    page_starts: tuple[tuple[int, int], ...] = ()
    """For paged sources (PDF): (offset in `text`, page number) of every page with text,
    so each chunk can name the pages it came from (`ingest.pages`)."""


@dataclass(frozen=True)
class LoadResult:
    """Documents loaded, and what could not be loaded with the reason."""

    documents: tuple[Document, ...] = ()
    skipped: tuple[SkippedFile, ...] = ()


class Loader(Protocol):
    """Parses one file format. `binary` loaders receive bytes, the others decoded text."""

    format: ClassVar[str]
    extensions: ClassVar[tuple[str, ...]]
    binary: ClassVar[bool]
    streaming: ClassVar[bool]
    """True: `load` opens and streams the file itself (see `open_checked`); `max_bytes`
    then limits each record, not the file."""

    def load(self, source: Source) -> LoadResult:
        """The documents in `source`; raises LoaderError when the file is unusable."""
        ...


@dataclass(frozen=True)
class Source:
    """A file to load, with its id and, once read, its content."""

    path: Path
    doc_id: str
    data: bytes = b""
    text: str = ""
    encoding_errors: int = 0
    max_bytes: int = DEFAULT_MAX_BYTES
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS

    @property
    def source(self) -> str:
        return self.path.as_posix()

    @property
    def stem(self) -> str:
        return self.path.stem

    def base_metadata(self) -> dict[str, Any]:
        return {"encoding_errors": self.encoding_errors} if self.encoding_errors else {}


_REGISTRY: dict[str, Loader] = {}


def register(loader: Loader) -> Loader:
    """Make `loader` handle its extensions (a later registration wins)."""
    for ext in loader.extensions:
        _REGISTRY[ext.lower()] = loader
    return loader


def supported_extensions() -> tuple[str, ...]:
    _ensure_builtin()
    return tuple(sorted(_REGISTRY))


UNSUPPORTED = "unsupported file type"
"""How a skipped file's reason starts when no loader reads its type (a site's .js, .css,
.svg): the ingest report counts these by extension instead of listing each."""


def loader_for(path: Path) -> Loader:
    """The loader for `path`'s extension; LoaderError lists the supported ones."""
    _ensure_builtin()
    loader = _REGISTRY.get(path.suffix.lower())
    if loader is None:
        valid = ", ".join(sorted(_REGISTRY))
        shown = path.suffix or "(no extension)"
        raise LoaderError(path.as_posix(), f"{UNSUPPORTED} {shown}; supported extensions: {valid}")
    return loader


def _ensure_builtin() -> None:
    if not _REGISTRY:
        from tellmemore.ingest.loaders import (
            docx,
            html,
            jsonl,
            markdown,
            odt,
            pdf,
            pptx,
            rst,
            text,
        )

        for module in (markdown, text, html, pdf, docx, odt, pptx, rst, jsonl):
            register(module.LOADER)
        register(markdown.MDX_LOADER)


def text_too_long(where: str, limit: int) -> LoaderError:
    """The skip reason of a file whose extracted text passes `max_text_chars`."""
    return LoaderError(
        where,
        f"text too long: more than {limit:,} characters once extracted "
        "(raise ingest.max_text_chars to ingest it)",
    )


def open_checked(path: Path) -> BinaryIO:
    """Open a regular file for reading bytes; each way that fails becomes a LoaderError.

    Opened non-blocking and checked with fstat before any read: opening a FIFO for reading
    blocks until a writer comes, and reading a device may never end.
    """
    shown = path.as_posix()
    try:
        if path.is_dir():
            raise LoaderError(shown, "cannot read file: it is a directory")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        try:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                raise LoaderError(
                    shown, "not a regular file (a FIFO, socket or device); skipped unread"
                )
            os.set_blocking(fd, True)
            return os.fdopen(fd, "rb")
        except BaseException:
            os.close(fd)
            raise
    except PermissionError:
        raise LoaderError(
            shown, "cannot read file: permission denied (check its permissions)"
        ) from None
    except FileNotFoundError:
        raise LoaderError(shown, "cannot read file: it does not exist (broken symlink?)") from None
    except OSError as exc:
        raise LoaderError(shown, f"cannot read file: {exc.strerror or exc}") from exc


def read_source(path: Path, doc_id: str, *, binary: bool, max_bytes: int) -> Source:
    """Read a file defensively; every way it can be unusable becomes a LoaderError."""
    shown = path.as_posix()
    with open_checked(path) as fh:
        try:
            data = fh.read(max_bytes + 1)
        except OSError as exc:
            raise LoaderError(shown, f"cannot read file: {exc.strerror or exc}") from exc
    if len(data) > max_bytes:
        size = path.stat().st_size
        raise LoaderError(
            shown,
            f"file too large: {size:,} bytes > limit {max_bytes:,} bytes "
            "(raise max_bytes to ingest it)",
        )
    if not data.strip():
        raise LoaderError(shown, "empty file")
    if binary:
        return Source(path=path, doc_id=doc_id, data=data, max_bytes=max_bytes)
    text, errors = decode_text(data, where=shown)
    if not text.strip():
        raise LoaderError(shown, "empty file")
    return Source(
        path=path, doc_id=doc_id, data=data, text=text, encoding_errors=errors, max_bytes=max_bytes
    )


def decode_text(data: bytes, *, where: str) -> tuple[str, int]:
    """UTF-8 text and the number of replaced characters (see the module docstring)."""
    if b"\x00" in data[:65536]:
        raise LoaderError(where, "binary file (contains NUL bytes), not text")
    try:
        return data.decode("utf-8-sig"), 0
    except UnicodeDecodeError:
        pass
    text = data.decode("utf-8-sig", errors="replace")
    replaced = text.count("\ufffd") - data.decode("utf-8", errors="ignore").count("\ufffd")
    if replaced > MAX_REPLACED_SHARE * max(len(text), 1):
        raise LoaderError(
            where,
            f"not UTF-8 text ({replaced} of {len(text)} characters undecodable); "
            "convert it to UTF-8",
        )
    return text, replaced


def load_file(
    path: str | Path,
    *,
    root: str | Path | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
) -> LoadResult:
    """Load one file. Per-record problems (JSONL) are in `skipped`; a bad file raises.

    `root` is the directory ids are relative to (default: the file's directory).
    """
    p = Path(path).absolute()
    base = Path(root).absolute() if root is not None else p.parent
    loader = loader_for(p)
    doc_id = p.relative_to(base).as_posix() if p.is_relative_to(base) else p.name
    if loader.streaming:
        src = Source(path=p, doc_id=doc_id, max_bytes=max_bytes, max_text_chars=max_text_chars)
        result = loader.load(src)
    else:
        src = read_source(p, doc_id, binary=loader.binary, max_bytes=max_bytes)
        src = Source(
            path=src.path,
            doc_id=src.doc_id,
            data=src.data,
            text=src.text,
            encoding_errors=src.encoding_errors,
            max_bytes=max_bytes,
            max_text_chars=max_text_chars,
        )
        result = loader.load(src)
    if not loader.streaming and any(len(d.text) > max_text_chars for d in result.documents):
        raise text_too_long(p.as_posix(), max_text_chars)
    return result


def load_path(
    path: str | Path, *, root: str | Path | None = None, max_bytes: int = DEFAULT_MAX_BYTES
) -> list[Document]:
    """The documents of one file; raises LoaderError with the reason it cannot be loaded."""
    return list(load_file(path, root=root, max_bytes=max_bytes).documents)


def iter_files(source: str | Path) -> Iterator[tuple[Path, Path]]:
    """(file, root) for a file or every file under a directory, sorted, hidden ones skipped.

    A file given directly has its directory as root, so its id is its name.
    """
    p = Path(source).absolute()
    if not p.is_dir():
        yield p, p.parent
        return
    for dirpath, dirnames, filenames in os.walk(p):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "__")))
        for name in sorted(filenames):
            if not name.startswith("."):
                yield Path(dirpath) / name, p


def shown_path(path: str | Path) -> str:
    """A path as a printable string: bytes that are not UTF-8 appear as `\\xe9`."""
    raw = os.fsencode(str(path) if isinstance(path, Path) else path)
    return raw.decode("utf-8", errors="backslashreplace")


def _name_is_utf8(path: Path) -> bool:
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _link_leaves(file: Path, root: Path) -> bool:
    """Whether `file`, reached by walking `root`, is a symlink to somewhere outside it."""
    if not file.is_symlink():
        return False
    try:
        target = file.resolve()
    except (OSError, RuntimeError):  # a loop
        return True
    return not target.is_relative_to(root.resolve())


def _check_file(file: Path, root: Path, *, walked: bool, follow_symlinks: bool) -> str | None:
    """Why `file` is skipped before it is opened, or None."""
    if not _name_is_utf8(file):
        return "file or folder name is not valid UTF-8; rename it (e.g. with convmv)"
    if walked and not follow_symlinks and _link_leaves(file, root):
        return (
            "symlink to a file outside the ingested folder; not followed "
            "(set ingest.follow_symlinks = true, or ingest the target itself)"
        )
    return None


def load_sources(
    sources: Iterable[str | Path],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
    follow_symlinks: bool = False,
) -> LoadResult:
    """Load every file under `sources`; bad files and duplicate ids are skipped with reasons.

    The first document with an id wins; later ones are reported as duplicates. A loader
    that fails in a way nobody foresaw costs its file only: the error is the skip reason.
    """
    documents: list[Document] = []
    skipped: list[SkippedFile] = []
    seen: dict[str, str] = {}
    for source in sources:
        if not Path(source).exists() and not Path(source).is_symlink():
            skipped.append(SkippedFile(shown_path(source), "no such file or directory"))
            continue
        walked = Path(source).is_dir()
        for file, root in iter_files(source):
            reason = _check_file(file, root, walked=walked, follow_symlinks=follow_symlinks)
            if reason is not None:
                skipped.append(SkippedFile(shown_path(file), reason))
                continue
            try:
                result = load_file(
                    file, root=root, max_bytes=max_bytes, max_text_chars=max_text_chars
                )
            except LoaderError as exc:
                skipped.append(SkippedFile(exc.path, exc.reason))
                continue
            except (Exception, RecursionError) as exc:
                log.exception("cannot load %s", shown_path(file))
                skipped.append(
                    SkippedFile(shown_path(file), f"cannot load: {type(exc).__name__}: {exc}")
                )
                continue
            skipped.extend(result.skipped)
            for doc in result.documents:
                first = seen.get(doc.doc_id)
                if first is not None:
                    skipped.append(
                        SkippedFile(
                            doc.source,
                            f"duplicate document id {doc.doc_id!r} (first loaded from {first})",
                        )
                    )
                    continue
                seen[doc.doc_id] = doc.source
                documents.append(doc)
    return LoadResult(tuple(documents), tuple(skipped))
