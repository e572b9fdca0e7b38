"""The encoder paths of the local model: bulk (torch, bf16 where the CPU has it) and query
(ONNX Runtime + tokenizers) agree, commands that embed nothing load no model runtime, and
an index is never searched with another model than the one that built it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError

from tellmemore.config import EmbedderSettings, Settings
from tellmemore.errors import IndexError_
from tellmemore.index.cpu import CpuInfo, parse_cpuinfo
from tellmemore.index.embedders import SentenceTransformerEmbedder

ROOT = Path(__file__).resolve().parents[2]


def _sample_chunk_texts(embedder: SentenceTransformerEmbedder) -> list[str]:
    from tellmemore.ingest.chunking import chunk_document, default_chunk_tokens
    from tellmemore.ingest.loaders import load_sources
    from tellmemore.ingest.sample import sample_corpus_path

    docs = load_sources([sample_corpus_path()]).documents
    size = default_chunk_tokens(5, embedder.max_tokens)
    return [
        c.text
        for d in docs
        for c in chunk_document(d, max_tokens=size, count_tokens=embedder.count_tokens)
    ]


@pytest.mark.model
def test_bulk_and_query_vectors_agree_on_the_sample_corpus(
    minilm: SentenceTransformerEmbedder,
) -> None:
    texts = _sample_chunk_texts(minilm)
    assert len(texts) > 30
    bulk = minilm.embed_documents(texts)
    queries = np.vstack([minilm.embed_query(t) for t in texts])
    cosines = np.sum(bulk * queries, axis=1)
    assert float(cosines.min()) >= 0.999, minilm.describe()
    batched = minilm.embed_queries(texts)  # what an evaluation caches: the query runtime
    assert float(np.sum(batched * queries, axis=1).min()) >= 0.9999
    # the runtimes really differ where the default picks them (not one path twice)
    described = minilm.describe()
    assert described["query"]["backend"] == "onnx"
    assert described["bulk"]["backend"] == "torch"


@pytest.mark.model
def test_the_onnx_path_matches_sentence_transformers_fp32(
    minilm: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    texts = ["weekend support", "Enterprise escalations cover weekends.", "", "x " * 400]
    reference = SentenceTransformerEmbedder(batch_size=2, precision="fp32", backend="torch")
    onnx = SentenceTransformerEmbedder(batch_size=2, backend="onnx", cache_dir=minilm.cache_dir)
    expected = reference.embed_documents(texts)
    got = onnx.embed_documents(texts)  # padded batches of different lengths
    assert np.sum(expected * got, axis=1).min() >= 0.9999
    single = np.vstack([onnx.embed_query(t) for t in texts])
    assert np.sum(expected * single, axis=1).min() >= 0.9999
    assert onnx.describe()["bulk"] == {"backend": "onnx", "precision": "fp32", "reason": "settings"}


@pytest.mark.model
def test_a_query_imports_neither_torch_nor_sentence_transformers(
    minilm: SentenceTransformerEmbedder,
) -> None:
    minilm.embed_query("make sure the export exists")
    code = (
        "import sys; from pathlib import Path\n"
        "from tellmemore.index.embedders import SentenceTransformerEmbedder as E\n"
        f"e = E(cache_dir=Path({str(minilm.cache_dir)!r}))\n"
        "v = e.embed_query('does the enterprise one cover weekends?')\n"
        "print(v.shape[0], 'torch' in sys.modules, 'sentence_transformers' in sys.modules,"
        " e.describe()['query']['backend'])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["384", "False", "False", "onnx"]


def _modules_after(args: list[str], project: Path) -> set[str]:
    code = (
        "import runpy, sys, json\n"
        f"sys.argv = ['tellmemore', *{args!r}, '--project', {str(project)!r}]\n"
        "try:\n"
        "    runpy.run_module('tellmemore', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(sorted(m for m in sys.modules if '.' not in m)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


@pytest.mark.model
def test_commands_that_embed_nothing_load_no_model_runtime(sample_assistant) -> None:  # type: ignore[no-untyped-def]
    project = sample_assistant.settings.project_dir
    sample_assistant.close()
    heavy = {"torch", "onnxruntime", "sentence_transformers", "transformers"}
    for args in (["index", "stats"], ["feedback", "no-such-trace", "up"]):
        loaded = _modules_after(args, project)
        assert not loaded & heavy, (args, loaded & heavy)
        assert "tellmemore" in loaded


@pytest.mark.model
def test_index_stats_show_how_the_vectors_were_encoded(sample_assistant) -> None:  # type: ignore[no-untyped-def]
    stats = sample_assistant.stats()
    assert stats["embedder"] == "all-MiniLM-L6-v2"
    assert stats["bulk_encoding"].startswith("torch ")
    assert stats["query_encoding"].startswith("onnx fp32")
    assert "chunks in" in stats["last_ingest"]


def test_an_index_built_with_another_model_is_refused_naming_both(tmp_path: Path) -> None:
    from tellmemore.assistant import Assistant
    from tellmemore.testing.fakes import FakeEmbedder

    settings = Settings(project_dir=tmp_path / "p")
    built = Assistant(settings, embedder=FakeEmbedder(dimension=384))
    built.ingest([Path(__file__)])
    built.close()
    other = Assistant(settings)  # the default model: same dimension, another model
    with pytest.raises(IndexError_) as err:
        other.search("weekend support")
    assert "fake-hashing-384" in str(err.value) and "all-MiniLM-L6-v2" in str(err.value)
    other.close()


def test_precision_and_backend_settings_are_validated() -> None:
    assert EmbedderSettings().precision == "auto"
    with pytest.raises(ValidationError, match="bf16"):
        EmbedderSettings(precision="bf16", backend="onnx")
    with pytest.raises(ValidationError, match="int8"):
        EmbedderSettings(precision="int8", backend="torch")
    with pytest.raises(ValidationError):
        EmbedderSettings(precision="fp16")  # type: ignore[arg-type]


def test_cpu_flags_decide_whether_bf16_is_tried() -> None:
    text = "processor\t: 0\nmodel name\t: Some CPU\nflags\t\t: fpu avx2 avx512f avx512_bf16\n"
    info = parse_cpuinfo(text)
    assert (info.model, info.has_fast_bf16, info.bf16_flags) == (
        "Some CPU",
        True,
        ("avx512_bf16",),
    )
    assert not parse_cpuinfo("flags : fpu avx2 avx512f\n").has_fast_bf16
    assert parse_cpuinfo("").model == "unknown CPU"


@pytest.mark.model
def test_without_bf16_units_bulk_stays_fp32(
    minilm: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    from tellmemore.index.torch_encoder import TorchEncoder, choose_precision

    encoder = TorchEncoder(minilm.files, precision="bf16")
    old_cpu = CpuInfo("old CPU", frozenset({"avx2"}))
    choice = choose_precision(encoder, minilm.files, old_cpu, tmp_path)
    assert choice.precision == "fp32" and encoder.precision == "fp32"
    assert "neither AMX nor AVX-512 BF16" in choice.reason
    assert not (tmp_path / "precision.json").exists()  # nothing measured, nothing kept


@pytest.mark.model
def test_a_started_server_loads_no_model_runtime_before_a_search(sample_assistant) -> None:  # type: ignore[no-untyped-def]
    project = sample_assistant.settings.project_dir
    sample_assistant.close()
    code = (
        "import sys, json\n"
        "from fastapi.testclient import TestClient\n"
        "from tellmemore.config import Settings\n"
        "from tellmemore.service.app import create_app\n"
        f"app = create_app(Settings.load({str(project)!r}))\n"
        "heavy = ('torch', 'onnxruntime', 'sentence_transformers')\n"
        "with TestClient(app) as client:\n"  # runs the lifespan: the server's warm-up
        "    assert client.get('/healthz').status_code == 200\n"
        "    before = [m for m in heavy if m in sys.modules]\n"
        "    r = client.post('/v1/chat', json={'message': 'does enterprise cover weekends?'})\n"
        "    after = [m for m in heavy if m in sys.modules]\n"
        "print(json.dumps([before, after, r.status_code]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    before, after, status = json.loads(out.stdout.strip().splitlines()[-1])
    assert before == []
    assert status == 200 and after == ["onnxruntime"]


@pytest.mark.model
def test_int8_is_an_option_on_onnx_with_a_measured_quality_cost(
    minilm: SentenceTransformerEmbedder,
) -> None:
    texts = _sample_chunk_texts(minilm)[:24]
    int8 = SentenceTransformerEmbedder(precision="int8", backend="onnx", cache_dir=minilm.cache_dir)
    got = int8.embed_documents(texts)
    assert int8.describe()["bulk"]["precision"] == "int8"
    assert int8.describe()["query"]["precision"] == "int8"  # queries on the same model
    reference = SentenceTransformerEmbedder(precision="fp32", backend="torch").embed_documents(
        texts
    )
    cosines = np.sum(got * reference, axis=1)
    assert 0.98 <= float(cosines.min()) < 0.9999  # close, but really quantised


@pytest.mark.model
def test_several_phrasings_are_encoded_on_the_query_runtime(sample_assistant) -> None:  # type: ignore[no-untyped-def]
    """A follow-up searches several phrasings at once. They are queries: encoded as the
    evaluation encodes them (ONNX), and without loading torch, which costs seconds."""
    printed = _in_a_fresh_process(
        sample_assistant,
        "hits = a.retriever.search(['does the enterprise plan cover weekends?',"
        " 'enterprise plan weekend support'], weights=[1.0, 0.3]).hits\n"
        "print(len(hits) > 0, 'torch' in sys.modules)\n",
    )
    assert printed == ["True", "False"]


@pytest.mark.model
def test_a_turn_embeds_its_sentences_and_words_on_the_query_runtime(sample_assistant) -> None:  # type: ignore[no-untyped-def]
    """The answer's sentences and the phrase rule's words ("gym", "stipend" against the
    passages' words; the rule is opt-in, switched on here) are encoded on the warm query
    runtime and kept: a served process's first such question used to load torch (4-5 s and
    about 500 MB)."""
    printed = _in_a_fresh_process(
        sample_assistant,
        "from tellmemore.index.vector_cache import cache_for\n"
        "chat = a.session()\n"
        "gym = chat.ask('Is there a gym stipend?')\n"
        "price = chat.ask('What does the monthly pass cost?')\n"
        "kept = cache_for(a.embedder.embed_queries)\n"
        "print(gym.abstained, '25 dollars' in price.answer, 'torch' in sys.modules,"
        " kept.misses > 50)\n",
        env={"TELLMEMORE_RETRIEVAL__PHRASE": "true"},
    )
    assert printed == ["True", "True", "False", "True"]


def _in_a_fresh_process(  # type: ignore[no-untyped-def]
    sample_assistant, body: str, env: dict[str, str] | None = None
) -> list[str]:
    """What `body` prints, run in a new interpreter with the sample project open as `a`
    (the way a server starts: nothing loaded but the index and the query runtime)."""
    project = sample_assistant.settings.project_dir
    cache_dir = sample_assistant.retriever.embedder.cache_dir
    sample_assistant.close()
    code = (
        "import sys; from pathlib import Path\n"
        "from tellmemore.assistant import Assistant\n"
        "from tellmemore.index.embedders import SentenceTransformerEmbedder as E\n"
        f"a = Assistant.open(Path({str(project)!r}),"
        f" embedder=E(cache_dir=Path({str(cache_dir)!r})))\n" + body
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **(env or {})},
    )
    return out.stdout.split()


def test_texts_of_very_different_lengths_are_not_padded_into_one_batch() -> None:
    """Longest first; a text shorter than half the batch's width starts a new batch (a turn's
    80-word reply phrasing padded its four short phrasings to six times their cost)."""
    from tellmemore.index.onnx_encoder import _batches

    lengths = np.array([12, 130, 10, 70, 14])
    order = np.argsort(-lengths, kind="stable")
    got = [list(b) for b in _batches(order, lengths, batch_size=32)]
    assert got == [[1, 3], [4, 0, 2]]  # 130 and 70 together; 14, 12, 10 together
    assert [list(b) for b in _batches(order, lengths, batch_size=2)] == [[1, 3], [4, 0], [2]]
    assert _batches(np.array([], dtype=np.int64), np.array([]), batch_size=4) == []


@pytest.mark.model
def test_a_mixed_batch_encodes_each_text_as_it_would_alone(
    minilm: SentenceTransformerEmbedder,
) -> None:
    texts = ["how much is it?", "monthly pass " * 60, "city bikes", "pass prices " * 20]
    batched = minilm.embed_queries(texts)
    single = np.vstack([minilm.embed_query(t) for t in texts])
    assert float(np.sum(batched * single, axis=1).min()) >= 0.9999
