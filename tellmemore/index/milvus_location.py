"""Where a Milvus index lives: `index.uri` parsed, milvus-lite's servers, the lazy import.

`milvus://host:port` and `http(s)://host:port` name a server (Standalone,
Distributed behind its proxy, Zilliz Cloud); `milvus-lite:PATH.db` names an
in-process milvus-lite data directory (pymilvus recognises lite by the `.db`
suffix). Each names also the side table of term statistics
(`index.terms.TermStore`): next to the lite directory, or in the project
directory for a server.

pymilvus starts one milvus-lite gRPC server per path per process and never
stops it; `lite_acquire`/`lite_release` count the indexes open on a path and
stop its server when the last one closes, so a test suite does not
accumulate servers.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from tellmemore.errors import ConfigError, MissingDependencyError


@dataclass(frozen=True)
class MilvusLocation:
    """What `index.uri` names: the client uri, the milvus-lite path if any, the side table."""

    client_uri: str
    lite_path: Path | None
    terms_path: Path

    @property
    def is_lite(self) -> bool:
        return self.lite_path is not None


def parse_uri(uri: str, *, project_dir: Path, collection: str) -> MilvusLocation:
    """`milvus://h:p` / `http(s)://...` (a server) or `milvus-lite:PATH.db` (in-process)."""
    if uri.startswith("milvus-lite:"):
        raw = uri.removeprefix("milvus-lite:").strip()
        path = Path(raw).expanduser() if raw else project_dir / "milvus-lite.db"
        if path.suffix != ".db":
            raise ConfigError(
                f"index.uri={uri!r}: a milvus-lite path must end with .db (pymilvus's rule), "
                f"e.g. milvus-lite:{path.with_suffix('.db')}"
            )
        terms = path.with_name(f"{path.stem}.{collection}.terms.sqlite")
        return MilvusLocation(client_uri=str(path), lite_path=path, terms_path=terms)
    if uri.startswith("milvus://"):
        client_uri = "http://" + uri.removeprefix("milvus://")
    elif uri.startswith(("http://", "https://")):
        client_uri = uri
    else:
        raise ConfigError(
            f"index.uri={uri!r} is not a Milvus uri; valid: milvus://HOST:PORT, "
            "http(s)://HOST:PORT or milvus-lite:PATH.db"
        )
    parsed = urlparse(client_uri)
    if not parsed.hostname:
        raise ConfigError(f"index.uri={uri!r} names no host; e.g. milvus://localhost:19530")
    slug = re.sub(r"[^A-Za-z0-9]+", "_", f"{parsed.hostname}_{parsed.port or ''}_{collection}")
    terms = project_dir / f"milvus-{slug.strip('_')}.terms.sqlite"
    return MilvusLocation(client_uri=client_uri, lite_path=None, terms_path=terms)


def import_pymilvus(*, lite: bool) -> Any:
    """pymilvus (and milvus-lite when asked), or the error naming the extra to install."""
    try:
        import pymilvus
    except ImportError as exc:
        raise MissingDependencyError("pymilvus", "milvus") from exc
    if lite:
        try:
            import milvus_lite  # noqa: F401
        except ImportError as exc:
            raise MissingDependencyError("milvus-lite", "milvus") from exc
    return pymilvus


_lite_lock = threading.Lock()
_lite_users: dict[str, int] = {}


def lite_acquire(path: Path) -> None:
    """Count one more index open on this milvus-lite path."""
    with _lite_lock:
        key = str(path.resolve())
        _lite_users[key] = _lite_users.get(key, 0) + 1


def lite_release(path: Path) -> None:
    """Count one index fewer; the last one out stops the path's in-process server."""
    with _lite_lock:
        key = str(path.resolve())
        left = _lite_users.get(key, 1) - 1
        if left > 0:
            _lite_users[key] = left
            return
        _lite_users.pop(key, None)
    try:
        from milvus_lite.server_manager import server_manager_instance
    except ImportError:  # pragma: no cover - lite was importable when the index opened
        return
    server_manager_instance.release_server(str(path))
