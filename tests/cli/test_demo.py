"""`tellmemore demo`, the README's main command, on the bundled sample docs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tellmemore.cli import app

pytestmark = pytest.mark.model


def test_demo_plays_the_scripted_conversation(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        ["demo", "--project", str(tmp_path / "demo")],
        catch_exceptions=False,
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Do you mean Standard or Enterprise escalation?" in out
    assert "does Enterprise escalation on Cloud Connect cover weekends?" in out
    assert "small_talk" in out and "about_last_answer" in out
    assert "abstain" in out  # "what is the capital of France?" after the bike questions
    flat = " ".join(out.split())  # the terminal may wrap lines anywhere
    ranks = re.findall(r"rank of the right passage: raw (\w+), resolved (\w+)", flat)
    assert len(ranks) >= 10
    # "resolved": the right passage's rank in what the turn itself retrieved (all its
    # phrasings fused); "raw": the message searched alone
    assert all(resolved in ("1", "2") for _raw, resolved in ranks), ranks
    assert sum(resolved == "1" for _raw, resolved in ranks) >= len(ranks) - 1, ranks
    assert any(raw != "1" for raw, _resolved in ranks), "some follow-ups fail as typed"
    assert all(raw == "none" or int(resolved) <= int(raw) for raw, resolved in ranks), ranks
