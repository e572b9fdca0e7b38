"""ingest(): load, chunk, embed and index documents; idempotent, resumable, batched.

For each document, in order:

1. Document level: if state.db holds the same content hash (text, title,
   version, url, metadata, chunk size, overlap, chunker version, embedder, tenant), no
   journal row is left for it, and the index still holds all its chunk ids,
   it is unchanged and not even chunked.
2. Chunk level: otherwise it is chunked, and `reconcile.plan` compares the new
   chunk ids and content hashes with what the index holds for the document:
   new and changed chunks are queued for embedding, unchanged ones are left
   alone, and stored ids not in the new set (orphans: the document changed
   shape) are deleted, with or without `sync`.

Queued chunks are embedded across documents in write batches (many times the
embedder's batch size), so small documents do not cost tiny batches; one
index upsert per batch. The journal protocol is in `journal.py`: at most the
batch in flight is redone after a kill -9. With `sync`, documents that are no
longer in the given sources but whose source path lies under one of them are
deleted with their chunks; files that failed to load this time are never
deleted for it (a broken file must not cost its indexed version).

Chunks that look like prompt injection ("ignore previous instructions", fake
"system:" turns) carry `metadata["flags"]`; `IngestReport.flagged` lists those
of the documents chunked in this run (an unchanged document is not re-read).

An embedding failure is isolated to its documents (the batch is retried per
document); they are reported as skipped and the run goes on. After
`MAX_CONSECUTIVE_FAILURES` failed calls in a row the embedder is taken as
down and the remaining documents are skipped without trying.
"""

from __future__ import annotations

import logging
import re
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from tellmemore.errors import ConfigError, EmbeddingError
from tellmemore.index.base import Embedder, Index, Vector
from tellmemore.ingest import reconcile
from tellmemore.ingest.chunking import CHUNKER_VERSION, SPECIAL_TOKENS, chunk_document
from tellmemore.ingest.ids import content_hash
from tellmemore.ingest.journal import DocKey, DocumentRow, Journal, doc_key, split_key
from tellmemore.ingest.loaders.base import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_TEXT_CHARS,
    Document,
    load_sources,
)
from tellmemore.state.db import StateDB
from tellmemore.types import Chunk, IngestReport, SkippedFile

log = logging.getLogger(__name__)

Progress = Callable[[int, int, str], None]

MAX_CONSECUTIVE_FAILURES = 3
BATCHES_PER_WRITE = 8
"""A write batch holds this many embedder batches: big enough to amortise the index
transaction, small enough that a crash redoes little (256 chunks with MiniLM)."""


def document_hash(
    doc: Document, *, chunk_tokens: int, embedder: str, tenant: str, overlap_sentences: int = 0
) -> str:
    """Everything that changes a document's chunks or their vectors.

    The overlap and the page starts take part only when present, so the hashes of
    documents ingested before they existed are unchanged and nothing is re-chunked for them.
    """
    overlap = (f"overlap_sentences={overlap_sentences}",) if overlap_sentences else ()
    pages = (f"page_starts={list(doc.page_starts)}",) if doc.page_starts else ()
    return content_hash(
        doc.text,
        doc.title,
        doc.version,
        doc.url,
        doc.source,
        doc.format,
        dict(doc.metadata),
        chunk_tokens,
        CHUNKER_VERSION,
        embedder,
        tenant,
        *overlap,
        *pages,
    )


@dataclass
class _Work:
    """One document being (re)indexed in this run."""

    doc: Document
    key: DocKey
    doc_hash: str
    chunks: list[Chunk]
    plan: reconcile.Plan
    existed: bool
    pending: int = 0
    failed: bool = False


