"""Source loaders: one module per format, chosen by file extension through a registry."""

from tellmemore.ingest.loaders.base import (
    DEFAULT_MAX_BYTES,
    Document,
    Loader,
    LoadResult,
    Source,
    load_file,
    load_path,
    load_sources,
    loader_for,
    register,
    supported_extensions,
)

__all__ = [
    "DEFAULT_MAX_BYTES",
    "Document",
    "LoadResult",
    "Loader",
    "Source",
    "load_file",
    "load_path",
    "load_sources",
    "loader_for",
    "register",
    "supported_extensions",
]
