"""A streamed turn whose reader goes away still ends and is stored, over real HTTP."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tellmemore.assistant import Assistant
from tellmemore.config import Settings
from tellmemore.service import create_app
from tellmemore.testing.scripted_llm import Reply, ScriptedLLMServer

from .servers import serve_in_thread

pytestmark = pytest.mark.model

ANSWER = "Enterprise escalations cover weekends and public holidays [1]."


def test_a_turn_whose_reader_leaves_mid_stream_is_still_recorded(
    sample_project: Path, minilm: Any
) -> None:
    """The client reads the first event and closes the connection while the model is still
    thinking: the session must still hold the question and the model's answer, so the
    next follow-up has its context (before, the turn was lost with the connection)."""
    with ScriptedLLMServer() as llm:
        llm.enqueue("Two tiers: Standard and Enterprise [1].", Reply.delay(1.5, ANSWER))
        settings = Settings.load(sample_project, llm={"base_url": llm.base_url, "model": "m"})
        assistant = Assistant(settings, embedder=minilm)
        with serve_in_thread(create_app(settings, assistant=assistant)) as base:
            first = {"message": "what escalation options do we have on cloud connect"}
            session = httpx.post(f"{base}/v1/chat", json=first, timeout=60).json()["session_id"]
            follow = {"message": "does the enterprise one cover weekends?", "stream": True}
            with httpx.stream(
                "POST", f"{base}/v1/chat", json={**follow, "session_id": session}, timeout=60
            ) as r:
                assert next(r.iter_lines()) == "event: resolution"
            # the connection is closed here, before the model has answered
            turns: list[dict[str, Any]] = []
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and len(turns) < 4:
                time.sleep(0.2)
                turns = httpx.get(f"{base}/v1/sessions/{session}", timeout=30).json()["turns"]
        assistant.close()
    assert [t["role"] for t in turns] == ["user", "assistant"] * 2
    assert turns[2]["content"] == follow["message"]
    assert turns[3]["content"] == ANSWER
