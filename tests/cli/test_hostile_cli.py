"""Hostile command lines (issue 24): a clean one-line error and exit code 1, never a traceback.

A Latin-1 terminal hands Python "caf\\xe9" as a lone surrogate; ids must refuse it with a
message, free text (a query) keeps its words with U+FFFD.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tellmemore.ingest import sample_corpus_path

pytestmark = pytest.mark.model

CLI = [sys.executable, "-m", "tellmemore"]


def _cli(*args: str | bytes, timeout: float = 600) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.run([*CLI, *args], capture_output=True, timeout=timeout, env=env)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> str:
    from typer.testing import CliRunner

    from tellmemore.cli import app

    path = tmp_path_factory.mktemp("hostile-cli") / "p"
    args = ["ingest", str(sample_corpus_path()), "--project", str(path), "--json"]
    done = CliRunner().invoke(app, args)  # in-process: the session's model is loaded once
    assert done.exit_code == 0, done.output
    return str(path)


def _clean_error(done: subprocess.CompletedProcess[bytes], *words: str) -> None:
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 1, err
    assert "Traceback" not in err, err
    assert err.startswith("Error: "), err
    for word in words:
        assert word in err, err


@pytest.mark.parametrize(
    ("args", "word"),
    [
        (("ask", "day pass?", "--session", b"s\xe9"), "--session"),
        (("ask", "day pass?", "--tenant", b"t\xe9"), "--tenant"),
        (("feedback", b"tr\xe9", "up"), "trace id"),
    ],
)
def test_an_id_that_is_not_utf8_is_a_clean_error(
    project: str, args: tuple[str | bytes, ...], word: str
) -> None:
    _clean_error(_cli(*args, "--project", project), word, "UTF-8")


def test_search_with_an_unknown_mode_is_a_clean_error(project: str) -> None:
    _clean_error(
        _cli("search", "x", "--mode", "bogus", "--project", project), "bm25, dense, hybrid"
    )


def test_search_with_undecodable_bytes_searches_the_rest(project: str) -> None:
    done = _cli("search", b"caf\xe9 day pass", "--project", project, "--json")
    assert done.returncode == 0, done.stderr.decode()
    assert json.loads(done.stdout)[0]["chunk"]["doc_id"] == "bike-rental/policy.md"


def test_index_stats_on_a_file_is_a_clean_error(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("not a project")
    _clean_error(_cli("index", "stats", "--project", str(afile)), "not a directory")


def test_index_stats_on_a_missing_project_creates_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    _clean_error(_cli("index", "stats", "--project", str(missing)), "no project")
    assert not missing.exists()


def test_a_wrong_setting_is_named_not_a_traceback(project: str, tmp_path: Path) -> None:
    """A bad value in tellmemore.toml or a TELLMEMORE_* variable names the setting, what is
    wrong and what was given, and exits 1 (pydantic's own text names a model class)."""
    config = tmp_path / "tellmemore.toml"
    config.write_text('[retrieval]\nmode = "fuzzy"\n', encoding="utf-8")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TELLMEMORE_CONFIG": str(config)}
    done = subprocess.run(
        [*CLI, "search", "escalation", "--project", project, "--json"],
        capture_output=True,
        timeout=600,
        env=env,
    )
    _clean_error(done, "invalid configuration", str(config), "retrieval.mode", "'fuzzy'")
    assert "unexpected" not in done.stderr.decode()
    assert json.loads(done.stdout)["error"]["type"] == "ConfigError"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TELLMEMORE_RETRIEVAL__K": "0"}
    done = subprocess.run(
        [*CLI, "ask", "how do I escalate?", "--project", project],
        capture_output=True,
        timeout=600,
        env=env,
    )
    _clean_error(done, "retrieval.k", "greater than or equal to 1", "'0'")
