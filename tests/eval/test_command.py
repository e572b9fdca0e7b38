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


def test_cases_alone_report_accuracy_per_pass(tmp_path: Path) -> None:
    cases = Path(__file__).parents[1] / "conversation" / "cases"
    result = CliRunner().invoke(app, ["--cases", str(cases), "--out", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)["cases"]
    assert printed == json.loads((tmp_path / "cases.json").read_text())
    assert printed["cases"] > 200 and printed["passed"] == printed["cases"]
    assert {"pronoun", "ellipsis", "repair", "ordinal"} <= set(printed["per_pass"])
    assert printed["per_pass"]["pronoun"]["accuracy"] == 1.0


def test_cases_report_a_failing_case_by_id(tmp_path: Path) -> None:
    bad = tmp_path / "one.jsonl"
    case = {"id": "x/pronoun", "history": [{"role": "user", "content": "is Sydney available?"},
            {"role": "assistant", "content": "Sydney became available. [1]"}],
            "message": "what's the latency to it?", "corpus": None,
            "query": "what's the latency to Frankfurt?", "pass": "pronoun"}  # fmt: skip
    bad.write_text(json.dumps(case) + "\n")
    result = CliRunner().invoke(app, ["--cases", str(bad), "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    assert "x/pronoun" in result.output
    report = json.loads((tmp_path / "o" / "cases.json").read_text())
    assert report["per_pass"]["pronoun"] == {"passed": 0, "cases": 1, "accuracy": 0.0}


def test_neither_datasets_nor_cases_is_a_clear_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["--out", str(tmp_path)])
    assert isinstance(result.exception, ConfigError)
    assert "--cases" in str(result.exception)
