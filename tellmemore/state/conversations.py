"""Sessions, turns, traces and feedback in state.db.

A turn is written in one transaction together with its trace, so a process
killed mid-turn leaves either the whole turn or nothing: never a half-written
trace or a user message without its answer.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from tellmemore.errors import InputError, NotFoundError
from tellmemore.state.db import StateDB
from tellmemore.types import Citation, Resolution, Trace, Turn

RATINGS = ("up", "down")


def new_id() -> str:
    return uuid.uuid4().hex


class ConversationStore:
    """Reads and writes conversations. Thread-safe through StateDB."""

    def __init__(self, db: StateDB) -> None:
        self.db = db

    def ensure_session(self, session_id: str | None, *, tenant: str = "") -> str:
        """Return an existing session id (checking its tenant) or create one."""
        session_id = session_id or new_id()
        with self.db.transaction() as conn:
            row = conn.execute(
                "SELECT tenant FROM sessions WHERE session_id = ?", (session_id,)
            ).fetchone()
            if row is None:
                conn.execute(
                    "INSERT INTO sessions (session_id, tenant, created_at) VALUES (?, ?, ?)",
                    (session_id, tenant, time.time()),
                )
            elif row["tenant"] != tenant:
                raise NotFoundError("session", session_id)
        return session_id

    def session_exists(self, session_id: str, *, tenant: str | None = None) -> bool:
        """Whether the session exists (and, with `tenant`, is that tenant's: in the query)."""
        rows = self.db.query(
            "SELECT 1 FROM sessions WHERE session_id = ? AND (? IS NULL OR tenant = ?)",
            (session_id, tenant, tenant),
        )
        return bool(rows)

    def history(self, session_id: str) -> list[Turn]:
        """The session's turns in order; a user turn carries the Resolution it got when it
        was asked, so the next turn reads it instead of resolving the history again; an
        answer carries the list items it quoted, and the last two answers the headings of
        the passages they cited first (`Turn.about`: the resolver reads no older ones)."""
        rows = self.db.query(
            "SELECT role, content, resolution, items, trace_id FROM turns WHERE session_id = ?"
            " ORDER BY position",
            (session_id,),
        )
        answers = [r["trace_id"] for r in rows if r["role"] == "assistant" and r["trace_id"]]
        about = self._about(answers[-ABOUT_ANSWERS:])
        return [
            Turn(
                role=r["role"],
                content=r["content"],
                resolution=_resolution(r["resolution"]),
                items=_items(r["items"]),
                about=about.get(r["trace_id"]) if r["role"] == "assistant" else None,
            )
            for r in rows
        ]

    def _about(self, trace_ids: list[str]) -> dict[str, tuple[str, ...]]:
        """`Turn.about` of the answers with these traces, read from the traces' citations."""
        if not trace_ids:
            return {}
        marks = ", ".join("?" for _ in trace_ids)
        rows = self.db.query(
            f"SELECT trace_id, payload FROM traces WHERE trace_id IN ({marks})", tuple(trace_ids)
        )
        return {r["trace_id"]: _about(r["payload"]) for r in rows}

    def last_answer_citations(self, session_id: str) -> tuple[Citation, ...]:
        """The citations of the session's last answer: "make that shorter" rewrites that
        answer, whose "[n]" markers still point at them."""
        rows = self.db.query(
            "SELECT t.payload FROM turns AS u JOIN traces AS t ON t.trace_id = u.trace_id"
            " WHERE u.session_id = ? AND u.role = 'assistant' ORDER BY u.position DESC LIMIT 1",
            (session_id,),
        )
        if not rows:
            return ()
        cited = _cited(rows[0]["payload"])
        return tuple(
            Citation(
                **{
                    **c,
                    "section": tuple(c.get("section", ())),
                    "pages": tuple(c.get("pages", ())),
                    "flags": tuple(c.get("flags", ())),
                }
            )
            for c in cited
        )

    def session_info(self, session_id: str, *, tenant: str | None = None) -> dict[str, Any]:
        rows = self.db.query(
            "SELECT session_id, tenant, created_at, summary FROM sessions "
            "WHERE session_id = ? AND (? IS NULL OR tenant = ?)",
            (session_id, tenant, tenant),
        )
        if not rows:
            raise NotFoundError("session", session_id)
        turns = self.db.query(
            "SELECT position, role, content, trace_id, created_at FROM turns "
            "WHERE session_id = ? ORDER BY position",
            (session_id,),
        )
        return {
            "session_id": session_id,
            "created_at": rows[0]["created_at"],
            "summary": rows[0]["summary"],
            "turns": [dict(t) for t in turns],
        }

    def summary(self, session_id: str) -> tuple[str, int]:
        rows = self.db.query(
            "SELECT summary, summary_upto FROM sessions WHERE session_id = ?", (session_id,)
        )
        return (rows[0]["summary"], rows[0]["summary_upto"]) if rows else ("", 0)

    def set_summary(self, session_id: str, summary: str, upto: int) -> None:
        with self.db.transaction() as conn:
            conn.execute(
                "UPDATE sessions SET summary = ?, summary_upto = ? WHERE session_id = ?",
                (summary, upto, session_id),
            )

    def record_turn(self, trace: Trace, *, tenant: str = "") -> None:
        """Store the trace and, for a session, the user message and the answer, atomically."""
        payload = json.dumps(trace.to_dict(), ensure_ascii=False)
        now = time.time()
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO traces (trace_id, session_id, parent_trace_id, created_at, message,"
                " payload, tenant) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    trace.trace_id,
                    trace.session_id,
                    trace.parent_trace_id,
                    now,
                    trace.message,
                    payload,
                    tenant,
                ),
            )
            if trace.session_id is None:
                return
            row = conn.execute(
                "SELECT COALESCE(MAX(position), -1) AS p FROM turns WHERE session_id = ?",
                (trace.session_id,),
            ).fetchone()
            position = int(row["p"]) + 1
            resolution = (
                json.dumps(trace.resolution.to_dict(), ensure_ascii=False)
                if trace.resolution is not None
                else None
            )
            items = json.dumps(list(trace.answer.items), ensure_ascii=False)
            conn.executemany(
                "INSERT INTO turns (session_id, position, role, content, trace_id, created_at,"
                " resolution, items) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        trace.session_id,
                        position,
                        "user",
                        trace.message,
                        trace.trace_id,
                        now,
                        resolution,
                        None,
                    ),
                    (
                        trace.session_id,
                        position + 1,
                        "assistant",
                        _assistant_text(trace),
                        trace.trace_id,
                        now,
                        None,
                        items,
                    ),
                ],
            )

    def trace(self, trace_id: str, *, tenant: str | None = None) -> dict[str, Any]:
        """A stored trace; with `tenant`, only that tenant's. The tenant is checked in the
        query: a foreign trace is not read, so it answers as fast as a missing one."""
        rows = self.db.query(
            "SELECT payload FROM traces WHERE trace_id = ? AND (? IS NULL OR tenant = ?)",
            (trace_id, tenant, tenant),
        )
        if not rows:
            raise NotFoundError("trace", trace_id)
        data: dict[str, Any] = json.loads(rows[0]["payload"])
        data["feedback"] = [
            dict(r)
            for r in self.db.query(
                "SELECT rating, reason, created_at FROM feedback WHERE trace_id = ?"
                " ORDER BY feedback_id",
                (trace_id,),
            )
        ]
        data["children"] = [
            r["trace_id"]
            for r in self.db.query(
                "SELECT trace_id FROM traces WHERE parent_trace_id = ? ORDER BY created_at",
                (trace_id,),
            )
        ]
        return data

    def add_feedback(self, trace_id: str, rating: str, reason: str | None = None) -> int:
        if rating not in RATINGS:
            raise InputError(f"rating must be one of {', '.join(RATINGS)}, got {rating!r}")
        with self.db.transaction() as conn:
            if (
                conn.execute("SELECT 1 FROM traces WHERE trace_id = ?", (trace_id,)).fetchone()
                is None
            ):
                raise NotFoundError("trace", trace_id)
            cur = conn.execute(
                "INSERT INTO feedback (trace_id, rating, reason, created_at) VALUES (?, ?, ?, ?)",
                (trace_id, rating, reason, time.time()),
            )
            return int(cur.lastrowid or 0)

    def count_traces(self) -> int:
        return int(self.db.query("SELECT COUNT(*) AS n FROM traces")[0]["n"])


