"""Conversational evaluation sets in the MTRAG directory format.

A dataset is a directory holding `corpus.jsonl` (`{"_id", "title", "text"}`
per passage) and `conversations.jsonl` (one turn to evaluate per line:
`task_id`, `conversation_id`, `turn`, `history` [{role, content}], `message`,
`rewrite` (a human-written standalone rewrite) and `gold` [corpus ids]; other
fields are kept but not read). Users bring their own golden conversations in
this shape, so every problem is reported with the file, the line and the value.

Policy: a line that cannot be read (bad JSON, a missing or mistyped field) is
always an error. A turn that is readable but cannot be scored as given (a gold
id missing from the corpus, an empty history on a follow-up turn) is an error
too, unless the caller asks to skip such turns; skipped turns are counted with
their reason in the report, never dropped silently. A turn with no gold at all
(an unanswerable question) cannot be scored by retrieval measures: it is
skipped and counted.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tellmemore.errors import DatasetError
from tellmemore.types import Turn

CORPUS_FILE = "corpus.jsonl"
CONVERSATIONS_FILE = "conversations.jsonl"
_ROLES = ("user", "assistant")


@dataclass(frozen=True)
class Passage:
    """One corpus passage; `id` is what gold lists name."""

    id: str
    title: str
    text: str


@dataclass(frozen=True)
class EvalTurn:
    """One turn to evaluate: the conversation so far, the message, the human rewrite, the gold."""

    task_id: str
    conversation_id: str
    turn: int
    history: tuple[Turn, ...]
    message: str
    rewrite: str
    gold: tuple[str, ...]
    line: int

    @property
    def followup(self) -> bool:
        """A follow-up is any turn after the first: the turns resolution is for."""
        return self.turn > 1


@dataclass(frozen=True)
class Skipped:
    """A turn left out of the measures, with where it is and why."""

    path: str
    line: int
    task_id: str
    reason: str
    value: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "task_id": self.task_id,
            "reason": self.reason,
            "value": self.value,
        }


@dataclass(frozen=True)
class Dataset:
    """A loaded dataset: its turns, what was skipped, and the corpus fingerprint."""

    name: str
    path: Path
    turns: tuple[EvalTurn, ...]
    skipped: tuple[Skipped, ...]
    corpus_hash: str
    conversations_hash: str
    n_passages: int
    corpus_file: Path | None = None
    """Where the corpus is read from when not `path/corpus.jsonl` (`linked_corpus`)."""

    @property
    def corpus_path(self) -> Path:
        return self.corpus_file or self.path / CORPUS_FILE

    def skipped_counts(self) -> dict[str, int]:
        """How many turns were skipped for each reason."""
        return dict(Counter(s.reason for s in self.skipped))


def load_dataset(
    path: str | Path, *, skip_invalid: bool = False, name: str | None = None
) -> Dataset:
    """Read and validate one dataset directory.

    `skip_invalid=True` turns per-turn problems (gold missing from the corpus,
    empty history on a follow-up) into counted skips instead of errors.
    """
    root = Path(path)
    if not root.is_dir():
        raise DatasetError(
            str(root),
            None,
            "not a directory; give a dataset directory holding "
            f"{CORPUS_FILE} and {CONVERSATIONS_FILE}",
        )
    corpus_file = linked_corpus(root / CORPUS_FILE)
    conv_file = root / CONVERSATIONS_FILE
    for f in (corpus_file, conv_file):
        if not f.is_file():
            raise DatasetError(
                str(f),
                None,
                f"file not found; a dataset directory needs {CORPUS_FILE} and {CONVERSATIONS_FILE}",
            )
    ids: set[str] = set()
    for passage in iter_corpus(corpus_file):
        ids.add(passage.id)
    if not ids:
        raise DatasetError(str(corpus_file), None, "the corpus holds no passage")
    turns: list[EvalTurn] = []
    skipped: list[Skipped] = []
    seen_tasks: dict[str, int] = {}
    for lineno, record in _iter_json_lines(conv_file):
        turn = _parse_turn(conv_file, lineno, record)
        if turn.task_id in seen_tasks:
            raise DatasetError(
                str(conv_file),
                lineno,
                f"duplicate task_id {turn.task_id!r} "
                f"(first on line {seen_tasks[turn.task_id]}); task ids must be unique",
            )
        seen_tasks[turn.task_id] = lineno
        problem = _turn_problem(turn, ids)
        if problem is None:
            turns.append(turn)
            continue
        reason, value, hard = problem
        if hard and not skip_invalid:
            raise DatasetError(
                str(conv_file),
                lineno,
                f"{reason}: {value}; fix the line or pass "
                "--skip-invalid to skip such turns (they are counted in the report)",
            )
        skipped.append(Skipped(str(conv_file), lineno, turn.task_id, reason, value))
    return Dataset(
        name=name or root.resolve().name,
        path=root,
        turns=tuple(turns),
        skipped=tuple(skipped),
        corpus_hash=file_hash(corpus_file),
        conversations_hash=file_hash(conv_file),
        n_passages=len(ids),
        corpus_file=corpus_file if corpus_file != root / CORPUS_FILE else None,
    )


def linked_corpus(path: Path) -> Path:
    """`path`, or the corpus it names: a corpus.jsonl whose only line is a relative path
    to another corpus.jsonl (how MTRAG-UN reuses MTRAG's corpora, so one cached index
    serves both) is followed."""
    if not path.is_file() or path.stat().st_size > 4096:
        return path
    text = path.read_text(encoding="utf-8").strip()
    if not text or text.startswith("{") or "\n" in text or not text.endswith(".jsonl"):
        return path
    target = (path.parent / text).resolve()
    if not target.is_file():
        raise DatasetError(
            str(path), 1, f"names the corpus {text!r}, which does not exist ({target})"
        )
    return target


def iter_corpus(path: Path) -> Iterator[Passage]:
    """The passages of a corpus file, validated; a duplicate id is an error."""
    seen: dict[str, int] = {}
    for lineno, record in _iter_json_lines(path):
        pid = _field(path, lineno, record, "_id", str)
        if not pid.strip():
            raise DatasetError(str(path), lineno, "empty _id; every passage needs an id")
        title = record.get("title") or ""
        if not isinstance(title, str):
            raise DatasetError(str(path), lineno, f"title must be a string, got {title!r}")
        text = _field(path, lineno, record, "text", str)
        if pid in seen:
            raise DatasetError(
                str(path),
                lineno,
                f"duplicate _id {pid!r} (first on line {seen[pid]}); passage ids must be unique",
            )
        seen[pid] = lineno
        yield Passage(pid, title, text)


def file_hash(path: Path) -> str:
    """SHA-256 of a file's bytes: the key under which its index is cached."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _iter_json_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with path.open(encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetError(
                    str(path),
                    lineno,
                    f"not valid JSON ({exc.msg} at column {exc.colno}): {_clip(line)!r}",
                ) from None
            if not isinstance(record, dict):
                raise DatasetError(
                    str(path), lineno, f"expected a JSON object, got {_clip(line)!r}"
                )
            yield lineno, record


