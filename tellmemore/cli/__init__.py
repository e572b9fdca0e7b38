"""The `tellmemore` command line: thin commands over the library.

Domain errors are translated to a one-line message and exit code 1 here, in
one place; a closed pipe (`tellmemore search ... | head`) exits quietly. Any other
exception is a bug: it is one line too, and `TELLMEMORE_DEBUG=1` shows its traceback.
"""

from __future__ import annotations

import json
import os
import sys
from typing import NoReturn

import typer
from pydantic import ValidationError

from tellmemore.cli import ask, demo, feedback, index, ingest, mcp, search

app = typer.Typer(
    name="tellmemore",
    help="Conversational RAG whose retrieval survives follow-up turns.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # docstrings are wrapped at 100 columns in the source: "markdown" rewraps a paragraph
    # to the terminal ("rich" kept each source line break, so a command's summary in
    # `--help` broke mid-sentence)
    rich_markup_mode="markdown",
)
app.command("ingest")(ingest.ingest_command)
app.command("search")(search.search_command)
app.command("ask")(ask.ask_command)
app.command("chat")(ask.chat_command)
app.command("feedback")(feedback.feedback_command)
app.command("demo")(demo.demo_command)
app.add_typer(index.app, name="index")
try:  # modules still being written by other issues register when present
    from tellmemore.cli import eval as eval_cli

    app.command("eval")(eval_cli.eval_command)
except ImportError:  # pragma: no cover
    pass
try:
    from tellmemore.cli import serve

    app.command("serve")(serve.serve_command)
except ImportError:  # pragma: no cover
    pass
app.command("mcp")(mcp.mcp_command)


def config_error(exc: ValidationError) -> str:
    """A settings error as a user fixes it: which setting, what is wrong, what was given
    (pydantic's own text names the model class and a documentation link instead)."""
    lines = []
    for err in exc.errors():
        setting = ".".join(str(part) for part in err["loc"]) or "settings"
        given = err.get("input")
        shown = "" if isinstance(given, dict) else f" (given: {given!r})"
        lines.append(f"{setting}: {err['msg']}{shown}")
    source = os.environ.get("TELLMEMORE_CONFIG", "tellmemore.toml")
    return f"invalid configuration ({source} or TELLMEMORE_* variables): " + "; ".join(lines)


def main() -> None:
    from tellmemore.errors import TellMeMoreError

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # no "Loading weights" bar
    try:
        app()
    except TellMeMoreError as exc:
        typer.secho(f"Error: {exc}", err=True, fg=typer.colors.RED)
        if "--json" in sys.argv[1:]:  # a script reading stdout gets the error as JSON too
            error = {"error": {"type": type(exc).__name__, "message": str(exc)}}
            print(json.dumps(error, ensure_ascii=False))
        sys.exit(1)
    except ValidationError as exc:
        if not exc.title.endswith("Settings"):
            _unexpected(exc)
        # a setting in tellmemore.toml or TELLMEMORE_* is wrong: the user's to fix
        message = config_error(exc)
        typer.secho(f"Error: {message}", err=True, fg=typer.colors.RED)
        if "--json" in sys.argv[1:]:
            print(json.dumps({"error": {"type": "ConfigError", "message": message}}))
        sys.exit(1)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(0)
    except Exception as exc:  # a bug: one line for the user, the traceback on request
        _unexpected(exc)


def _unexpected(exc: Exception) -> NoReturn:
    if os.environ.get("TELLMEMORE_DEBUG"):
        raise exc
    shown = str(exc).encode("utf-8", "backslashreplace").decode("utf-8")
    typer.secho(
        f"Error: unexpected {type(exc).__name__}: {shown} "
        "(set TELLMEMORE_DEBUG=1 to see the traceback)",
        err=True,
        fg=typer.colors.RED,
    )
    sys.exit(1)
