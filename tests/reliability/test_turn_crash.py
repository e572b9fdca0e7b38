"""A turn killed mid-way leaves no half-written trace (issue 6).

A subprocess (turn_worker.py) runs turns in several sessions over a copy of the sample
project; the test SIGKILLs it either exactly inside a turn's state.db transaction (after
the trace row, before the turn rows) or at seeded random moments, then checks state.db:
`PRAGMA integrity_check` ok; every session trace has exactly its two turn rows (user then
assistant, adjacent positions, the user row holding the trace's message) and every turn
row its trace; stateless traces have no turn rows; positions are gapless; and every turn
the worker saw acknowledged is stored. A new process then continues the same sessions.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

WORKER = Path(__file__).with_name("turn_worker.py")
REPO = Path(__file__).resolve().parents[2]
SEED = 606


def start_worker(project: Path, *args: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TELLMEMORE_")}
    env.update(
        PYTHONPATH=str(REPO),
        HF_HUB_OFFLINE="1",
        TELLMEMORE_CONFIG=str(project.parent / "no-such-tellmemore.toml"),
    )
    cmd = [sys.executable, str(WORKER), str(project), *args]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if line != "started":
        _, err = proc.communicate(timeout=60)
        raise AssertionError(f"the worker did not start: {line!r}\n{err}")
    return proc


def acknowledged(out: str) -> set[str]:
    return {line.split()[1] for line in out.splitlines() if line.startswith("done ")}


def kill_in_transaction(project: Path, hold_at: int) -> set[str]:
    proc = start_worker(project, "--hold-at", str(hold_at), "--seed", str(hold_at))
    assert proc.stdout is not None
    acked: set[str] = set()
    for line in proc.stdout:
        if line.startswith("done "):
            acked.add(line.split()[1])
        if line.strip() == "in-transaction":
            break
    else:
        _, err = proc.communicate(timeout=30)
        raise AssertionError(f"the worker never reached the held write: {err}")
    proc.send_signal(signal.SIGKILL)
    out, _ = proc.communicate(timeout=30)
    return acked | acknowledged(out)


def kill_after(project: Path, delay: float, seed: int) -> set[str]:
    proc = start_worker(project, "--seed", str(seed))
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL, "the worker ran out of turns before the kill"
    return acknowledged(out)


def check_state(db_path: Path, acked: set[str]) -> int:
    """All invariants of state.db after a kill; returns the number of stored traces."""
    conn = sqlite3.connect(db_path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        traces = {
            tid: (sid, message, json.loads(payload))
            for tid, sid, message, payload in conn.execute(
                "SELECT trace_id, session_id, message, payload FROM traces"
            )
        }
        rows = conn.execute(
            "SELECT session_id, position, role, content, trace_id FROM turns"
        ).fetchall()
    finally:
        conn.close()
    missing = acked - set(traces)
    assert not missing, f"{len(missing)} acknowledged turns were lost"
    by_trace: dict[str, list[tuple[str, int, str, str]]] = defaultdict(list)
    positions: dict[str, list[int]] = defaultdict(list)
    for sid, position, role, content, tid in rows:
        assert tid in traces, f"turn row {sid}:{position} has no trace {tid}"
        by_trace[tid].append((sid, position, role, content))
        positions[sid].append(position)
    for tid, (sid, message, payload) in traces.items():
        assert payload["trace_id"] == tid and payload["answer"]["trace_id"] == tid
        turns = sorted(by_trace.get(tid, []), key=lambda r: r[1])
        if sid is None:
            assert turns == [], f"stateless trace {tid} has turn rows"
            continue
        assert [r[2] for r in turns] == ["user", "assistant"], f"trace {tid}: {turns}"
        (s1, p1, _, content), (s2, p2, _, _) = turns
        assert s1 == s2 == sid and p2 == p1 + 1 and p1 % 2 == 0
        assert content == message
    for sid, ps in positions.items():
        assert sorted(ps) == list(range(len(ps))), f"session {sid} has gaps: {sorted(ps)}"
    return len(traces)


def continue_sessions(project: Path, acked: set[str]) -> None:
    """A new process runs more turns on the same state.db: no lock or gap was left behind."""
    proc = start_worker(project, "--turns", "6", "--seed", "99")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert len(acknowledged(out)) == 6
    check_state(project / "state.db", acked | acknowledged(out))


@pytest.mark.parametrize("hold_at", [0, 5, 12])
def test_a_turn_killed_inside_its_transaction_leaves_nothing_half_written(
    fake_project: Path, hold_at: int
) -> None:
    acked = kill_in_transaction(fake_project, hold_at)
    stored = check_state(fake_project / "state.db", acked)
    assert stored == len(acked), "the held turn's trace row was rolled back with its turns"
    continue_sessions(fake_project, acked)


def random_kills(project: Path, kills: int, seed: int) -> None:
    rng = random.Random(seed)
    acked: set[str] = set()
    for k in range(kills):
        acked |= kill_after(project, rng.uniform(0.3, 2.5), seed=seed + k)
        check_state(project / "state.db", acked)
    continue_sessions(project, acked)


def test_turns_killed_at_random_moments(fake_project: Path) -> None:
    random_kills(fake_project, kills=3, seed=SEED)


@pytest.mark.slow
def test_turns_killed_at_many_random_moments(fake_project: Path) -> None:
    random_kills(fake_project, kills=25, seed=SEED + 1)
