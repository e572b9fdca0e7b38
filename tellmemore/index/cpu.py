"""What this CPU can do for encoding: its name and the instruction sets that make bf16 fast.

Read from /proc/cpuinfo (Linux); elsewhere nothing is known and bf16 is not
offered, so an unknown CPU keeps fp32. No torch import: the choice of the
encoder path must stay cheap until something is really encoded.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

BF16_FLAGS = ("amx_bf16", "avx512_bf16")
"""Either one runs bf16 matrix products natively (AMX tiles or AVX-512 BF16 dot products);
without them torch emulates bf16 and it is slower than fp32."""


@dataclass(frozen=True)
class CpuInfo:
    model: str
    flags: frozenset[str]

    @property
    def bf16_flags(self) -> tuple[str, ...]:
        """The bf16 instruction sets this CPU has, in `BF16_FLAGS` order."""
        return tuple(f for f in BF16_FLAGS if f in self.flags)

    @property
    def has_fast_bf16(self) -> bool:
        return bool(self.bf16_flags)


def parse_cpuinfo(text: str) -> CpuInfo:
    """The first processor's model name and flags from the text of /proc/cpuinfo."""
    model, flags = "unknown CPU", frozenset[str]()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "model name" and model == "unknown CPU":
            model = value.strip()
        elif key == "flags" and not flags:
            flags = frozenset(value.split())
    return CpuInfo(model, flags)


@functools.cache
def cpu_info(path: Path = Path("/proc/cpuinfo")) -> CpuInfo:
    """This machine's CPU (cached: it does not change while the process runs)."""
    try:
        return parse_cpuinfo(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return CpuInfo("unknown CPU", frozenset())