@dataclass
class _Counts:
    docs_added: int = 0
    docs_updated: int = 0
    docs_unchanged: int = 0
    docs_deleted: int = 0
    chunks_added: int = 0
    chunks_updated: int = 0
    chunks_unchanged: int = 0
    chunks_deleted: int = 0
    chunks_embedded: int = 0
    skipped: list[SkippedFile] = field(default_factory=list)
    flagged: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class _Run:
    def __init__(
        self,
        *,
        index: Index,
        embedder: Embedder,
        journal: Journal,
        run_id: str,
        chunk_tokens: int,
        tenant: str,
        write_batch: int,
        progress: Progress | None,
        total: int,
        overlap_sentences: int = 0,
    ) -> None:
        self.index = index
        self.embedder = embedder
        self.journal = journal
        self.run_id = run_id
        self.chunk_tokens = chunk_tokens
        self.overlap_sentences = overlap_sentences
        self.tenant = tenant
        self.write_batch = write_batch
        self.progress = progress
        self.total = total
        self.done = 0
        self.counts = _Counts()
        self.queue: list[tuple[_Work, Chunk]] = []
        self.failures_in_a_row = 0

    # -- per document -------------------------------------------------------------------

    def tick(self, label: str) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total, label)

    def add(
        self,
        doc: Document,
        stored: DocumentRow | None,
        in_flight: bool,
        indexed: dict[str, str],
    ) -> None:
        key = doc_key(doc.doc_id, self.tenant)
        try:
            doc_hash = document_hash(
                doc,
                chunk_tokens=self.chunk_tokens,
                embedder=self.embedder.name,
                tenant=self.tenant,
                overlap_sentences=self.overlap_sentences,
            )
        except Exception as exc:  # e.g. metadata no JSON can hold: costs this document only
            log.exception("cannot hash %s", doc.doc_id)
            self.counts.skipped.append(
                SkippedFile(doc.source, f"cannot index: {type(exc).__name__}: {exc}")
            )
            self.tick(doc.doc_id)
            return
        if doc.metadata.get("encoding_errors"):
            record = f" record {doc.doc_id!r}" if doc.format == "jsonl" else ""
            self.counts.warnings.append(
                f"{doc.source}{record}: invalid UTF-8, {doc.metadata['encoding_errors']} "
                "characters replaced with U+FFFD (convert the file to UTF-8 to fix)"
            )
        if (
            stored is not None
            and stored.content_hash == doc_hash
            and not in_flight
            and all(cid in indexed for cid in stored.chunk_ids)
        ):
            self.counts.docs_unchanged += 1
            self.counts.chunks_unchanged += len(stored.chunk_ids)
            self.tick(doc.doc_id)
            return
        try:
            chunks = chunk_document(
                doc,
                max_tokens=self.chunk_tokens,
                count_tokens=self.embedder.count_tokens,
                tenant=self.tenant,
                embedder_name=self.embedder.name,
                overlap_sentences=self.overlap_sentences,
            )
        except Exception as exc:  # a chunker bug must not stop the run
            log.exception("cannot chunk %s", doc.doc_id)
            self.counts.skipped.append(SkippedFile(doc.source, f"cannot chunk: {exc}"))
            self.tick(doc.doc_id)
            return
        if not chunks:
            self.counts.warnings.append(
                f"{doc.source}: no text to index under its headings; the document has no chunks"
            )
        held = self.index.ids(doc.doc_id, tenant=self.tenant)
        plan = reconcile.plan({c.id: c.content_hash for c in chunks}, held)
        # A document a killed run had started (in flight, no row yet) is still being added.
        existed = stored is not None or (bool(held) and not in_flight)
        work = _Work(doc, key, doc_hash, chunks, plan, existed=existed)
        self.counts.flagged.extend(
            f"{doc.doc_id} [{c.header}]: {', '.join(c.metadata['flags'])}"
            for c in chunks
            if c.metadata.get("flags")
        )
        self.counts.chunks_unchanged += len(plan.unchanged)
        wanted = set(plan.upsert)
        if self.failures_in_a_row >= MAX_CONSECUTIVE_FAILURES and wanted:
            self._fail(
                work,
                "embedder down: not attempted after "
                f"{MAX_CONSECUTIVE_FAILURES} failed embedding calls in a row",
            )
            return
        for chunk in chunks:
            if chunk.id in wanted:
                self.queue.append((work, chunk))
                work.pending += 1
        if work.pending == 0:
            self._finalize([work])
        while len(self.queue) >= self.write_batch:
            self.flush()

    # -- batches ------------------------------------------------------------------------

    def flush(self) -> None:
        """Embed and write one batch from the queue, then finish the documents it completes."""
        batch, self.queue = self.queue[: self.write_batch], self.queue[self.write_batch :]
        if not batch:
            return
        works = list({id(w): w for w, _ in batch}.values())
        self.journal.mark_in_flight(self.run_id, [(w.key, w.doc_hash) for w in works])
        chunks, vectors = self._embed(batch)
        if chunks:
            self.index.upsert(chunks, vectors)
        self.counts.chunks_embedded += len(chunks)
        for work, chunk in batch:
            if work.failed:
                continue
            work.pending -= 1
            if chunk.id in work.plan.upsert_changed:
                self.counts.chunks_updated += 1
            else:
                self.counts.chunks_added += 1
        self._finalize([w for w in works if w.pending == 0 and not w.failed])

    def drain(self) -> None:
        while self.queue:
            self.flush()

    def _embed(self, batch: list[tuple[_Work, Chunk]]) -> tuple[list[Chunk], Vector]:
        """Vectors for a batch; on failure, retried per document so a bad one costs only itself."""
        texts = [c.text for _, c in batch]
        try:
            vectors = self._call(texts)
            self.failures_in_a_row = 0
            return [c for _, c in batch], vectors
        except Exception as exc:
            log.warning(
                "embedding a batch of %d chunks failed (%s); retrying per document", len(batch), exc
            )
        ok_chunks: list[Chunk] = []
        ok_vectors: list[Vector] = []
        works = list({id(w): w for w, _ in batch}.values())
        for work in works:
            group = [c for w, c in batch if w is work]
            if self.failures_in_a_row >= MAX_CONSECUTIVE_FAILURES:
                self._fail(
                    work,
                    "embedder down: not attempted after "
                    f"{MAX_CONSECUTIVE_FAILURES} failed embedding calls in a row",
                )
                continue
            try:
                vectors = self._call([c.text for c in group])
            except Exception as exc:
                self.failures_in_a_row += 1
                err = (
                    exc
                    if isinstance(exc, EmbeddingError)
                    else EmbeddingError(f"{type(exc).__name__}: {exc}", doc_id=work.doc.doc_id)
                )
                self._fail(work, f"embedding failed for document {work.doc.doc_id!r}: {err}")
                continue
            self.failures_in_a_row = 0
            ok_chunks.extend(group)
            ok_vectors.append(vectors)
        dim = self.embedder.dimension
        matrix = np.concatenate(ok_vectors) if ok_vectors else np.zeros((0, dim), np.float32)
        return ok_chunks, matrix

    def _call(self, texts: list[str]) -> Vector:
        vectors = np.asarray(self.embedder.embed_documents(texts), dtype=np.float32)
        if vectors.shape != (len(texts), self.embedder.dimension):
            raise EmbeddingError(
                f"embedder {self.embedder.name!r} returned shape {vectors.shape} for "
                f"{len(texts)} texts; expected ({len(texts)}, {self.embedder.dimension})"
            )
        return vectors

    def _fail(self, work: _Work, reason: str) -> None:
        """Skip a document: drop its queued chunks; its journal row stays until a run fixes it."""
        work.failed = True
        self.queue = [(w, c) for w, c in self.queue if w is not work]
        self.counts.skipped.append(SkippedFile(work.doc.source, reason))
        self.tick(work.doc.doc_id)

    def _finalize(self, works: list[_Work]) -> None:
        """Delete the documents' orphans, then record them and clear their journal rows."""
        if not works:
            return
        orphans = [cid for w in works for cid in w.plan.delete]
        if orphans:
            self.counts.chunks_deleted += self.index.delete(orphans)
        self.journal.commit_documents(
            [
                DocumentRow(
                    doc_id=w.doc.doc_id,
                    tenant=self.tenant,
                    source=w.doc.source,
                    content_hash=w.doc_hash,
                    chunk_ids=tuple(c.id for c in w.chunks),
                    title=w.doc.title,
                    version=w.doc.version,
                )
                for w in works
            ]
        )
        for w in works:
            if w.plan.is_noop:
                self.counts.docs_unchanged += 1
            elif w.existed:
                self.counts.docs_updated += 1
            else:
                self.counts.docs_added += 1
            self.tick(w.doc.doc_id)

    # -- sync ---------------------------------------------------------------------------

    def sync(
        self,
        roots: Sequence[Path],
        present: set[DocKey],
        protected: set[str],
        stored: dict[DocKey, DocumentRow],
        in_flight: dict[DocKey, str],
    ) -> None:
        """Delete documents gone from under `roots` (not those whose file failed to load)."""
        gone: list[DocKey] = []
        for key, row in stored.items():
            if key in present or row.source in protected:
                continue
            if not any(_under(Path(row.source), root) for root in roots):
                continue
            ids = set(row.chunk_ids) | set(self.index.ids(row.doc_id, tenant=self.tenant))
            self.counts.chunks_deleted += self.index.delete(sorted(ids))
            self.counts.docs_deleted += 1
            gone.append(key)
        # A document that was in flight when a run died and is gone now has no row to
        # find it by: its chunks are removed by its id.
        for key in in_flight:
            tenant, doc_id = split_key(key)
            if tenant != self.tenant or key in present or key in stored:
                continue
            self.counts.chunks_deleted += self.index.delete(
                sorted(self.index.ids(doc_id, tenant=self.tenant))
            )
            gone.append(key)
        self.journal.forget(gone)

    def report(self, seconds: float) -> IngestReport:
        c = self.counts
        return IngestReport(
            docs_added=c.docs_added,
            docs_updated=c.docs_updated,
            docs_unchanged=c.docs_unchanged,
            docs_deleted=c.docs_deleted,
            chunks_added=c.chunks_added,
            chunks_updated=c.chunks_updated,
            chunks_unchanged=c.chunks_unchanged,
            chunks_deleted=c.chunks_deleted,
            chunks_embedded=c.chunks_embedded,
            skipped=tuple(c.skipped),
            flagged=tuple(c.flagged),
            seconds=seconds,
            warnings=tuple(c.warnings),
        )


