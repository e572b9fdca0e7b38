"""Fifty SIGKILLs of a real ingesting process at seeded random moments (issue 6).

Reuses the ingestion crash harness (tests/ingest/test_crash.py and crash_worker.py: a
200-document corpus ingested by a subprocess with the FakeEmbedder, so vectors are
deterministic). One fixed schedule of 50 kill points, stratified over the run so every
stretch of it is hit, alternates a first ingest and an update with --sync. The fast tier
runs 4 points spread over the schedule; `pytest -m slow` runs all 50.

After each kill, before any recovery, both databases must already pass
`PRAGMA integrity_check`; after the rerun the index must hold exactly a clean run's chunks
(ids, content hashes, vector bytes), FTS5 statistics equal to the clean run's (nothing
indexed twice), an empty journal with no run left 'running', and state.db's document table
must list exactly the chunks the index holds.
"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import pytest

from .reuse import load_test_module

_crash = load_test_module("ingest", "test_crash")
snapshot = load_test_module("ingest", "helpers").snapshot
N_DOCS: int = _crash.N_DOCS
check_db = _crash.check_db
in_flight = _crash.in_flight
kill_after = _crash.kill_after
make_corpus = _crash.make_corpus
mutate_corpus = _crash.mutate_corpus
run_to_end = _crash.run_to_end
vocab = _crash.vocab

SEED = 6006
KILL_POINTS = 50
FAST_POINTS = (3, 17, 32, 46)
"""Indices into the schedule for the fast tier: early and late, first ingest and update."""


@dataclass(frozen=True)
class KillPoint:
    index: int
    fraction: float
    """When to kill, as a fraction of a clean run's duration."""
    update: bool


def schedule(seed: int = SEED, n: int = KILL_POINTS) -> list[KillPoint]:
    """n kill points, the i-th drawn in the i-th slice of the run; even ones a first ingest."""
    rng = random.Random(seed)
    return [KillPoint(i, (i + rng.uniform(0.05, 0.95)) / n, update=i % 2 == 1) for i in range(n)]


@dataclass
class Scenario:
    """A corpus, its clean result, and (for updates) the ingested state before the update."""

    corpus: Path
    base: Path | None
    duration: float
    expected: dict[str, tuple[str, str, str, bytes]]
    expected_vocab: list[tuple[str, int, int]]


def prepare(root: Path, *, update: bool) -> Scenario:
    corpus = root / "corpus"
    make_corpus(corpus, SEED)
    base = None
    clean = root / "clean"
    if update:
        base = root / "base"
        run_to_end(base, corpus, sync=True)
        mutate_corpus(corpus, SEED + 1)
        shutil.copytree(base, clean)
    duration = run_to_end(clean, corpus, sync=update)
    expected = snapshot(clean / "index.db")
    assert len(expected) > N_DOCS
    return Scenario(corpus, base, duration, expected, vocab(clean / "index.db"))


def indexed_by_state(project: Path) -> set[str]:
    conn = sqlite3.connect(project / "state.db")
    try:
        rows = conn.execute("SELECT chunk_ids FROM documents").fetchall()
    finally:
        conn.close()
    return {cid for (ids,) in rows for cid in json.loads(ids)}


def kill_and_recover(root: Path, scenario: Scenario, point: KillPoint, *, update: bool) -> bool:
    """Kill at `point`, check, recover, check. True when the kill left work in flight."""
    project = root / f"kill{point.index}"
    if scenario.base is not None:
        shutil.copytree(scenario.base, project)
    kill_after(project, scenario.corpus, point.fraction * scenario.duration, sync=update)
    landed = project.exists() and (project / "state.db").exists() and in_flight(project)
    for db in ("index.db", "state.db"):
        if (project / db).exists():
            check_db(project / db)  # consistent right after the kill, before any recovery
    run_to_end(project, scenario.corpus, sync=update)
    got = snapshot(project / "index.db")
    where = f"kill point {point.index} ({point.fraction:.3f} of the run, update={update})"
    assert set(got) == set(scenario.expected), f"{where}: chunk ids differ from a clean run"
    assert got == scenario.expected, f"{where}: hashes or vectors differ from a clean run"
    assert vocab(project / "index.db") == scenario.expected_vocab, f"{where}: FTS5 duplicates"
    check_db(project / "index.db")
    check_db(project / "state.db")
    assert not in_flight(project), f"{where}: journal not empty or a run left 'running'"
    assert indexed_by_state(project) == set(got), f"{where}: state.db and index disagree"
    shutil.rmtree(project)
    return landed


def run_points(root: Path, points: list[KillPoint]) -> None:
    scenarios: dict[bool, Scenario] = {}
    landed = 0
    for point in points:
        if point.update not in scenarios:
            scenarios[point.update] = prepare(root / f"update-{point.update}", update=point.update)
        landed += kill_and_recover(root, scenarios[point.update], point, update=point.update)
    # Kills past the end of a (faster than clean) run find nothing to recover: allowed, but
    # most kills must land mid-run or the test proves nothing.
    assert landed >= len(points) // 2, f"only {landed}/{len(points)} kills landed mid-run"


def test_schedule_is_fixed_and_covers_the_run() -> None:
    points = schedule()
    assert points == schedule(), "the same seed gives the same 50 kill points"
    assert len(points) == KILL_POINTS
    fractions = [p.fraction for p in points]
    assert fractions == sorted(fractions) and 0 < fractions[0] < 0.02 < 0.98 < fractions[-1] < 1
    assert sum(p.update for p in points) == KILL_POINTS // 2


def test_a_handful_of_kill_points(tmp_path: Path) -> None:
    points = schedule()
    run_points(tmp_path, [points[i] for i in FAST_POINTS])


@pytest.mark.slow
def test_all_fifty_kill_points(tmp_path: Path) -> None:
    run_points(tmp_path, schedule())