def _field(path: Path, lineno: int, record: dict[str, Any], key: str, kind: type) -> Any:
    if key not in record:
        raise DatasetError(
            str(path),
            lineno,
            f"missing field {key!r}; present: {', '.join(sorted(record)) or 'none'}",
        )
    value = record[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise DatasetError(
            str(path),
            lineno,
            f"field {key!r} must be {kind.__name__}, got {_clip(json.dumps(value))}",
        )
    return value


def _parse_turn(path: Path, lineno: int, record: dict[str, Any]) -> EvalTurn:
    task_id = _field(path, lineno, record, "task_id", str)
    conversation_id = _field(path, lineno, record, "conversation_id", str)
    turn_no = _field(path, lineno, record, "turn", int)
    if turn_no < 1:
        raise DatasetError(str(path), lineno, f"field 'turn' must be >= 1, got {turn_no}")
    message = _field(path, lineno, record, "message", str)
    if not message.strip():
        raise DatasetError(str(path), lineno, f"empty message in task {task_id!r}")
    rewrite = _field(path, lineno, record, "rewrite", str)
    if not rewrite.strip():
        raise DatasetError(
            str(path),
            lineno,
            f"empty rewrite in task {task_id!r}; the human "
            "rewrite is the oracle and the reference for binding",
        )
    history = _parse_history(path, lineno, record)
    gold = _field(path, lineno, record, "gold", list)
    if not all(isinstance(g, str) for g in gold):
        raise DatasetError(
            str(path),
            lineno,
            f"field 'gold' must list corpus ids (strings), got {_clip(json.dumps(gold))}",
        )
    return EvalTurn(
        task_id=task_id,
        conversation_id=conversation_id,
        turn=turn_no,
        history=tuple(history),
        message=message,
        rewrite=rewrite,
        gold=tuple(dict.fromkeys(gold)),
        line=lineno,
    )


def _parse_history(path: Path, lineno: int, record: dict[str, Any]) -> list[Turn]:
    raw_history = _field(path, lineno, record, "history", list)
    history: list[Turn] = []
    for i, item in enumerate(raw_history):
        if (
            not isinstance(item, dict)
            or item.get("role") not in _ROLES
            or not isinstance(item.get("content"), str)
        ):
            raise DatasetError(
                str(path),
                lineno,
                f"history[{i}] must be {{role: user|assistant, "
                f"content: str}}, got {_clip(json.dumps(item))}",
            )
        history.append(Turn(role=item["role"], content=item["content"]))
    return history


def _turn_problem(turn: EvalTurn, ids: set[str]) -> tuple[str, str, bool] | None:
    """(reason, value, is_an_error) for a readable turn that cannot be scored as given."""
    if not turn.gold:
        return "no gold passages (unanswerable turn)", f"task {turn.task_id!r}", False
    missing = [g for g in turn.gold if g not in ids]
    if missing:
        return "gold id missing from the corpus", ", ".join(map(repr, missing)), True
    if turn.followup and not turn.history:
        return (
            "empty history on a follow-up turn",
            f"turn {turn.turn} of task {turn.task_id!r}",
            True,
        )
    return None


def _clip(text: str, limit: int = 120) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 3] + "..."