def _assistant_text(trace: Trace) -> str:
    answer = trace.answer
    return answer.clarification or answer.answer


def _resolution(stored: str | None) -> Resolution | None:
    """A stored Resolution; a row that does not parse reads as none (recomputed)."""
    if not stored:
        return None
    try:
        return Resolution.from_dict(json.loads(stored))
    except (ValueError, TypeError, AttributeError):
        return None


def _items(stored: str | None) -> tuple[str, ...] | None:
    """An answer's stored list items; None (read the text) for a row stored before them
    or one that does not parse."""
    if stored is None:
        return None
    try:
        data = json.loads(stored)
    except ValueError:
        return None
    if not isinstance(data, list) or not all(isinstance(x, str) for x in data):
        return None
    return tuple(data)


def _cited(payload: str | None) -> list[dict[str, Any]]:
    """The citations of the answer a trace payload holds ([] when it holds none)."""
    if not payload:
        return []
    try:
        cited = json.loads(payload).get("answer", {}).get("citations") or []
    except (ValueError, AttributeError):
        return []
    return [c for c in cited if isinstance(c, dict)] if isinstance(cited, list) else []


def _about(payload: str | None) -> tuple[str, ...]:
    """The section heading of an answer's first citation, from its trace: ("",) when it
    cites a whole document (a title names more than the passage), () when it cites none."""
    cited = _cited(payload)
    if not cited:
        return ()
    section = cited[0].get("section") or ()
    return (str(section[-1] if section else "").strip(),)


ABOUT_ANSWERS = 2
"""Answers of a session whose `Turn.about` is read: the last one names the next follow-up's
antecedent, the one before it tells what the last question's stored resolution added."""
