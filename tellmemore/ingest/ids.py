"""Stable chunk ids and content hashes.

A chunk id is derived from where the chunk sits, never from a random uuid or
from its text: (tenant, document id, section path, ordinal within that
section path). Editing the words of a section keeps its ids, so the edit is
an upsert; only a change of structure (a section renamed, a chunk added)
changes ids. The content hash is kept apart: it says whether a chunk whose id
already exists must be re-embedded.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

CHUNK_ID_CHARS = 32
"""Hex characters kept from sha256 (128 bits: collisions are not a practical concern)."""


def _digest(parts: object) -> str:
    payload = json.dumps(
        parts, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def chunk_id(doc_id: str, section_path: Sequence[str], ordinal: int, *, tenant: str = "") -> str:
    """Stable id of the `ordinal`-th chunk (0-based) under `section_path` of a document.

    The tenant takes part so that two tenants ingesting the same relative path
    never overwrite each other's chunks; with the default tenant "" the id
    depends on (doc_id, section_path, ordinal) only.
    """
    parts: list[object] = [doc_id, list(section_path), ordinal]
    if tenant:
        parts.append(tenant)
    return _digest(parts)[:CHUNK_ID_CHARS]


def content_hash(text: str, *context: object) -> str:
    """Hash of `text` plus any context that changes what is stored (title, version, ...).

    Context values must be JSON-serialisable (or have a stable `str`); mappings
    are hashed with sorted keys, so key order never matters.
    """
    return _digest([text, *context])
