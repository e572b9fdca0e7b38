"""Loading MTRAG-format datasets: every problem names the file, the line and the value."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tellmemore.errors import DatasetError
from tellmemore.eval.datasets import load_dataset

TINY = Path(__file__).parents[1] / "data" / "eval" / "tiny"


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    target = tmp_path / "tiny"
    shutil.copytree(TINY, target)
    return target


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _write(path: Path, lines: list[str]) -> None:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _edit(path: Path, lineno: int, **changes: object) -> None:
    lines = _lines(path)
    record = json.loads(lines[lineno - 1])
    record.update(changes)
    lines[lineno - 1] = json.dumps(record)
    _write(path, lines)


def test_loads_turns_follow_ups_and_fingerprints() -> None:
    ds = load_dataset(TINY)
    assert ds.name == "tiny"
    assert len(ds.turns) == 6
    assert [t.turn for t in ds.turns if t.followup] == [2, 3, 2, 3]
    assert ds.turns[1].history[1].role == "assistant"
    assert ds.turns[1].gold == ("p2",)
    assert ds.n_passages == 10
    assert len(ds.corpus_hash) == 64
    assert ds.skipped == ()


def test_malformed_json_line_names_file_line_and_text(tiny: Path) -> None:
    conv = tiny / "conversations.jsonl"
    lines = _lines(conv)
    lines[2] = '{"task_id": "c1<::>3", "turn": 3,'
    _write(conv, lines)
    with pytest.raises(DatasetError) as err:
        load_dataset(tiny)
    assert err.value.line == 3
    assert str(conv) in str(err.value)
    assert f"{conv}:3" in str(err.value)
    assert '"task_id": "c1<::>3"' in str(err.value)


def test_missing_field_and_wrong_type_are_named(tiny: Path) -> None:
    conv = tiny / "conversations.jsonl"
    _edit(conv, 2, turn="two")
    with pytest.raises(
        DatasetError,
        match=r"conversations.jsonl:2: field 'turn' must be int, "
        r"got \"two\"",
    ):
        load_dataset(tiny)
    lines = _lines(conv)
    record = json.loads(lines[3])
    del record["rewrite"]
    lines[1] = json.dumps(json.loads(_lines(TINY / "conversations.jsonl")[1]))
    lines[3] = json.dumps(record)
    _write(conv, lines)
    with pytest.raises(DatasetError, match=r"conversations.jsonl:4: missing field 'rewrite'"):
        load_dataset(tiny)


def test_gold_missing_from_the_corpus_is_an_error_naming_the_id(tiny: Path) -> None:
    _edit(tiny / "conversations.jsonl", 5, gold=["p3", "p404"])
    with pytest.raises(DatasetError) as err:
        load_dataset(tiny)
    assert err.value.line == 5
    assert "gold id missing from the corpus" in str(err.value)
    assert "'p404'" in str(err.value)
    assert "--skip-invalid" in str(err.value)


def test_skip_invalid_counts_what_was_skipped_and_why(tiny: Path) -> None:
    conv = tiny / "conversations.jsonl"
    _edit(conv, 5, gold=["p404"])
    _edit(conv, 6, history=[])
    _edit(conv, 2, gold=[])
    ds = load_dataset(tiny, skip_invalid=True)
    assert len(ds.turns) == 3
    assert ds.skipped_counts() == {
        "gold id missing from the corpus": 1,
        "empty history on a follow-up turn": 1,
        "no gold passages (unanswerable turn)": 1,
    }
    assert {s.line for s in ds.skipped} == {2, 5, 6}
    assert any(s.value == "'p404'" for s in ds.skipped)


def test_empty_history_on_a_follow_up_is_an_error(tiny: Path) -> None:
    _edit(tiny / "conversations.jsonl", 6, history=[])
    with pytest.raises(DatasetError, match=r":6: empty history on a follow-up turn: turn 3"):
        load_dataset(tiny)


def test_bad_history_item_and_duplicate_ids(tiny: Path) -> None:
    conv = tiny / "conversations.jsonl"
    _edit(conv, 2, history=[{"role": "system", "content": "x"}])
    with pytest.raises(DatasetError, match=r":2: history\[0\] must be"):
        load_dataset(tiny)
    shutil.copy(TINY / "conversations.jsonl", conv)
    _edit(conv, 3, task_id="c1<::>1")
    with pytest.raises(DatasetError, match=r":3: duplicate task_id 'c1<::>1' \(first on line 1\)"):
        load_dataset(tiny)
    corpus = tiny / "corpus.jsonl"
    lines = _lines(corpus)
    _write(corpus, [*lines, lines[0]])
    with pytest.raises(DatasetError, match=r"corpus.jsonl:11: duplicate _id 'p1'"):
        load_dataset(tiny)


def test_not_a_dataset_directory(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="not a directory"):
        load_dataset(tmp_path / "nope")
    (tmp_path / "corpus.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"conversations.jsonl: file not found"):
        load_dataset(tmp_path)


def test_a_corpus_file_naming_another_corpus_is_followed(tmp_path: Path) -> None:
    """MTRAG-UN's corpus.jsonl holds the relative path of MTRAG's (issue 22): one corpus,
    one cached index."""
    shared = tmp_path / "mtrag" / "tiny"
    shutil.copytree(Path(__file__).parents[1] / "data" / "eval" / "tiny", shared)
    linked = tmp_path / "mtrag-un" / "tiny"
    linked.mkdir(parents=True)
    (linked / "corpus.jsonl").write_text("../../mtrag/tiny/corpus.jsonl\n")
    shutil.copy(shared / "conversations.jsonl", linked / "conversations.jsonl")
    a, b = load_dataset(shared), load_dataset(linked)
    assert b.corpus_path == (shared / "corpus.jsonl").resolve()
    assert (a.corpus_hash, a.n_passages) == (b.corpus_hash, b.n_passages)
    (linked / "corpus.jsonl").write_text("../../nowhere/corpus.jsonl\n")
    with pytest.raises(DatasetError, match="does not exist"):
        load_dataset(linked)
