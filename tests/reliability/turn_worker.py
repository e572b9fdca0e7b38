"""Subprocess body of the turn crash test: run many turns in a few sessions until killed.

    python turn_worker.py PROJECT_DIR [--turns N] [--sessions S] [--seed X] [--hold-at K]

Prints "started" once the project is open, then "done <trace_id>" after each turn
the store acknowledged. With --hold-at K the K-th turn (0-based) stops inside its
state.db transaction, after the trace row is written and before its two turn rows
are: it prints "in-transaction" and sleeps, so the parent can SIGKILL it exactly
there. The embedder is the FakeEmbedder (a turn takes milliseconds).
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
import time
from pathlib import Path

from tellmemore.assistant import Assistant
from tellmemore.config import Settings
from tellmemore.testing.fakes import FakeEmbedder

MESSAGES = [
    "what escalation options do we have on cloud connect",
    "does that one cover weekends?",
    "and on public holidays?",
    "How much is the Pro plan?",
    "what is its plan code?",
    "thanks!",
    "What happens if I return a bike late?",
    "make that shorter",
]


def hold_inside_transaction(conn: sqlite3.Connection, at_turn: int) -> None:
    """Stall the `at_turn`-th turn write between its trace row and its turn rows."""
    seen = {"turn_writes": 0}

    def callback(statement: str) -> None:
        if statement.lstrip().upper().startswith("INSERT INTO TURNS"):
            if seen["turn_writes"] == at_turn:
                print("in-transaction", flush=True)
                time.sleep(120)
            seen["turn_writes"] += 1

    conn.set_trace_callback(callback)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("project", type=Path)
    parser.add_argument("--turns", type=int, default=10_000)
    parser.add_argument("--sessions", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hold-at", type=int, default=None)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    assistant = Assistant(Settings.load(args.project), embedder=FakeEmbedder())
    _ = assistant.runner  # open the index and state.db before "started"
    if args.hold_at is not None:
        hold_inside_transaction(assistant.state.conn, args.hold_at)
    sessions = [assistant.session() for _ in range(args.sessions)]
    print("started", flush=True)
    for i in range(args.turns):
        message = rng.choice(MESSAGES)
        # every fifth turn is stateless: a trace and no turn rows
        chat = assistant if i % 5 == 4 else sessions[i % len(sessions)]
        answer = chat.ask(message)
        print(f"done {answer.trace_id}", flush=True)
    assistant.close()


if __name__ == "__main__":
    sys.exit(main())
