"""`tellmemore eval` from the command line, with the real MiniLM weights on a tiny dataset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tellmemore.cli.eval import app
from tellmemore.errors import ConfigError

TINY = Path(__file__).parents[1] / "data" / "eval" / "tiny"


@pytest.mark.model
def test_json_prints_the_report_object_and_writes_the_files(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        [
            str(TINY),
            "--strategies",
            "raw,oracle",
            "--retrievers",
            "bm25,hybrid",
            "--cache",
            str(tmp_path / "cache"),
            "--out",
            str(out),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    assert printed == json.loads((out / "report.json").read_text())
    assert {r["retriever"] for r in printed["results"]} == {"bm25", "hybrid"}
    oracle = next(
        r
        for r in printed["results"]
        if (r["strategy"], r["retriever"], r["slice"]) == ("oracle", "hybrid", "followup")
    )
    assert oracle["n"] == 4
    assert oracle["measures"]["R@10"] >= 0.75  # real embeddings find the paraphrased gold
    details = json.loads((out / "details.json").read_text())
    assert details["run"]["command"].startswith("tellmemore eval ")
    assert (out / "report.md").read_text().startswith("# tellmemore eval")
    assert (out / "report.png").stat().st_size > 0


@pytest.mark.parametrize(
    ("option", "value", "needle"),
    [
        ("--strategies", "raw,orcale", "'orcale'"),
        ("--retrievers", "bm25,vector", "'vector'"),
        ("--k", "5,ten", "'5,ten'"),
    ],
)
def test_bad_options_name_the_value(tmp_path: Path, option: str, value: str, needle: str) -> None:
    result = CliRunner().invoke(app, [str(TINY), option, value, "--out", str(tmp_path)])
    assert isinstance(result.exception, ConfigError)
    assert needle in str(result.exception)
