"""bench/probe_floor.py: the share of probes a resolver must carry into, from a person's reading."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

_PATH = Path(__file__).resolve().parents[2] / "bench" / "probe_floor.py"
_spec = importlib.util.spec_from_file_location("probe_floor", _PATH)
assert _spec is not None and _spec.loader is not None
probe_floor = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(probe_floor)


def _turn(task: str, *, carried: bool, strict: bool, probe: bool = True) -> dict[str, Any]:
    return {
        "dataset": "d",
        "strategy": "embedded",
        "task_id": task,
        "followup": True,
        "binding": {
            "carried": ["x"] if carried else [],
            "topic_switch": probe,
            "strict_topic_switch": probe and strict,
        },
    }


def test_the_floor_counts_only_judged_history_dependent_probes() -> None:
    turns = [
        _turn("he", carried=True, strict=False),  # "did he always have powers?": must bind
        _turn("its own", carried=False, strict=False),  # referent inside the message
        _turn("new", carried=False, strict=False),  # not in the judgments
        _turn("switch", carried=True, strict=True),  # a real switch, over-bound
        _turn("alone", carried=False, strict=True),
        _turn("carried", carried=True, strict=False, probe=False),  # the human carried too
    ]
    rows = probe_floor.floor_by_domain(turns, {"he": True, "its own": False})
    d = rows["d"]
    assert (d["probes"], d["non_strict"], d["history_dependent"], d["unjudged"]) == (5, 3, 1, 1)
    assert d["floor"] == 1 / 5
    assert d["over_binding"] == 2 / 5
    assert d["carried_dependent"] == 1
    assert d["over_binding_without_dependent"] == 1 / 4  # the switch, among the other four


def test_the_committed_judgments_read_back() -> None:
    judged = probe_floor.read_judgments(probe_floor.JUDGED)
    assert len(judged) >= 50 and 0 < sum(judged.values()) < len(judged)
