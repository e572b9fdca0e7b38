"""JSONL records, one Document per line: `{id, title, text, url, version, metadata}`.

`id` (or `_id`, the BEIR/MTRAG spelling) and `text` are required. The file is
streamed, so a corpus file may be large; `max_bytes` limits each record. A bad
line is reported as `file:line` with its reason and the rest of the file still
loads.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from tellmemore.errors import LoaderError
from tellmemore.ingest.loaders.base import Document, LoadResult, Source, open_checked
from tellmemore.types import SkippedFile


def _record(obj: Any, source: Source) -> Document:
    if not isinstance(obj, dict):
        raise ValueError(f"expected a JSON object, got {type(obj).__name__}")
    rid = obj.get("id", obj.get("_id"))
    if isinstance(rid, bool) or not isinstance(rid, str | int) or str(rid).strip() == "":
        raise ValueError("missing or empty 'id' (a string or an integer)")
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
        if not seen_content:
            raise LoaderError(source.source, "empty file")
        return LoadResult(tuple(documents), tuple(skipped))


LOADER = JSONLLoader()
