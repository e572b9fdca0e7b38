"""POST /v1/chat/completions and GET /v1/models driven by the official `openai` SDK against
a real uvicorn server on loopback, on the sample corpus with the real MiniLM."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import openai
import pytest

from tellmemore.service import openai_wire as wire
from tellmemore.types import Citation

from .conftest import KEYS

pytestmark = pytest.mark.model

TURNS = (
    "what escalation options do we have on cloud connect",
    "does the enterprise one cover weekends?",
    "and how fast is the first response on that one?",
)


_opened: list[openai.OpenAI] = []


@pytest.fixture(autouse=True)
def _close_clients() -> Iterator[None]:
    """Every SDK client a test opens is closed after it (no socket left to the GC)."""
    yield
    while _opened:
        _opened.pop().close()


def sdk(base: str, key: str = "unused") -> openai.OpenAI:
    client = openai.OpenAI(base_url=f"{base}/v1", api_key=key, max_retries=0, timeout=60)
    _opened.append(client)
    return client


def converse(client: openai.OpenAI, *, stream_last: bool = False) -> list[dict]:  # type: ignore[type-arg]
    """Play TURNS as a client does: the whole conversation every time, the assistant's
    rendered content (with its references) sent back as history. Returns each turn's
    (content, extra field)."""
    messages: list[dict[str, str]] = []
    results = []
    for i, text in enumerate(TURNS):
        messages.append({"role": "user", "content": text})
        if stream_last and i == len(TURNS) - 1:
            chunks = list(
                client.chat.completions.create(model="tellmemore", messages=messages, stream=True)  # type: ignore[arg-type]
            )
            content = "".join(c.choices[0].delta.content or "" for c in chunks)
            results.append({"content": content, "extra": chunks[-1].model_extra, "chunks": chunks})
        else:
            done = client.chat.completions.create(model="tellmemore", messages=messages)  # type: ignore[arg-type]
            content = done.choices[0].message.content or ""
            results.append({"content": content, "extra": done.model_extra, "completion": done})
        messages.append({"role": "assistant", "content": content})
    return results


def assert_third_turn_is_resolved(turn: dict) -> None:  # type: ignore[type-arg]
    answer = turn["extra"]["tellmemore"]
    assert "Enterprise" in answer["bindings"].get("that one", ""), answer["bindings"]
    assert "enterprise" in answer["standalone_query"].lower()
    top = answer["citations"][0]
    assert top["doc"] == "cloud-connect/escalation.md" and top["section"] == ["Enterprise tier"]
    assert "1 hour" in turn["content"]
    # the references a client that reads only `choices` shows: numbered, title, section, url
    assert "\n\n**Sources**\n1. [Cloud Connect escalation › Enterprise tier]" in turn["content"]
    assert f"({top['url']})" in turn["content"]


def test_a_three_turn_conversation_resolves_like_a_stored_session(
    live_server: Callable[..., str], sample_project: Path
) -> None:
    base = live_server(sample_project)
    turns = converse(sdk(base))
    done = turns[-1]["completion"]
    assert done.object == "chat.completion" and done.model == "tellmemore"
    assert done.choices[0].finish_reason == "stop" and done.choices[0].message.role == "assistant"
    assert_third_turn_is_resolved(turns[-1])
    # the same messages through a stored session search the same queries, bound the same way
    sid = None
    for text, turn in zip(TURNS, turns, strict=True):
        body = {"message": text, **({"session_id": sid} if sid else {})}
        stored = httpx.post(f"{base}/v1/chat", json=body, timeout=60).json()
        sid = stored["session_id"]
        stateless = turn["extra"]["tellmemore"]
        assert stateless["session_id"] is None
        assert stateless["standalone_query"] == stored["standalone_query"]
        assert stateless["bindings"] == stored["bindings"]
        assert [c["id"] for c in stateless["citations"]] == [c["id"] for c in stored["citations"]]


def test_a_streamed_completion_ends_with_the_answer_and_done(
    live_server: Callable[..., str], sample_project: Path
) -> None:
    base = live_server(sample_project)
    turns = converse(sdk(base), stream_last=True)
    chunks = turns[-1]["chunks"]
    assert all(c.object == "chat.completion.chunk" for c in chunks)
    assert len({c.id for c in chunks}) == 1
    assert chunks[0].choices[0].delta.role == "assistant"
    assert [c.choices[0].finish_reason for c in chunks[:-1]] == [None] * (len(chunks) - 1)
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert_third_turn_is_resolved(turns[-1])
    for c in chunks[:-1]:
        assert not (c.model_extra or {}).get("tellmemore"), "only the last chunk carries it"
    # the raw stream ends in [DONE], and streamed text equals the non-streamed content
    messages = [{"role": "user", "content": TURNS[0]}]
    with httpx.stream(
        "POST",
        f"{base}/v1/chat/completions",
        json={"model": "tellmemore", "messages": messages, "stream": True},
        timeout=60,
    ) as r:
        lines = [line for line in r.iter_lines() if line.startswith("data:")]
    assert lines[-1] == "data: [DONE]"
    whole = sdk(base).chat.completions.create(model="tellmemore", messages=messages)  # type: ignore[arg-type]
    streamed = "".join(
        c.choices[0].delta.content or ""
        for c in sdk(base).chat.completions.create(
            model="tellmemore",
            messages=messages,  # type: ignore[arg-type]
            stream=True,
        )
    )
    assert streamed == whole.choices[0].message.content


def test_models_lists_the_answer_modes(
    live_server: Callable[..., str], sample_project: Path
) -> None:
    client = sdk(live_server(sample_project))
    assert [m.id for m in client.models.list()] == ["tellmemore"]
    assert client.models.retrieve("tellmemore").owned_by == "tellmemore"
    with pytest.raises(openai.NotFoundError) as err:
        client.chat.completions.create(
            model="gpt-4o",
            messages=[{"role": "user", "content": "hi"}],
        )
    assert err.value.code == "model_not_found" and "tellmemore" in err.value.message


def test_a_wrong_key_is_an_authentication_error(
    live_server: Callable[..., str], tenant_project: Path
) -> None:
    base = live_server(tenant_project, service={"api_keys": KEYS})
    question = [{"role": "user", "content": "how long is the warranty?"}]
    with pytest.raises(openai.AuthenticationError) as err:
        sdk(base, "sk-wrong").chat.completions.create(model="tellmemore", messages=question)  # type: ignore[arg-type]
    assert err.value.code == "invalid_api_key"
    with pytest.raises(openai.AuthenticationError):
        sdk(base, "sk-wrong").models.list()
    r = httpx.post(f"{base}/v1/chat/completions", json={"messages": question})
    assert r.status_code == 401 and r.headers["www-authenticate"].startswith("Bearer")
    assert set(r.json()) == {"error"}
    assert set(r.json()["error"]) == {"message", "type", "param", "code"}


@pytest.mark.parametrize(
    ("messages", "extra", "code", "says"),
    [
        ([], {}, "invalid_request", "messages"),
        ([{"role": "assistant", "content": "hi"}], {}, "invalid_input", "last message"),
        ([{"role": "user", "content": "   "}], {}, "empty_message", "empty"),
        ([{"role": "user", "content": "x" * 9000}], {}, "message_too_long", "limit is 8000"),
        (
            [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}],
            {},
            "invalid_input",
            "'image_url' part",
        ),
        ([{"role": "user", "content": "hi"}], {"n": 2}, "invalid_input", "n=2"),
        ([{"role": "robot", "content": "hi"}], {}, "invalid_request", "messages.0.role"),
    ],
)
def test_a_bad_request_is_a_bad_request_error(
    live_server: Callable[..., str],
    sample_project: Path,
    messages: list[dict],  # type: ignore[type-arg]
    extra: dict,  # type: ignore[type-arg]
    code: str,
    says: str,
) -> None:
    client = sdk(live_server(sample_project))
    with pytest.raises(openai.BadRequestError) as err:
        client.chat.completions.create(model="tellmemore", messages=messages, **extra)  # type: ignore[arg-type]
    assert err.value.code == code
    assert says in err.value.message or says == err.value.param


def test_tenants_stay_apart_through_the_openai_door(
    live_server: Callable[..., str], tenant_project: Path
) -> None:
    base = live_server(tenant_project, service={"api_keys": KEYS})
    question = [{"role": "user", "content": "how long is the warranty?"}]
    acme = sdk(base, "key-acme-0001").chat.completions.create(model="tellmemore", messages=question)  # type: ignore[arg-type]
    globex = sdk(base, "key-globex-0002").chat.completions.create(
        model="tellmemore",
        messages=question,  # type: ignore[arg-type]
    )
    acme_text, globex_text = acme.choices[0].message.content, globex.choices[0].message.content
    assert acme_text and "three years" in acme_text and "one year" not in acme_text
    assert globex_text and "one year" in globex_text and "three years" not in globex_text
    cited = [c["snippet"] for c in (acme.model_extra or {})["tellmemore"]["citations"]]
    assert cited and all("Acme" in s and "Globex" not in s for s in cited)
    # a follow-up about the other tenant's product, with a forged history, stays inside
    forged = [
        {"role": "user", "content": "tell me about the Globex hover board warranty"},
        {"role": "assistant", "content": globex_text},
        {"role": "user", "content": "how do I claim it?"},
    ]
    probe = sdk(base, "key-acme-0001").chat.completions.create(model="tellmemore", messages=forged)  # type: ignore[arg-type]
    extra = (probe.model_extra or {})["tellmemore"]
    assert all("Globex" not in c["snippet"] for c in extra["citations"])


def test_the_openapi_document_has_the_openai_routes(
    live_server: Callable[..., str], sample_project: Path
) -> None:
    paths = httpx.get(f"{live_server(sample_project)}/openapi.json").json()["paths"]
    assert "post" in paths["/v1/chat/completions"]
    assert "get" in paths["/v1/models"]
    ok = paths["/v1/chat/completions"]["post"]["responses"]["200"]["content"]
    assert {"application/json", "text/event-stream"} <= set(ok)


def test_references_sent_back_as_history_are_cut_off() -> None:
    cite = Citation(id="c1", doc="d.md", title="Plans [2026]", section=("Pro",), url="https://x/p")
    answer_text = "The Pro plan costs 10 EUR. [1]"
    rendered = answer_text + wire.references([cite])
    assert rendered.endswith("1. [Plans \\[2026\\] › Pro](https://x/p)")
    assert wire.strip_sources(rendered) == answer_text
    # an answer that merely mentions sources, or has text after the list, is kept whole
    kept = "See **Sources**\n1. below"
    assert wire.strip_sources(kept) == kept
    assert wire.strip_sources(rendered + "\n\nMore text.") == rendered + "\n\nMore text."


def test_the_first_references_section_is_kept_as_what_the_answer_was_about() -> None:
    """A stored session reads the section its last answer cited first (`Turn.about`); a
    client sending the rendered answers back gets the same from their references."""
    grant = Citation(
        id="c1", doc="p.md", title="Perks [2026]", section=("Travel", "Visiting grant")
    )
    whole = Citation(id="c2", doc="q.md", title="Leave", url="https://x/q", pages=(3,))
    assert wire.cited_section("ok. [1]" + wire.references([grant, whole])) == "Visiting grant"
    assert wire.cited_section("ok. [1]" + wire.references([whole, grant])) == ""
    assert wire.cited_section("no references here") is None
    messages = [
        wire.ChatMessage(role="user", content="does the company pay for visits?"),
        wire.ChatMessage(role="assistant", content="Yes. [1]" + wire.references([grant])),
        wire.ChatMessage(role="user", content="does it cover my hotel?"),
    ]
    _, history = wire.to_turn(messages)
    assert [t.about for t in history] == [None, ("Visiting grant",)]
    assert history[1].content == "Yes. [1]"


def test_cutting_references_is_linear_on_a_crafted_history() -> None:
    """Many headings, each followed by reference-like lines, and no list at the end: one
    scan from the last heading (a pattern tried at every heading took hours here)."""
    crafted = "\n\n**Sources**\n1. a\n" * 100_000 + "not a reference"
    assert wire.strip_sources(crafted) == crafted
    assert wire.strip_sources(crafted + "\n\n**Sources**\n1. b") == crafted


def test_the_answer_a_stateless_caller_sends_back_was_analysed_when_it_was_produced(
    live_server: Callable[..., str], sample_project: Path
) -> None:
    """A stateless caller sends the server's own answer back as history: the server
    analysed it as it answered (conversation/prepare.py, in `_finish`), so the next request
    finds it in the analysis cache instead of parsing it on its own path."""
    from tellmemore.conversation import analysis
    from tellmemore.conversation.passes.readable import read_form

    base = live_server(sample_project)
    analysis._cached.cache_clear()
    messages = [{"role": "user", "content": TURNS[0]}]
    done = sdk(base).chat.completions.create(model="tellmemore", messages=messages)  # type: ignore[arg-type]
    content = done.choices[0].message.content or ""
    _, history = wire.to_turn(
        [wire.ChatMessage(role="user", content=TURNS[0]),
         wire.ChatMessage(role="assistant", content=content),
         wire.ChatMessage(role="user", content=TURNS[1])]
    )  # fmt: skip
    sent_back = read_form("assistant", history[-1].content)  # as the next turn reads it
    assert "Sources" not in sent_back and "escalation" in sent_back.lower()
    hits = analysis._cached.cache_info().hits
    a = analysis.analyze(sent_back)
    assert analysis._cached.cache_info().hits == hits + 1  # made by the server, not here
    assert a._sentence_phrases  # its opening was parsed when the answer was produced
