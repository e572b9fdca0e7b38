"""The CLI end to end on the sample corpus: ingest, search, ask, index stats."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tellmemore.cli import app
from tellmemore.ingest import sample_corpus_path

pytestmark = pytest.mark.model
runner = CliRunner()


def _run(*args: str) -> str:
    result = runner.invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli-project")
    out = json.loads(_run("ingest", str(sample_corpus_path()), "--project", str(path), "--json"))
    assert out["chunks_added"] > 0
    assert out["docs_added"] >= 10
    return path


def test_reingest_reports_everything_unchanged(project: Path) -> None:
    out = json.loads(_run("ingest", str(sample_corpus_path()), "--project", str(project), "--json"))
    assert out["chunks_added"] == 0
    assert out["chunks_embedded"] == 0
    assert out["docs_unchanged"] >= 10


def test_search_json_ranks_the_right_chunk_first(project: Path) -> None:
    out = json.loads(
        _run("search", "enterprise escalation weekends", "--project", str(project), "--json")
    )
    assert out[0]["rank"] == 1
    assert out[0]["chunk"]["doc_id"] == "cloud-connect/escalation.md"
    for mode in ("bm25", "dense", "hybrid"):
        hits = json.loads(
            _run(
                "search",
                "monthly pass",
                "--mode",
                mode,
                "--k",
                "3",
                "--project",
                str(project),
                "--json",
            )
        )
        assert 0 < len(hits) <= 3
        assert hits[0]["chunk"]["doc_id"] == "bike-rental/policy.md"


def test_search_rejects_an_unknown_mode(project: Path) -> None:
    result = runner.invoke(app, ["search", "x", "--mode", "fuzzy", "--project", str(project)])
    assert result.exit_code != 0
    assert "bm25, dense, hybrid" in str(result.exception) + result.output


def test_ask_with_history_file_answers_the_follow_up(project: Path, tmp_path: Path) -> None:
    history = tmp_path / "history.json"
    history.write_text(
        json.dumps(
            [
                {"role": "user", "content": "What are the shop opening hours?"},
                {"role": "assistant", "content": "Monday to Friday 07:00 to 20:00."},
            ]
        )
    )
    out = json.loads(
        _run(
            "ask",
            "and on public holidays?",
            "--history",
            str(history),
            "--project",
            str(project),
            "--json",
        )
    )
    assert out["api_version"] == "1"
    assert out["message"] == "and on public holidays?"
    assert "shop" in out["standalone_query"].lower()
    assert {"trace_id", "citations", "abstained", "bindings", "latency_ms"} <= set(out)


def test_ask_in_a_session_remembers_the_conversation(project: Path) -> None:
    first = json.loads(
        _run(
            "ask",
            "What are the shop opening hours?",
            "--session",
            "s1",
            "--project",
            str(project),
            "--json",
        )
    )
    second = json.loads(
        _run(
            "ask", "and on public holidays?", "--session", "s1", "--project", str(project), "--json"
        )
    )
    assert first["session_id"] == second["session_id"] == "s1"
    assert "shop" in second["standalone_query"].lower()


def test_index_stats(project: Path) -> None:
    stats = json.loads(_run("index", "stats", "--project", str(project), "--json"))
    assert stats["chunks"] > 20
    assert stats["engine"] == "sqlite"
    assert stats["embedder"] == "all-MiniLM-L6-v2"
    assert stats["size_bytes"] > 0


def test_module_entry_point_and_error_translation(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tellmemore", "ask", "   ", "--project", str(tmp_path / "p")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert "Error: the message is empty" in result.stderr
    assert "Traceback" not in result.stderr


def test_an_error_under_json_is_json_on_stdout(tmp_path: Path) -> None:
    """A script reading `--json` output gets the error as JSON, not plain text."""
    result = subprocess.run(
        [sys.executable, "-m", "tellmemore", "ask", "", "--project", str(tmp_path / "p"), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    error = json.loads(result.stdout)["error"]
    assert error["type"] == "InputError"
    assert "empty" in error["message"]


def test_feedback_is_stored_on_the_trace_ask_printed(project: Path) -> None:
    asked = _run("ask", "what does a day pass cost?", "--project", str(project), "--json")
    answer = json.loads(asked)
    out = json.loads(
        _run(
            "feedback", answer["trace_id"], "down", "--reason", "too long",
            "--project", str(project), "--json",
        )
    )  # fmt: skip
    assert out["rating"] == "down" and out["feedback_id"] > 0
    con = sqlite3.connect(project / "state.db")
    try:
        rows = con.execute(
            "SELECT rating, reason FROM feedback WHERE trace_id = ?", (answer["trace_id"],)
        ).fetchall()
    finally:
        con.close()
    assert rows == [("down", "too long")]
    unknown = runner.invoke(app, ["feedback", "no-such-trace", "up", "--project", str(project)])
    assert unknown.exit_code != 0


def test_a_byte_that_is_not_utf8_is_replaced_not_a_crash(project: Path) -> None:
    """A Latin-1 terminal sends "caf\\xe9": Python hands it over as a lone surrogate, which
    the tokenizer, SQLite and the terminal's encoder all refuse. It becomes U+FFFD."""
    args = [sys.executable, "-m", "tellmemore"]
    asked = subprocess.run(
        [*args, "ask", b"caf\xe9 how much is a day pass?", "--project", str(project), "--json"],
        capture_output=True,
        timeout=120,
    )
    assert asked.returncode == 0, asked.stderr.decode()
    answer = json.loads(asked.stdout)
    assert answer["message"] == "caf\ufffd how much is a day pass?"
    assert not answer["abstained"]
    chat = subprocess.run(
        [*args, "chat", "--project", str(project)],
        input=b"caf\xe9 price of a day pass\nhow much is the monthly pass?\n/quit\n",
        capture_output=True,
        timeout=120,
    )
    assert chat.returncode == 0, chat.stderr.decode()
    assert b"Traceback" not in chat.stderr
    assert chat.stdout.count(b"Searching for:") == 2  # the second question was answered too


