"""A loopback OpenAI-compatible embeddings endpoint for failure tests.

It speaks the real `/v1/embeddings` protocol over HTTP (the `OpenAIEmbedder`
talks to it unchanged), embeds with FakeEmbedder's hashing, and answers
HTTP 500 to any request whose input contains `FAIL_MARK`, or to every
request while `down` is set.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tellmemore.testing.fakes import FakeEmbedder

FAIL_MARK = "EMBED-FAIL"


class EmbeddingServer:
    def __init__(self, dimension: int = 64) -> None:
        self.fake = FakeEmbedder(dimension)
        self.down = False
        self.requests = 0
        self.failures = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                body: dict[str, Any] = json.loads(self.rfile.read(length))
                inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                server.requests += 1
                if server.down or any(FAIL_MARK in text for text in inputs):
                    server.failures += 1
                    self._send(500, {"error": {"message": "poisoned input", "type": "server"}})
                    return
                vectors = server.fake.embed_documents(inputs)
                data = [
                    {"object": "embedding", "index": i, "embedding": v.tolist()}
                    for i, v in enumerate(vectors)
                ]
                self._send(
                    200,
                    {
                        "object": "list",
                        "data": data,
                        "model": body["model"],
                        "usage": {"prompt_tokens": 1, "total_tokens": 1},
                    },
                )

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                raw = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: object) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> EmbeddingServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
