"""Docs cannot drift: every CLI command has help and is in the generated reference."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

import click
import typer.main

from tellmemore.cli import app

ROOT = Path(__file__).resolve().parent.parent


def _commands() -> list[tuple[str, click.Command]]:
    found: list[tuple[str, click.Command]] = []

    def walk(cmd: click.Command, path: list[str]) -> None:
        if isinstance(cmd, click.Group):
            for name, sub in cmd.commands.items():
                walk(sub, [*path, name])
        else:
            found.append((" ".join(path), cmd))

    walk(typer.main.get_command(app), ["tellmemore"])
    return found


def test_every_command_has_help() -> None:
    for name, cmd in _commands():
        assert (cmd.help or "").strip(), f"{name} has no help text"


def test_cli_reference_is_current() -> None:
    spec = importlib.util.spec_from_file_location("gen", ROOT / "scripts" / "gen_cli_docs.py")
    assert spec and spec.loader
    gen = importlib.util.module_from_spec(spec)
    sys.modules["gen"] = gen
    spec.loader.exec_module(gen)
    current = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    normalise = lambda s: re.sub(r"\s+", " ", s)  # noqa: E731 - terminal width changes wrapping
    assert normalise(current) == normalise(gen.render()), (
        "docs/cli.md is stale: run .venv/bin/python scripts/gen_cli_docs.py"
    )


def test_readme_names_every_top_level_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name, _ in _commands():
        top = " ".join(name.split()[:2])
        assert f"`{top}" in readme, f"README does not mention {top}"


def test_readme_configuration_example_loads(tmp_path: Path, monkeypatch: Any) -> None:
    """The README's `tellmemore.toml` example is a valid configuration, read as a user's file."""
    from tellmemore.config import Settings

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example = re.search(r"```toml\n(.*?)```", readme, re.S)
    assert example, "README has no tellmemore.toml example"
    config = tmp_path / "tellmemore.toml"
    config.write_text(example.group(1), encoding="utf-8")
    monkeypatch.setenv("TELLMEMORE_CONFIG", str(config))
    settings = Settings()
    assert settings.retrieval.abstention == "floor"
    assert settings.llm.base_url == "http://127.0.0.1:11434/v1"
    assert settings.conversation.window == 3


def test_features_page_links_exist() -> None:
    """Every result file `docs/features.md` points at is committed."""
    page = (ROOT / "docs" / "features.md").read_text(encoding="utf-8")
    named = set(re.findall(r"bench/results/([\w./-]+\.md)", page))
    assert named
    missing = [n for n in sorted(named) if not (ROOT / "bench" / "results" / n).exists()]
    assert not missing, f"docs/features.md names missing results: {missing}"
