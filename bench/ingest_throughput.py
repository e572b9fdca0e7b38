"""Ingestion throughput: chunks/s of a full ingest vs the model's raw encode rate on the same texts.

    .venv/bin/python bench/ingest_throughput.py                     # the committed run (govt)
    .venv/bin/python bench/ingest_throughput.py --limit 200         # quicker
    .venv/bin/python bench/ingest_throughput.py --corpus sample --replicate 20

A full ingest is everything `tellmemore ingest` does on a fresh project: load
the JSONL records, chunk them (token counting with MiniLM's tokenizer), hash,
plan, journal, embed in cross-document write batches, write chunks + vectors +
FTS5 rows to SQLite, record documents. Its rate is chunks embedded / wall time
of the whole call. The raw encode rate is `SentenceTransformer.encode` over
exactly the chunk texts the ingest produced, all in one call (its best case:
one global sort by length), with the same batch size. The raw rate is measured
before and after the ingest (the machine is shared; the mean is the reference).
Target: ingest >= 90% of raw. Results: bench/results/ingest_throughput.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GOVT = Path("/work/shared/bench/mtrag/govt/corpus.jsonl")
RESULTS = ROOT / "bench" / "results"


def prepare_corpus(args: argparse.Namespace, workdir: Path) -> tuple[Path, str]:
    """A corpus folder for this run, and a one-line description of it."""
    from tellmemore.ingest import sample_corpus_path

    corpus = workdir / "corpus"
    corpus.mkdir()
    if args.corpus == "govt":
        lines = GOVT.read_text(encoding="utf-8").splitlines()
        if args.limit:
            lines = lines[: args.limit]
        (corpus / "govt.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        return corpus, f"MTRAG govt pooled corpus, {len(lines)} passages ({GOVT})"
    for i in range(args.replicate):
        shutil.copytree(sample_corpus_path(), corpus / f"copy{i:03}")
    return corpus, f"bundled sample corpus x {args.replicate} copies"


def raw_rate(model, texts: list[str], batch_size: int) -> float:  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    model.encode(
        texts,
        batch_size=batch_size,
        normalize_embeddings=True,
        convert_to_numpy=True,
        show_progress_bar=False,
    )
    return len(texts) / (time.perf_counter() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", choices=["govt", "sample"], default="govt")
    parser.add_argument("--limit", type=int, default=0, help="first N govt passages (0 = all)")
    parser.add_argument("--replicate", type=int, default=20, help="copies of the sample corpus")
    parser.add_argument("--top-k", type=int, default=5, help="chunk size from default_chunk_tokens")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args()

    import torch

    from tellmemore.index.embedders import SentenceTransformerEmbedder
    from tellmemore.index.sqlite import SQLiteIndex
    from tellmemore.ingest.chunking import default_chunk_tokens
    from tellmemore.ingest.pipeline import ingest
    from tellmemore.state.db import StateDB

    embedder = SentenceTransformerEmbedder(batch_size=args.batch_size)
    model = embedder._model  # the same SentenceTransformer the pipeline calls
    chunk_tokens = default_chunk_tokens(args.top_k, embedder.max_tokens)
    model.encode(["warm up the model"] * 8, batch_size=8, show_progress_bar=False)

    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        corpus, description = prepare_corpus(args, workdir)

        # The chunk texts, exactly as the ingest will produce them (chunking is deterministic).
        from tellmemore.ingest.chunking import chunk_document
        from tellmemore.ingest.loaders import load_sources

        docs = load_sources([corpus]).documents
        t0 = time.perf_counter()
        texts = [
            c.text
            for d in docs
            for c in chunk_document(d, max_tokens=chunk_tokens, count_tokens=embedder._count_tokens)
        ]
        chunk_seconds = time.perf_counter() - t0
        print(
            f"{len(docs)} documents -> {len(texts)} chunks of <= {chunk_tokens} tokens "
            f"(chunking alone {chunk_seconds:.2f}s)",
            flush=True,
        )

        raw_before = raw_rate(model, texts, args.batch_size)
        print(f"raw encode (before): {raw_before:.1f} chunks/s", flush=True)

        project = workdir / "project"
        index = SQLiteIndex(
            project / "index.db", dimension=embedder.dimension, embedder=embedder.name
        )
        state = StateDB(project / "state.db")
        t0 = time.perf_counter()
        report = ingest(
            [corpus], index=index, embedder=embedder, state=state, chunk_tokens=chunk_tokens
        )
        ingest_seconds = time.perf_counter() - t0
        stored = index.count()
        t1 = time.perf_counter()
        rerun = ingest(
            [corpus], index=index, embedder=embedder, state=state, chunk_tokens=chunk_tokens
        )
        rerun_seconds = time.perf_counter() - t1
        index.close()
        state.close()
        ingest_rate = report.chunks_embedded / ingest_seconds
        print(
            f"full ingest: {report.chunks_embedded} chunks in {ingest_seconds:.1f}s = "
            f"{ingest_rate:.1f} chunks/s; rerun {rerun_seconds:.2f}s, "
            f"{rerun.chunks_embedded} embedded",
            flush=True,
        )

        raw_after = raw_rate(model, texts, args.batch_size)
        print(f"raw encode (after): {raw_after:.1f} chunks/s", flush=True)

    raw = (raw_before + raw_after) / 2
    ratio = ingest_rate / raw
    result = {
        "corpus": description,
        "documents": len(docs),
        "chunks": len(texts),
        "chunks_stored": stored,
        "chunk_tokens": chunk_tokens,
        "top_k": args.top_k,
        "batch_size": args.batch_size,
        "write_batch": args.batch_size * 8,
        "chunking_seconds": round(chunk_seconds, 3),
        "ingest_seconds": round(ingest_seconds, 2),
        "ingest_chunks_per_s": round(ingest_rate, 2),
        "raw_chunks_per_s_before": round(raw_before, 2),
        "raw_chunks_per_s_after": round(raw_after, 2),
        "raw_chunks_per_s": round(raw, 2),
        "ratio": round(ratio, 3),
        "target_ratio": 0.9,
        "meets_target": ratio >= 0.9,
        "rerun_seconds": round(rerun_seconds, 3),
        "rerun_chunks_embedded": rerun.chunks_embedded,
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "torch_threads": torch.get_num_threads(),
            "load_average_1m": round(os.getloadavg()[0], 2),
        },
    }
    print(json.dumps(result, indent=2))
    if args.no_save:
        return
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "ingest_throughput.json").write_text(json.dumps(result, indent=2) + "\n")
    (RESULTS / "ingest_throughput.md").write_text(render(result))


def render(r: dict) -> str:  # type: ignore[type-arg]
    verdict = "meets" if r["meets_target"] else "MISSES"
    raw = (
        f"{r['raw_chunks_per_s']} chunks/s (before {r['raw_chunks_per_s_before']}, "
        f"after {r['raw_chunks_per_s_after']})"
    )
    rows = [
        (
            "full ingest (load, chunk, embed, write, journal)",
            f"{r['ingest_chunks_per_s']} chunks/s ({r['ingest_seconds']} s)",
        ),
        ("raw `SentenceTransformer.encode`, same texts, one call", raw),
        ("**ingest / raw**", f"**{r['ratio']:.1%}** (target >= 90%: {verdict})"),
        ("chunking alone (MiniLM tokenizer)", f"{r['chunking_seconds']} s"),
        (
            "rerun of unchanged content",
            f"{r['rerun_seconds']} s, {r['rerun_chunks_embedded']} chunks embedded",
        ),
    ]
    table = "\n".join(f"| {k} | {v} |" for k, v in rows)
    m = r["machine"]
    return f"""# Ingestion throughput

Produced by `bench/ingest_throughput.py` (all-MiniLM-L6-v2 on CPU, real SQLite index).

Corpus: {r["corpus"]}: {r["documents"]} documents -> {r["chunks"]} chunks of at most
{r["chunk_tokens"]} tokens (`default_chunk_tokens(top_k={r["top_k"]}, 256)`), header included.

| measure | value |
| --- | --- |
{table}

Batch size {r["batch_size"]}; the pipeline embeds across documents in write batches of
{r["write_batch"]} chunks (one index transaction each). Machine: {m["cpus"]} CPUs shared
with other work (1-minute load average at the end: {m["load_average_1m"]}),
torch threads {m["torch_threads"]}, Python {m["python"]}.

What the pipeline spends beyond encoding: loading and parsing, token counting for
chunking ({r["chunking_seconds"]} s for the whole corpus here), hashing, and SQLite writes
(chunk rows, float32 blobs and FTS5 postings, one transaction per write batch).
"""


if __name__ == "__main__":
    main()
