"""reconcile.plan and the id/hash helpers: pure functions, exact outputs."""

from __future__ import annotations

from tellmemore.ingest.ids import chunk_id, content_hash
from tellmemore.ingest.reconcile import Plan, plan


def test_plan_sorts_ids_into_new_changed_unchanged_and_delete() -> None:
    desired = {"a": "1", "b": "2", "c": "3"}
    stored = {"b": "2", "c": "old", "d": "4", "e": "5"}
    p = plan(desired, stored)
    assert p == Plan(upsert_new=("a",), upsert_changed=("c",), unchanged=("b",), delete=("d", "e"))
    assert p.upsert == ("a", "c")
    assert not p.is_noop


def test_plan_edge_cases() -> None:
    assert plan({}, {}) == Plan()
    assert plan({}, {}).is_noop
    assert plan({"a": "1"}, {"a": "1"}).is_noop
    assert plan({}, {"x": "1"}).delete == ("x",)
    assert plan({"x": "1"}, {}).upsert_new == ("x",)


def test_chunk_id_is_stable_and_position_based() -> None:
    a = chunk_id("docs/esc.md", ("Escalation", "Enterprise tier"), 0)
    assert a == chunk_id("docs/esc.md", ["Escalation", "Enterprise tier"], 0)
    assert len(a) == 32 and int(a, 16) >= 0
    assert a != chunk_id("docs/esc.md", ("Escalation", "Enterprise tier"), 1)
    assert a != chunk_id("docs/esc.md", ("Escalation",), 0)
    assert a != chunk_id("docs/other.md", ("Escalation", "Enterprise tier"), 0)
    # Joined strings are not ambiguous: ("a b",) is not ("a", "b").
    assert chunk_id("d", ("a", "b"), 0) != chunk_id("d", ("a b",), 0)
    assert chunk_id("d", ("a",), 0, tenant="t1") != chunk_id("d", ("a",), 0, tenant="t2")
    # Pinned, so that a refactor cannot silently change every id of every index.
    assert chunk_id("doc.md", ("S",), 0) == "5a3cc17826b4d759353ff4555ee7b384"
    assert chunk_id("doc.md", ("S",), 0, tenant="") == "5a3cc17826b4d759353ff4555ee7b384"


def test_content_hash_covers_text_and_context_but_not_key_order() -> None:
    h = content_hash("text", "title", {"a": 1, "b": 2})
    assert h == content_hash("text", "title", {"b": 2, "a": 1})
    assert h != content_hash("text!", "title", {"a": 1, "b": 2})
    assert h != content_hash("text", "title 2", {"a": 1, "b": 2})
