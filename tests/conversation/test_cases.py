"""The phrasing regressions as data: every case of tests/conversation/cases/*.jsonl.

A resolver case resolves its message after its history and checks the query, the
bindings, the extra expectations and (once `Resolution.passes` exists) the pass that
fired; a component case checks one analysis helper (`tellmemore.eval.cases.CHECKS`).
`tellmemore eval --cases tests/conversation/cases` reports the same cases per pass.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tellmemore.errors import DatasetError
from tellmemore.eval.cases import PASSES, load_cases, per_pass, run_case

CASES_DIR = Path(__file__).parent / "cases"
CASES, CORPORA = load_cases(CASES_DIR)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case(case: dict) -> None:
    result = run_case(case, CORPORA)
    assert result.ok, "\n".join(result.failures)


def test_every_resolver_case_names_a_known_pass() -> None:
    resolver = [c for c in CASES if "check" not in c]
    assert len(resolver) > 90
    assert all(c.get("pass") in (*PASSES, None) for c in resolver)


def test_a_broken_expectation_fails_the_case() -> None:
    """The runner can fail: a case whose query is wrong, or an unknown expectation."""
    case = next(c for c in CASES if "query" in c and "check" not in c)
    wrong = {**case, "query": case["query"] + " (not this)"}
    assert not run_case(wrong, CORPORA).ok
    odd = {**case, "expect": {"no_such_thing": 1}}
    assert "unknown expectation" in run_case(odd, CORPORA).failures[0]


def test_per_pass_counts_each_case_once() -> None:
    results = [run_case(c, CORPORA) for c in CASES[:20]]
    assert sum(n for _, n in per_pass(results).values()) == 20


def test_bad_case_files_are_refused_with_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "message": "hi", "history": []}\n{"id": "a", "message": "x"\n')
    with pytest.raises(DatasetError, match=r"bad\.jsonl:2"):
        load_cases(bad)
    bad.write_text(json.dumps({"id": "a", "message": "x", "history": [], "pass": "guess"}) + "\n")
    with pytest.raises(DatasetError, match="unknown pass"):
        load_cases(bad)


def test_a_named_corpus_can_be_a_folder_of_documents(tmp_path: Path) -> None:
    """A corpus given as a folder reads its files' paragraphs; an empty folder is refused."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "leave.md").write_text("# Leave\n\nSick leave accrues.\n\nVacation too.\n")
    case = {"id": "a", "message": "x", "history": [], "corpus": "mine"}
    (tmp_path / "a.jsonl").write_text(json.dumps(case) + "\n")
    (tmp_path / "corpora.json").write_text(json.dumps({"mine": "docs"}))
    _, corpora = load_cases(tmp_path)
    assert corpora["mine"] == ["# Leave", "Sick leave accrues.", "Vacation too."]
    (tmp_path / "corpora.json").write_text(json.dumps({"mine": "nothing"}))
    (tmp_path / "nothing").mkdir()
    with pytest.raises(DatasetError, match=r"no \.md or \.txt files"):
        load_cases(tmp_path)
