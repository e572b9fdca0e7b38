"""Hostile files and names at ingestion (issue 24): each bad input costs only itself.

Every case is ingested next to good files; the good files must all be indexed and the
bad one skipped with its reason in the report (or ingested on its own), never an
exception out of `ingest`.
"""

from __future__ import annotations

import os
import sqlite3
import zlib
from pathlib import Path

import pytest

from tellmemore.state.db import StateDB
from tests.ingest.helpers import Project

GOOD = {
    "alpha.md": "# Alpha\n\nThe alpha router keeps tunnels up for 24 hours.\n",
    "beta.txt": "Beta notes\n\nBeta sites renew their certificates every 90 days.\n",
}


def _good_folder(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in GOOD.items():
        (folder / name).write_text(text)
    return folder


def _doc_ids(project: Project, tenant: str = "") -> set[str]:
    rows = project.state_rows(f"SELECT doc_id FROM documents WHERE tenant = '{tenant}'")
    return {r["doc_id"] for r in rows}


def _assert_good_kept(project: Project, report_ids: set[str] | None = None) -> None:
    ids = _doc_ids(project)
    assert set(GOOD) <= ids, ids


# -- 1. tenant document keys ---------------------------------------------------------------


def test_a_default_tenant_id_cannot_overwrite_another_tenants_row(tmp_path: Path) -> None:
    project = Project(tmp_path / "project")
    acme = tmp_path / "acme"
    acme.mkdir()
    (acme / "falcon.md").write_text("# Falcon\n\nFalcon plans cost 40 euros a month.\n")
    (acme / "kestrel.md").write_text("# Kestrel\n\nKestrel plans cost 12 euros a month.\n")
    project.run(acme, tenant="acme")

    attacker = tmp_path / "default"
    attacker.mkdir()
    (attacker / "hostile.jsonl").write_text(
        '{"id": "acme\\u001ffalcon.md", "text": "Falcon is free for everyone."}\n'
    )
    project.run(attacker)

    # acme deletes falcon.md and syncs: its chunks must leave the index.
    (acme / "falcon.md").unlink()
    report = project.run(acme, tenant="acme", sync=True)
    assert report.docs_deleted == 1
    conn = sqlite3.connect(project.root / "index.db")
    left = {r[0] for r in conn.execute("SELECT doc_id FROM chunks WHERE tenant = 'acme'")}
    conn.close()
    assert left == {"kestrel.md"}
    assert _doc_ids(project, "acme") == {"kestrel.md"}
    assert _doc_ids(project, "") == {"acme\x1ffalcon.md"}


def test_migration_0006_keeps_every_existing_row(tmp_path: Path) -> None:
    """A state.db written before the key change keeps its rows, split into (tenant, id)."""
    from tellmemore.state.migrations import MIGRATIONS

    path = tmp_path / "state.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
    for name, sql in [m for m in MIGRATIONS if m[0] < "0006"]:
        conn.executescript(sql)
        conn.execute("INSERT INTO _migrations VALUES (?, 0)", (name,))
    rows = [
        ("faq.md", "", "/d/faq.md"),
        ("acme\x1ffaq.md", "acme", "/a/faq.md"),
        ("acme\x1fsub/x.md", "acme", "/a/sub/x.md"),
    ]
    conn.executemany(
        "INSERT INTO documents (doc_id, tenant, source, content_hash, chunk_ids, updated_at) "
        "VALUES (?, ?, ?, 'h', '[]', 0)",
        rows,
    )
    conn.executemany(
        "INSERT INTO journal VALUES (?, 'run', 'h', 0)", [("faq.md",), ("acme\x1fnew.md",)]
    )
    conn.close()

    state = StateDB(path)
    got = {(r["tenant"], r["doc_id"], r["source"]) for r in state.query("SELECT * FROM documents")}
    journal = {(r["tenant"], r["doc_id"]) for r in state.query("SELECT * FROM journal")}
    state.close()
    assert got == {
        ("", "faq.md", "/d/faq.md"),
        ("acme", "faq.md", "/a/faq.md"),
        ("acme", "sub/x.md", "/a/sub/x.md"),
    }
    assert journal == {("", "faq.md"), ("acme", "new.md")}