def test_search_reads_k_from_the_settings(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`ask` honoured TELLMEMORE_RETRIEVAL__K and `search` always printed 5 hits."""
    monkeypatch.setenv("TELLMEMORE_RETRIEVAL__K", "2")
    hits = json.loads(_run("search", "pro plan", "--project", str(project), "--json"))
    assert len(hits) == 2
    hits = json.loads(_run("search", "pro plan", "--k", "3", "--project", str(project), "--json"))
    assert len(hits) == 3


def test_ingest_counts_a_built_sites_assets_by_type_and_lists_real_failures(
    tmp_path: Path,
) -> None:
    """A documentation site's build folder holds scripts, styles and images next to its
    pages: counted by extension in one line, while a broken file keeps its own line."""
    site = tmp_path / "site"
    (site / "assets").mkdir(parents=True)
    (site / "leave.html").write_text(
        "<html><body><main><h1>Leave</h1><p>Leave is paid.</p></main></body></html>"
    )
    for i in range(6):
        (site / "assets" / f"chunk{i}.js").write_text("console.log(1)")
    (site / "assets" / "style.css").write_text("body {}")
    (site / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    out = " ".join(_run("ingest", str(site), "--project", str(tmp_path / "p")).split())
    assert "skipped 7 files of types no loader reads (6 .js, 1 .css); supported:" in out
    assert "chunk0.js" not in out
    assert "broken.pdf" in out

    few = tmp_path / "few"
    few.mkdir()
    (few / "leave.md").write_text("# Leave\n\nLeave is paid.\n")
    (few / "notes.xyz").write_text("x")
    out = " ".join(_run("ingest", str(few), "--project", str(tmp_path / "q")).split())
    assert "notes.xyz: unsupported file type .xyz" in out
    assert "files of types no loader reads" not in out


def test_help_rewraps_a_command_summary_to_the_terminal() -> None:
    """A docstring wrapped in the source reads as one paragraph in `--help`, not broken at
    the source's line ends ("Word (.docx), OpenDocument (.odt),| PowerPoint ...")."""
    result = runner.invoke(app, ["--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "Word (.docx), OpenDocument (.odt), PowerPoint (.pptx)" in result.output
    ingest = runner.invoke(app, ["ingest", "--help"], env={"COLUMNS": "200"})
    assert "Safe to rerun: unchanged content is not re-embedded" in ingest.output
