"""Crash test: kill -9 an ingesting process at seeded random moments, rerun, compare with clean.

The recovered index must hold exactly the chunks of a clean run (same ids,
content hashes and vector bytes), with FTS5 term statistics equal to the
clean run's (no chunk indexed twice), both databases passing
`PRAGMA integrity_check`, and an empty journal. Two scenarios: a first
ingest, and an update (edits, shape changes, renames, deletions, new files,
with --sync) of an already ingested corpus.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .helpers import snapshot

WORKER = Path(__file__).with_name("crash_worker.py")
REPO = Path(__file__).resolve().parents[2]
N_DOCS = 200
SLEEP = 0.02
WORDS = [
    *["tunnel", "route", "region", "Frankfurt", "Dublin", "escalation", "weekend", "holiday"],
    *["plan", "price", "code", "CC-PRO-2026", "invoice", "refund", "helmet", "bike", "pass"],
    *["late", "fee", "station", "shop", "hours"],
]


def make_corpus(root: Path, seed: int, n_docs: int = N_DOCS) -> None:
    rng = random.Random(seed)
    words = WORDS
    root.mkdir(parents=True)
    for i in range(n_docs):
        parts = [f"# Document {i}\n"]
        for s in range(rng.randint(1, 4)):
            parts.append(f"## Section {s} {rng.choice(words)}\n")
            for _ in range(rng.randint(1, 3)):
                kind = rng.random()
                if kind < 0.6:
                    parts.append(
                        ". ".join(
                            " ".join(rng.choices(words, k=rng.randint(4, 14)))
                            for _ in range(rng.randint(1, 6))
                        )
                        + ".\n"
                    )
                elif kind < 0.8:
                    parts.append(
                        "\n".join(
                            f"- {' '.join(rng.choices(words, k=6))}"
                            for _ in range(rng.randint(2, 6))
                        )
                        + "\n"
                    )
                else:
                    parts.append(
                        "| a | b |\n| --- | --- |\n"
                        + "\n".join(
                            f"| {rng.choice(words)} | {rng.randint(1, 99)} |"
                            for _ in range(rng.randint(2, 8))
                        )
                        + "\n"
                    )
        sub = root / f"part{i % 7}"
        sub.mkdir(exist_ok=True)
        (sub / f"doc{i:04}.md").write_text("\n".join(parts))


def mutate_corpus(root: Path, seed: int) -> None:
    """Edits, shape changes, renames, deletions and new files."""
    rng = random.Random(seed)
    files = sorted(root.rglob("*.md"))
    for f in files:
        r = rng.random()
        if r < 0.15:
            f.write_text(f.read_text().replace("tunnel", "TUNNEL", 1))
        elif r < 0.25:
            f.write_text(f.read_text() + "\n## Added later\n\nA brand new section appears.\n")
        elif r < 0.30:
            text = f.read_text()
            f.write_text(text[: text.rfind("## ")] or text)
        elif r < 0.35:
            f.rename(f.with_name("renamed-" + f.name))
        elif r < 0.40:
            f.unlink()
    for j in range(10):
        (root / f"new{j}.md").write_text(f"# New {j}\n\nFresh document number {j}.\n")


def worker(project: Path, corpus: Path, *, sync: bool) -> subprocess.Popen[str]:
    cmd = [sys.executable, str(WORKER), str(project), str(corpus), "--sleep", str(SLEEP)]
    if sync:
        cmd.append("--sync")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def wait_started(proc: subprocess.Popen[str]) -> None:
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if line != "started":
        _, err = proc.communicate(timeout=60)
        raise AssertionError(f"the worker did not start: {line!r}\n{err}")


def run_to_end(project: Path, corpus: Path, *, sync: bool) -> float:
    """Run the worker to completion; returns seconds from 'started' to exit."""
    proc = worker(project, corpus, sync=sync)
    wait_started(proc)
    t0 = time.perf_counter()
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert out.strip() == "done"
    return time.perf_counter() - t0


def kill_after(project: Path, corpus: Path, delay: float, *, sync: bool) -> None:
    proc = worker(project, corpus, sync=sync)
    wait_started(proc)
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)


def vocab(index_path: Path) -> list[tuple[str, int, int]]:
    conn = sqlite3.connect(index_path)
    try:
        return conn.execute("SELECT term, doc, cnt FROM chunks_vocab ORDER BY term").fetchall()
    finally:
        conn.close()


def check_db(path: Path) -> None:
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


def in_flight(project: Path) -> bool:
    """Did the killed run leave work behind (journal rows or an unfinished run)?"""
    conn = sqlite3.connect(project / "state.db")
    try:
        journal = conn.execute("SELECT COUNT(*) FROM journal").fetchone()[0]
        running = conn.execute(
            "SELECT COUNT(*) FROM ingest_runs WHERE status = 'running'"
        ).fetchone()[0]
    finally:
        conn.close()
    return bool(journal or running)


def crash_and_recover(tmp_path: Path, *, kills: int, seed: int, update: bool) -> None:
    corpus = tmp_path / "corpus"
    make_corpus(corpus, seed)
    base = tmp_path / "base"  # the already-ingested state before the update
    if update:
        run_to_end(base, corpus, sync=True)
        mutate_corpus(corpus, seed + 1)
        clean = tmp_path / "clean"
        shutil.copytree(base, clean)
    else:
        clean = tmp_path / "clean"
    duration = run_to_end(clean, corpus, sync=update)
    expected = snapshot(clean / "index.db")
    expected_vocab = vocab(clean / "index.db")
    assert len(expected) > N_DOCS  # several chunks per document on average

    rng = random.Random(seed)
    interrupted = 0
    for k in range(kills):
        project = tmp_path / f"crash{k}"
        if update:
            shutil.copytree(base, project)
        # Kill once or twice (the second time during the recovery run itself), then finish.
        # Kill points are stratified over the run (kill k lands in the k-th slice of its
        # length), so a handful of kills still covers the start, the middle and the end.
        delays = [
            (k + rng.uniform(0.05, 0.95)) / kills * duration,
            rng.uniform(0.1, 0.5) * duration,
        ]
        for delay in delays[: 1 + (k % 2)]:
            kill_after(project, corpus, delay, sync=update)
            interrupted += in_flight(project)
        run_to_end(project, corpus, sync=update)
        got = snapshot(project / "index.db")
        assert set(got) == set(expected), f"kill {k}: chunk ids differ from a clean run"
        assert got == expected, f"kill {k}: hashes or vectors differ from a clean run"
        assert vocab(project / "index.db") == expected_vocab, f"kill {k}: FTS5 duplicates"
        check_db(project / "index.db")
        check_db(project / "state.db")
        assert not in_flight(project)
    assert interrupted >= max(1, kills // 2), "the kills did not land mid-run; slow the worker"


def test_killed_first_ingest_recovers_to_the_clean_chunk_set(tmp_path: Path) -> None:
    crash_and_recover(tmp_path, kills=3, seed=11, update=False)


def test_killed_update_with_sync_recovers_to_the_clean_chunk_set(tmp_path: Path) -> None:
    crash_and_recover(tmp_path, kills=3, seed=23, update=True)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [101, 202, 303])
@pytest.mark.parametrize("update", [False, True])
def test_many_kills(tmp_path: Path, seed: int, update: bool) -> None:
    crash_and_recover(tmp_path, kills=8, seed=seed, update=update)
