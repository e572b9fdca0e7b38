"""Desired vs stored chunk ids -> what to write, keep and delete. Pure: no I/O.

The pipeline calls it per document: `desired` is the new chunking (id -> content
hash), `stored` what the index holds for that document. Anything stored and no
longer desired is an orphan and is deleted, so no stale chunk outlives an edit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Plan:
    """Ids to upsert (new, changed), to leave alone, and to delete; each sorted."""

    upsert_new: tuple[str, ...] = ()
    upsert_changed: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    delete: tuple[str, ...] = ()

    @property
    def upsert(self) -> tuple[str, ...]:
        return self.upsert_new + self.upsert_changed

    @property
    def is_noop(self) -> bool:
        return not (self.upsert_new or self.upsert_changed or self.delete)


def plan(desired: Mapping[str, str], stored: Mapping[str, str]) -> Plan:
    """Compare id -> content hash maps: new ids, changed hashes, equal hashes, orphans."""
    new = sorted(i for i in desired if i not in stored)
    changed = sorted(i for i, h in desired.items() if i in stored and stored[i] != h)
    unchanged = sorted(i for i, h in desired.items() if i in stored and stored[i] == h)
    delete = sorted(i for i in stored if i not in desired)
    return Plan(tuple(new), tuple(changed), tuple(unchanged), tuple(delete))
