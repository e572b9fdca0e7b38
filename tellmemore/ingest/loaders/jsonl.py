"""JSONL records, one Document per line: `{id, title, text, url, version, metadata}`.

`id` (or `_id`, the BEIR/MTRAG spelling) and `text` are required. The file is
streamed, so a corpus file may be large; `max_bytes` limits each record. A bad
line is reported as `file:line` with its reason and the rest of the file still
loads. Hostile lines are bad lines too: a value nested deeper than `MAX_DEPTH`
(parsing 100,000 levels would exhaust the stack), an `id` holding a lone surrogate
(`"\\ud800"` is valid JSON but not Unicode). A lone surrogate in the other fields
becomes U+FFFD, as undecodable bytes do in text files, and the record is kept.
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

from tellmemore.errors import LoaderError
from tellmemore.ingest.loaders.base import Document, LoadResult, Source, open_checked
from tellmemore.types import SkippedFile

MAX_DEPTH = 32
"""Deepest nesting of arrays and objects a record may have (metadata is a flat map in practice)."""

_SURROGATE = re.compile("[\ud800-\udfff]")
_OPENERS = re.compile(rb"[\[{]")


def _too_deep(raw: bytes) -> bool:
    """Nesting above MAX_DEPTH, counted on the bytes before parsing (brackets inside strings
    over-count, which only makes the check stricter for odd records)."""
    if len(_OPENERS.findall(raw)) <= MAX_DEPTH:
        return False
    depth = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return False


def _clean(value: Any, replaced: list[int]) -> Any:
    """`value` with every lone surrogate replaced by U+FFFD (counted in `replaced`)."""
    if isinstance(value, str):
        out, n = _SURROGATE.subn("\ufffd", value)
        replaced[0] += n
        return out
    if isinstance(value, list):
        return [_clean(v, replaced) for v in value]
    if isinstance(value, dict):
        return {_clean(k, replaced): _clean(v, replaced) for k, v in value.items()}
    return value


def _record(obj: Any, source: Source) -> Document:
    if not isinstance(obj, dict):
        raise ValueError(f"expected a JSON object, got {type(obj).__name__}")
    rid = obj.get("id", obj.get("_id"))
    if isinstance(rid, bool) or not isinstance(rid, str | int) or str(rid).strip() == "":
        raise ValueError("missing or empty 'id' (a string or an integer)")
    if isinstance(rid, str) and _SURROGATE.search(rid):
        raise ValueError("'id' holds a lone surrogate (\\ud800-\\udfff), not valid Unicode")
    replaced = [0]
    obj = _clean(obj, replaced)
    text = obj.get("text")
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"record {rid!r}: missing or empty 'text'")
    fields: dict[str, str] = {}
    for key in ("title", "url", "version"):
        value = obj.get(key) or ""
        if not isinstance(value, str | int | float):
            raise ValueError(f"record {rid!r}: {key!r} must be a string")
        fields[key] = str(value).strip()
    metadata = obj.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise ValueError(f"record {rid!r}: 'metadata' must be a JSON object")
    if replaced[0]:
        metadata = {**metadata, "encoding_errors": replaced[0]}
    return Document(
        doc_id=str(rid).strip(),
        title=fields["title"] or str(rid),
        text=text.strip("\n") + "\n",
        source=source.source,
        format="jsonl",
        url=fields["url"],
        version=fields["version"],
        metadata=metadata,
    )


class JSONLLoader:
    format: ClassVar[str] = "jsonl"
    extensions: ClassVar[tuple[str, ...]] = (".jsonl", ".ndjson")
    binary: ClassVar[bool] = True
    streaming: ClassVar[bool] = True

    def load(self, source: Source) -> LoadResult:
        documents: list[Document] = []
        skipped: list[SkippedFile] = []
        seen_content = False
        with open_checked(source.path) as fh:
            for lineno, raw in enumerate(fh, start=1):
                if not raw.strip():
                    continue
                seen_content = True
                where = f"{source.source}:{lineno}"
                if len(raw) > source.max_bytes:
                    skipped.append(
                        SkippedFile(
                            where, f"record too large: {len(raw):,} > {source.max_bytes:,} bytes"
                        )
                    )
                    continue
                if _too_deep(raw):
                    skipped.append(
                        SkippedFile(where, f"nested too deeply (more than {MAX_DEPTH} levels)")
                    )
                    continue
                try:
                    obj = json.loads(raw.decode("utf-8-sig"))
                    documents.append(_record(obj, source))
                except UnicodeDecodeError:
                    skipped.append(SkippedFile(where, "invalid UTF-8; convert the file to UTF-8"))
                except json.JSONDecodeError as exc:
                    skipped.append(
                        SkippedFile(where, f"invalid JSON: {exc.msg} (column {exc.colno})")
                    )
                except ValueError as exc:
                    skipped.append(SkippedFile(where, str(exc)))
                except RecursionError:
                    skipped.append(SkippedFile(where, "nested too deeply"))
        if not seen_content:
            raise LoaderError(source.source, "empty file")
        return LoadResult(tuple(documents), tuple(skipped))


LOADER = JSONLLoader()
