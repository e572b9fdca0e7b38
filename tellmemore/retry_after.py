"""Reading a server's Retry-After, shared by the LLM client and the embeddings client."""

from __future__ import annotations

import email.utils
import time
from typing import Any


def retry_after_seconds(headers: Any) -> float | None:
    """Seconds from `retry-after-ms` or `Retry-After` (delta seconds or an HTTP date), else None.

    `headers` is any mapping with `.get` (httpx.Headers, dict); None gives None.
    """
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
