"""Real HTTP servers on loopback for the service tests: uvicorn in a thread, or
`tellmemore serve` in a subprocess."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import uvicorn
from fastapi import FastAPI

REPO = Path(__file__).resolve().parents[2]


@contextmanager
def serve_in_thread(app: FastAPI) -> Iterator[str]:
    """uvicorn on an already bound loopback socket (no port race); yields the base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class Served:
    base: str
    pid: int

    def workers(self) -> list[int]:
        """Pids of the uvicorn worker processes (spawned children of the server), from /proc."""
        kids = []
        for proc in Path("/proc").glob("[0-9]*"):
            try:
                ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
                cmdline = (proc / "cmdline").read_bytes()
            except (OSError, IndexError, ValueError):
                continue
            if ppid == self.pid and b"spawn_main" in cmdline:
                kids.append(int(proc.name))
        return kids


@contextmanager
def serve_in_subprocess(
    project: Path, *, workers: int, log: Path, timeout_s: float = 120.0
) -> Iterator[Served]:
    """`python -m tellmemore serve --workers N` on a free loopback port."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TELLMEMORE_")}
    env.update(
        PYTHONPATH=str(REPO),
        HF_HUB_OFFLINE="1",
        TOKENIZERS_PARALLELISM="false",
        TELLMEMORE_CONFIG=str(project.parent / "no-such-tellmemore.toml"),
    )
    cmd = [sys.executable, "-m", "tellmemore", "serve", "--project", str(project)]
    cmd += ["--port", str(port), "--workers", str(workers), "--log-level", "warning"]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT, cwd=REPO)
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + timeout_s
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"serve exited with {proc.returncode}: {log.read_text()}")
                try:
                    if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"serve did not answer in {timeout_s}s: {log.read_text()}")
                time.sleep(0.25)
            yield Served(base, proc.pid)
        finally:
            proc.terminate()  # SIGTERM: uvicorn stops its workers gracefully
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
