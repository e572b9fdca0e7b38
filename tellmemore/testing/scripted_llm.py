"""A scripted OpenAI-compatible chat server on loopback, for tests of everything that talks
to an LLM. It speaks the real protocol over real HTTP (non-streamed JSON and streamed
server-sent events), so the real `openai` client is exercised end to end:

    with ScriptedLLMServer() as server:
        server.enqueue('{"query": "Does Enterprise escalation cover weekends?"}')
        server.enqueue(Reply.status(429, headers={"Retry-After": "1"}), "second reply")
        client = LLMClient(LLMSettings(base_url=server.base_url))
        ...
        assert "weekends" in server.requests[0]["messages"][-1]["content"]

Replies are served in order; when the script runs out the server answers 500 with
"no scripted reply left", which a test notices.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    """One scripted reply: content, or a fault."""

    content: str | None = ""
    delay_s: float = 0.0
    """Wait this long before answering (a client timeout below it sees a timeout)."""
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    cut_after: int | None = None
    """Streamed replies: drop the connection after this many content chunks."""

    @classmethod
    def text(cls, content: str) -> Reply:
        return cls(content=content)

    @classmethod
    def json(cls, obj: Any) -> Reply:
        return cls(content=json.dumps(obj))

    @classmethod
    def delay(cls, seconds: float, content: str = "too late") -> Reply:
        return cls(content=content, delay_s=seconds)

    @classmethod
    def error(cls, status: int, headers: Mapping[str, str] | None = None) -> Reply:
        return cls(content=None, status=status, headers=dict(headers or {}))

    @classmethod
    def cut(cls, content: str, after_chunks: int = 2) -> Reply:
        return cls(content=content, cut_after=after_chunks)

    @classmethod
    def empty(cls) -> Reply:
        return cls(content="")


@dataclass(frozen=True)
class Received:
    """A request as the server saw it."""

    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    at: float

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", []))

    @property
    def prompt(self) -> str:
        """All message contents joined: what the model was shown."""
        return "\n".join(str(m.get("content", "")) for m in self.messages)


class ScriptedLLMServer:
    """An OpenAI-compatible `/v1/chat/completions` on 127.0.0.1, a random free port."""

    def __init__(self, *, model: str = "scripted", supports_json_schema: bool = True) -> None:
        self.model = model
        self.supports_json_schema = supports_json_schema
        self.requests: list[Received] = []
        self._replies: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- script ------------------------------------------------------------------------

    def enqueue(self, *replies: str | Reply) -> None:
        """Append replies: plain strings are content; `Reply` carries faults."""
        with self._lock:
            for r in replies:
                self._replies.append(Reply.text(r) if isinstance(r, str) else r)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._replies)

    def _next(self) -> Reply:
        with self._lock:
            if self._replies:
                return self._replies.popleft()
        return Reply(content=None, status=500, headers={"X-Scripted": "no scripted reply left"})

    # --- lifecycle -----------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("ScriptedLLMServer is not started; use it as a context manager")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self) -> ScriptedLLMServer:
        server = self

        class Handler(_Handler):
            owner = server

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="scripted-llm",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None

    def __enter__(self) -> ScriptedLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _Handler(BaseHTTPRequestHandler):
    owner: ScriptedLLMServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return  # keep test output clean

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b"{}"
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        owner = self.owner
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            return
        fmt = (body.get("response_format") or {}).get("type")
        if fmt == "json_schema" and not owner.supports_json_schema:
            owner.requests.append(Received(self.path, body, _lower(self.headers), time.time()))
            self._json(400, {"error": {"message": "json_schema unsupported", "type": "invalid"}})
            return
        owner.requests.append(Received(self.path, body, _lower(self.headers), time.time()))
        reply = owner._next()
        if reply.delay_s and owner._stop.wait(reply.delay_s):
            return
        try:
            if reply.status != 200:
                message = reply.headers.get("X-Scripted", f"scripted HTTP {reply.status}")
                self._json(
                    reply.status,
                    {"error": {"message": message, "type": "scripted", "code": reply.status}},
                    reply.headers,
                )
            elif body.get("stream"):
                self._stream(reply)
            else:
                self._json(200, self._completion(reply.content))
        except (BrokenPipeError, ConnectionResetError):
            return  # the client gave up (timeout): nothing to answer

    def _completion(self, content: str | None) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-scripted-{len(self.owner.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.owner.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }

    def _json(
        self, status: int, payload: dict[str, Any], headers: Mapping[str, str] | None = None
    ) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _stream(self, reply: Reply) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        text = reply.content or ""
        pieces = [p for p in _pieces(text)]
        base = {
            "id": f"chatcmpl-scripted-{len(self.owner.requests)}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": self.owner.model,
        }
        first = {**base, "choices": [{"index": 0, "delta": {"role": "assistant"}}]}
        self._chunk(f"data: {json.dumps(first)}\n\n")
        for n, piece in enumerate(pieces):
            if reply.cut_after is not None and n >= reply.cut_after:
                self.close_connection = True
                self.wfile.flush()
                self.connection.shutdown(2)  # mid-body: the chunked stream never terminates
                return
            event = {
                **base,
                "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}],
            }
            self._chunk(f"data: {json.dumps(event)}\n\n")
        last = {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
        self._chunk(f"data: {json.dumps(last)}\n\n")
        self._chunk("data: [DONE]\n\n")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _chunk(self, text: str) -> None:
        data = text.encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


def _pieces(text: str) -> list[str]:
    """Word-sized pieces, spaces kept, as real servers stream tokens."""
    out: list[str] = []
    cur = ""
    for ch in text:
        cur += ch
        if ch == " ":
            out.append(cur)
            cur = ""
    if cur:
        out.append(cur)
    return out


def _lower(headers: Any) -> dict[str, str]:
    return {str(k).lower(): str(v) for k, v in headers.items()}
