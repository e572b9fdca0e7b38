"""Indexes and embedders: `open_index(settings, dimension=...)` and `load_embedder(settings)`."""

from tellmemore.index.base import Embedder, Index, SearchRequest
from tellmemore.index.embedders import OpenAIEmbedder, SentenceTransformerEmbedder, load_embedder
from tellmemore.index.factory import open_index
from tellmemore.index.sqlite import SQLiteIndex

__all__ = [
    "Embedder",
    "Index",
    "OpenAIEmbedder",
    "SQLiteIndex",
    "SearchRequest",
    "SentenceTransformerEmbedder",
    "load_embedder",
    "open_index",
]