def keep_first_ids(
    documents: Sequence[Document], stored: dict[DocKey, DocumentRow]
) -> tuple[Document, ...]:
    """Each file keeps the id it was first ingested under.

    Ids are relative to the path given to `ingest`: the folder `docs` names a file
    `product/faq.md`, the file alone `faq.md`. Re-ingesting one edited file must update
    its document, not add a second copy that retrieval then quotes twice. A file that
    yields several documents (JSONL: ids of their own) or that two stored documents
    already share is left as loaded, and so is an id another loaded document holds.
    """
    by_source: dict[str, list[str]] = {}
    for row in stored.values():
        by_source.setdefault(row.source, []).append(row.doc_id)
    per_source = Counter(d.source for d in documents)
    taken = {d.doc_id for d in documents}
    out: list[Document] = []
    for doc in documents:
        first = by_source.get(doc.source, [])
        if per_source[doc.source] == 1 and len(first) == 1 and first[0] not in taken:
            doc = replace(doc, doc_id=first[0])
        out.append(doc)
    return tuple(out)


def _under(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


_LINE_SUFFIX = re.compile(r":\d+$")


def ingest(
    sources: Sequence[str | Path],
    *,
    index: Index,
    embedder: Embedder,
    state: StateDB,
    chunk_tokens: int,
    overlap_sentences: int = 0,
    tenant: str = "",
    sync: bool = False,
    progress: Progress | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
    follow_symlinks: bool = False,
    write_batch: int | None = None,
) -> IngestReport:
    """Ingest files and folders into `index`; safe to rerun, resumable after a crash.

    Example:
        >>> report = ingest([sample_corpus_path()], index=index, embedder=embedder,
        ...                 state=state, chunk_tokens=192)  # doctest: +SKIP
        >>> report.chunks_embedded  # 0 on a rerun of unchanged content   # doctest: +SKIP

    `chunk_tokens` must fit the embedder's window (`embedder.max_tokens` minus
    its special tokens); see `chunking.default_chunk_tokens`. `overlap_sentences`
    repeats that many sentences of a chunk at the start of the next one of its
    section (`chunking.chunk_document`); changing it re-chunks every document. `progress` is
    called with (documents done, documents total, document id).
    `write_batch` (default 8 x `embedder.batch_size`) is the number of chunks
    embedded and written per index transaction. `max_text_chars` and `follow_symlinks`
    are described in `loaders.base`.
    """
    started = time.perf_counter()
    if isinstance(sources, str | Path):
        sources = [sources]
    window = embedder.max_tokens - SPECIAL_TOKENS
    if not 16 <= chunk_tokens <= window:
        raise ConfigError(
            f"chunk_tokens={chunk_tokens} does not fit embedder {embedder.name!r}: it must be "
            f"between 16 and {window} (the model window of {embedder.max_tokens} tokens minus "
            f"{SPECIAL_TOKENS} special tokens); set chunking.max_tokens lower or leave it unset"
        )
    if overlap_sentences < 0:
        raise ConfigError(
            f"overlap_sentences={overlap_sentences} is negative; set chunking.overlap_sentences "
            "to 0 (no overlap) or more"
        )
    batch = write_batch or max(embedder.batch_size * BATCHES_PER_WRITE, 1)
    journal = Journal(state)
    shown = [Path(s).absolute().as_posix() for s in sources]
    run_id = journal.begin_run(shown)
    try:
        loaded = load_sources(
            sources,
            max_bytes=max_bytes,
            max_text_chars=max_text_chars,
            follow_symlinks=follow_symlinks,
        )
        stored = journal.documents(tenant)
        loaded = replace(loaded, documents=keep_first_ids(loaded.documents, stored))
        in_flight = journal.in_flight()
        indexed = index.ids(tenant=tenant)
        run = _Run(
            index=index,
            embedder=embedder,
            journal=journal,
            run_id=run_id,
            chunk_tokens=chunk_tokens,
            overlap_sentences=overlap_sentences,
            tenant=tenant,
            write_batch=batch,
            progress=progress,
            total=len(loaded.documents),
        )
        run.counts.skipped.extend(loaded.skipped)
        if progress is not None:
            progress(0, len(loaded.documents), "")
        for doc in loaded.documents:
            key = doc_key(doc.doc_id, tenant)
            run.add(doc, stored.get(key), key in in_flight, indexed)
        run.drain()
        if sync:
            present = {doc_key(d.doc_id, tenant) for d in loaded.documents}
            protected = {_LINE_SUFFIX.sub("", s.path) for s in loaded.skipped}
            roots = [Path(s).absolute() for s in sources]
            run.sync(roots, present, protected, stored, in_flight)
        report = run.report(time.perf_counter() - started)
    except BaseException:
        try:
            journal.finish_run(run_id, "failed")
        except Exception:  # the state db itself may be what failed
            log.exception("cannot record the failed ingestion run %s", run_id)
        raise
    journal.finish_run(run_id, "done", report)
    return report
