"""Ingestion: load files, chunk them by structure, embed and index them resumably."""

from tellmemore.ingest.chunking import chunk_document, default_chunk_tokens
from tellmemore.ingest.loaders.base import Document, load_path, load_sources
from tellmemore.ingest.sample import sample_corpus_path

__all__ = [
    "Document",
    "chunk_document",
    "default_chunk_tokens",
    "load_path",
    "load_sources",
    "sample_corpus_path",
]
