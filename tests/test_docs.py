"""Docs cannot drift: every CLI command has help and is in the generated reference."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

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
