"""Cross-tenant side channels (issue 24, item 7): what one tenant's turn reads from the index
(the typo fixer's vocabulary, the gate's headings, term statistics) is its own tenant's, and
a trace is looked up with its tenant in the query, so a foreign id costs what a missing one
does."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tellmemore.assistant import Assistant
from tellmemore.errors import NotFoundError

A_DOCS = {
    "frankfurt.md": "# Frankfurt data centre\n\nThe Frankfurt data centre hosts the Falcon "
    "plan. Frankfurt routers renew keys hourly.\n",
    "falcon.md": "# Falcon plan\n\nThe Falcon plan includes weekend support and costs 40 "
    "euros a month. Frankfurt customers get it first.\n",
    "offices.md": "# Offices\n\nOur Frankfurt office opens at 8. Visit Frankfurt any time.\n",
    "travel.md": "# Travel\n\nFly to Frankfurt airport, then take the train.\n",
}
B_DOCS = {
    "routers.md": "# Router models\n\nThe Kestrel router renews keys every day. Kestrel "
    "routers need firmware 2.8 or later.\n",
    "plans.md": "# Support plans\n\nThe Basic plan includes email support. The Premium plan "
    "includes weekend support.\n",
}
CONVERSATION = [
    "which routers do you support?",
    "do frankfrt routers renew keys?",
    "and the falcon plan?",
    "does it include weekend support?",
]


def _write(folder: Path, docs: dict[str, str]) -> Path:
    folder.mkdir(parents=True)
    for name, text in docs.items():
        (folder / name).write_text(text)
    return folder


def _turns(assistant: Assistant, tenant: str) -> list[tuple[object, ...]]:
    session = assistant.session(None, tenant=tenant)
    out = []
    for message in CONVERSATION:
        answer = session.ask(message)
        trace = assistant.trace(answer.trace_id)
        out.append(
            (answer.standalone_query, trace.get("gate"), tuple(sorted(answer.bindings.items())))
        )
    return out


def test_tenant_b_turns_are_the_same_whether_or_not_tenant_a_exists(
    tmp_path: Path, open_assistant: Callable[..., Assistant]
) -> None:
    a = _write(tmp_path / "a", A_DOCS)
    b = _write(tmp_path / "b", B_DOCS)
    both = open_assistant(tmp_path / "both")
    both.ingest([a], tenant="acme")
    both.ingest([b], tenant="globex")
    alone = open_assistant(tmp_path / "alone")
    alone.ingest([b], tenant="globex")
    seen = _turns(both, "globex")
    assert seen == _turns(alone, "globex")
    assert all("frankfurt" not in str(q).lower() for q, *_ in seen)
    # Control: acme's own turn does fix the typo from acme's vocabulary.
    fixed = both.session(None, tenant="acme").ask("do frankfrt routers renew keys?")
    assert "frankfurt" in (fixed.standalone_query or "").lower()


def test_index_vocabulary_and_headings_are_per_tenant(
    tmp_path: Path, open_assistant: Callable[..., Assistant]
) -> None:
    both = open_assistant(tmp_path / "both")
    both.ingest([_write(tmp_path / "a", A_DOCS)], tenant="acme")
    both.ingest([_write(tmp_path / "b", B_DOCS)], tenant="globex")
    index = both.index
    assert index.term_stats(["frankfurt"], tenant="globex").df["frankfurt"] == 0
    assert index.term_stats(["frankfurt"], tenant="acme").df["frankfurt"] == 4
    assert index.term_stats(["frankfurt"]).df["frankfurt"] == 4  # no tenant: all of them
    assert index.term_stats(["x"], tenant="globex").n_chunks == len(index.ids(tenant="globex"))
    assert not any("Falcon" in h for h in index.headings(tenant="globex"))
    assert any("Falcon" in h for h in index.headings(tenant="acme"))
    assert index.headings(tenant="globex") is index.headings(tenant="globex")  # cached


def test_a_foreign_trace_is_not_loaded_before_the_tenant_check(
    fake_project: Path, open_assistant: Callable[..., Assistant], monkeypatch: pytest.MonkeyPatch
) -> None:
    assistant = open_assistant(fake_project)
    mine = assistant.session(None, tenant="acme").ask("how much is a day pass?").trace_id
    store = assistant.conversations
    returned: list[int] = []
    query = store.db.query

    def counting(sql: str, params: tuple[object, ...] = ()):  # type: ignore[no-untyped-def]
        rows = query(sql, params)
        if "payload" in sql:
            returned.append(len(rows))
        return rows

    monkeypatch.setattr(store.db, "query", counting)
    with pytest.raises(NotFoundError):
        assistant.trace(mine, tenant="globex")
    assert returned == [0]  # the query itself found nothing: no payload was read
    assert assistant.trace(mine, tenant="acme")["trace_id"] == mine
    assert assistant.trace(mine)["trace_id"] == mine  # no tenant: the operator sees all


def test_migration_0007_gives_existing_traces_their_tenant(tmp_path: Path) -> None:
    import sqlite3

    from tellmemore.state.db import StateDB
    from tellmemore.state.migrations import MIGRATIONS

    path = tmp_path / "state.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
    for name, sql in [m for m in MIGRATIONS if m[0] < "0007"]:
        conn.executescript(sql)
        conn.execute("INSERT INTO _migrations VALUES (?, 0)", (name,))
    conn.executemany(
        "INSERT INTO traces (trace_id, created_at, message, payload) VALUES (?, 0, 'm', ?)",
        [("t1", '{"tenant": "acme"}'), ("t2", '{"tenant": ""}'), ("t3", "{}")],
    )
    conn.close()
    state = StateDB(path)
    rows = {r["trace_id"]: r["tenant"] for r in state.query("SELECT trace_id, tenant FROM traces")}
    state.close()
    assert rows == {"t1": "acme", "t2": "", "t3": ""}
