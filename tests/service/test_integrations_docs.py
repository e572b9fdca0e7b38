"""docs/integrations.md cannot drift: every snippet on it marked `<!-- snippet: NAME -->` is
run here against a real uvicorn server on loopback (the sample corpus, the real MiniLM)."""

from __future__ import annotations

import contextlib
import io
import json
import re
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from .servers import REPO

pytestmark = pytest.mark.model

DOC = REPO / "docs" / "integrations.md"
DOC_BASE = "http://127.0.0.1:8000"
_SNIPPET = re.compile(r"<!-- snippet: ([\w-]+) -->\n```(\w+)\n(.*?)\n```", re.S)


def snippets() -> dict[str, str]:
    found = {name: code for name, _, code in _SNIPPET.findall(DOC.read_text(encoding="utf-8"))}
    assert found, "no snippets found in docs/integrations.md"
    return found


def run_python(code: str, base: str) -> str:
    """Run a Python snippet with the docs' server address swapped for the test server's."""
    assert DOC_BASE in code
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code.replace(DOC_BASE, base), "<snippet>", "exec"), {})
    return out.getvalue()


def test_every_snippet_is_tested() -> None:
    tested = {"openai-sdk", "openai-stream", "open-webui"}
    assert set(snippets()) == tested, "a new snippet in docs/integrations.md: test it here"


def test_the_openai_sdk_snippets_answer_with_sources(
    live_server: Callable[..., str], sample_project: Path
) -> None:
    base = live_server(sample_project)
    printed = run_python(snippets()["openai-sdk"], base)
    assert "\n**Sources**\n1. [Cloud Connect escalation › Enterprise tier]" in printed
    assert "Searching for: does Enterprise escalation on Cloud Connect cover weekends?" in printed
    assert "Answering about: Enterprise escalation" in printed
    streamed = run_python(snippets()["openai-stream"], base)
    assert "**Sources**" in streamed and "Pro" in streamed
    trace_id = re.search(r"trace: (\w+)", streamed)
    assert trace_id, streamed
    assert httpx.get(f"{base}/v1/traces/{trace_id.group(1)}").status_code == 200


def test_open_webui_is_served_as_it_asks(
    live_server: Callable[..., str], sample_project: Path
) -> None:
    """What Open WebUI does with the snippet's settings: list the models, then stream a chat
    with its own system prompt in front."""
    env = dict(re.findall(r"-e (OPENAI_API_\w+)=(\S+)", snippets()["open-webui"]))
    base = live_server(sample_project)
    url = env["OPENAI_API_BASE_URL"].replace("http://host.docker.internal:8000", base)
    headers = {"Authorization": f"Bearer {env['OPENAI_API_KEY']}"}
    models = httpx.get(f"{url}/models", headers=headers).json()
    assert [m["id"] for m in models["data"]] == ["tellmemore"]
    body = {
        "model": models["data"][0]["id"],
        "stream": True,
        "stream_options": {"include_usage": True},
        "messages": [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "what escalation options do we have on cloud connect"},
        ],
    }
    with httpx.stream(
        "POST", f"{url}/chat/completions", json=body, headers=headers, timeout=60
    ) as r:
        assert r.status_code == 200
        data = [line[6:] for line in r.iter_lines() if line.startswith("data: ")]
    assert data[-1] == "[DONE]"
    chunks = [json.loads(d) for d in data[:-1]]
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks)
    assert "Enterprise" in text and "**Sources**" in text
