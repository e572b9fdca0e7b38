"""Two uvicorn workers share one project directory: concurrent sessions lose nothing and
corrupt nothing (state.db is SQLite in WAL mode, each write one IMMEDIATE transaction)."""

from __future__ import annotations

import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from .servers import serve_in_subprocess

pytestmark = pytest.mark.model

CONVERSATIONS = [
    ["what escalation options do we have on cloud connect", "does that one cover weekends?"],
    ["How much is the Pro plan?", "what is its plan code?"],
    ["what's the SLA on status page incidents?", "and on holidays?"],
    ["What are the shop opening hours?", "and on public holidays?"],
    ["My tyre went flat during a ride.", "Do I pay for the other one?"],
    ["how do I onboard a router?", "which ones are supported?"],
]


def _play(base: str, script: list[str]) -> list[dict]:  # type: ignore[type-arg]
    answers = []
    with httpx.Client(base_url=base, timeout=120) as http:
        session_id = None
        for i, message in enumerate(script):
            body = {"message": message, "session_id": session_id, "stream": i % 2 == 1}
            if body["stream"]:
                with http.stream("POST", "/v1/chat", json=body) as r:
                    assert r.status_code == 200
                    text = r.read().decode()
                assert "event: done" in text and "event: error" not in text
                trace_id = text.rsplit('"trace_id": "', 1)[1].split('"', 1)[0]
                answers.append({"trace_id": trace_id, "session_id": session_id})
            else:
                r = http.post("/v1/chat", json=body)
                assert r.status_code == 200, r.text
                answers.append(r.json())
                session_id = r.json()["session_id"]
        # stateless turns and feedback in the same mix
        r = http.post("/v1/chat", json={"message": script[0], "history": []})
        assert r.status_code == 200
        answers.append(r.json())
        fb = http.post("/v1/feedback", json={"trace_id": answers[0]["trace_id"], "rating": "up"})
        assert fb.status_code == 201
    return answers


def test_two_workers_concurrent_sessions_lose_nothing(sample_project: Path, tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    scripts = CONVERSATIONS
    with serve_in_subprocess(sample_project, workers=2, log=log) as server:
        workers = server.workers()
        with ThreadPoolExecutor(max_workers=len(scripts)) as pool:
            results = list(pool.map(lambda s: _play(server.base, s), scripts))
    assert len(workers) == 2, f"expected 2 worker processes, found {workers}"
    trace_ids = [a["trace_id"] for answers in results for a in answers]
    assert len(set(trace_ids)) == len(trace_ids)
    expected_turns = sum(len(s) for s in scripts)
    with sqlite3.connect(sample_project / "state.db") as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stored = {r[0] for r in db.execute("SELECT trace_id FROM traces")}
        assert stored == set(trace_ids), "every answered turn has exactly its trace"
        assert len(stored) == expected_turns + len(scripts)
        turns = db.execute("SELECT COUNT(*) FROM turns").fetchone()[0]
        assert turns == 2 * expected_turns
        sessions = db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
        assert sessions == len(scripts)
        # positions in each session are gapless: no turn was lost or interleaved wrongly
        for (sid,) in db.execute("SELECT session_id FROM sessions").fetchall():
            positions = [
                r[0]
                for r in db.execute(
                    "SELECT position FROM turns WHERE session_id = ? ORDER BY position", (sid,)
                )
            ]
            assert positions == list(range(2 * len(CONVERSATIONS[0])))
        assert db.execute("SELECT COUNT(*) FROM feedback").fetchone()[0] == len(scripts)
    with sqlite3.connect(sample_project / "index.db") as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
