"""Load: `tellmemore serve --workers 2` on loopback, many concurrent sessions of many turns.

    .venv/bin/python bench/load.py                          # the committed run: 50 x 10
    .venv/bin/python bench/load.py --sessions 4 --turns 3   # a quick check (not committed)

The sample corpus is ingested once with the real MiniLM into bench/.cache/load/template;
each run serves a fresh copy of it with `python -m tellmemore serve --workers 2` on a free
127.0.0.1 port, waits until both workers have started (each loads MiniLM), then drives
`--sessions` concurrent sessions (one thread each, httpx) of `--turns` turns: first
questions on the sample topics, follow-ups that need resolution ("does that one cover
weekends?"), topic switches, small talk and edit requests, a third of them streamed as
server-sent events. Latency is the client's wall time from request to the full answer
(the `done` event for streams). Afterwards the server is stopped and state.db is checked:
stored traces == turns answered == turns sent, two turn rows per turn, gapless positions,
`PRAGMA integrity_check` ok. Results: bench/results/load.{json,md} (with --out).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "bench" / ".cache" / "load"
OUT = ROOT / "bench" / "results"

TOPICS: list[tuple[str, list[str]]] = [
    (
        "what escalation options do we have on cloud connect",
        ["does that one cover weekends?", "and on public holidays?", "what about the other one?"],
    ),
    (
        "How much is the Pro plan?",
        ["what is its plan code?", "and the Enterprise one?", "how many sites does it include?"],
    ),
    (
        "what's the SLA on status page incidents?",
        ["and on holidays?", "how fast is the first response?"],
    ),
    (
        "What happens if I return a bike late?",
        ["and if I lose the helmet?", "is there a fee for that?"],
    ),
    ("What are the shop opening hours?", ["and on public holidays?", "what about Sundays?"]),
    (
        "which routers are supported?",
        ["does the second one need special firmware?", "what about the Kestrel Edge K3?"],
    ),
    ("how do I onboard a new site?", ["what do I need before I start?", "tell me more"]),
    ("Can I get a refund on an annual plan?", ["and on a monthly one?", "is there a fee?"]),
]
ASIDES = ["thanks!", "make that shorter", "great, thanks"]


@dataclass(frozen=True)
class TurnResult:
    session: int
    turn: int
    kind: str
    """first | follow_up | aside"""
    streamed: bool
    status: int
    seconds: float
    server_ms: float | None
    trace_id: str | None
    error: str | None


def script(rng: random.Random, turns: int) -> list[tuple[str, str]]:
    """(kind, message) turns: a first question, its follow-ups, switches, asides."""
    out: list[tuple[str, str]] = []
    pending: list[str] = []
    while len(out) < turns:
        r = rng.random()
        if not out or not pending or r < 0.2:
            first, follow = rng.choice(TOPICS)
            out.append(("first", first))
            pending = rng.sample(follow, k=len(follow))
        elif r < 0.3:
            out.append(("aside", rng.choice(ASIDES)))
        else:
            out.append(("follow_up", pending.pop()))
    return out[:turns]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_env(project: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TELLMEMORE_")}
    env.update(
        HF_HUB_OFFLINE="1",
        TOKENIZERS_PARALLELISM="false",
        PYTHONPATH=str(ROOT),
        TELLMEMORE_CONFIG=str(project.parent / "no-such-tellmemore.toml"),
    )
    return env


def ingested_template(rebuild: bool) -> Path:
    """The sample corpus ingested with MiniLM, once (reused by later runs)."""
    template = CACHE / "template"
    if template.exists() and not rebuild and (template / "index.db").exists():
        return template
    shutil.rmtree(template, ignore_errors=True)
    cmd = [sys.executable, "-m", "tellmemore", "ingest", "--project", str(template)]
    cmd.append(str(ROOT / "tellmemore" / "data" / "sample"))
    subprocess.run(cmd, check=True, env=server_env(template), cwd=ROOT, capture_output=True)
    return template


class Server:
    """`tellmemore serve --workers N` in a subprocess; its log in a file."""

    def __init__(self, project: Path, workers: int, log: Path) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = log
        cmd = [sys.executable, "-m", "tellmemore", "serve", "--project", str(project)]
        cmd += ["--port", str(self.port), "--workers", str(workers), "--log-level", "info"]
        self._out = log.open("wb")
        self.proc = subprocess.Popen(
            cmd, env=server_env(project), stdout=self._out, stderr=subprocess.STDOUT, cwd=ROOT
        )
        self.workers = workers

    def wait_ready(self, timeout_s: float) -> float:
        """Seconds until every worker finished its startup (warm-up included)."""
        t0 = time.monotonic()
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"serve exited: {self.log.read_text()[-2000:]}")
            started = self.log.read_text(errors="replace").count("Application startup complete")
            if started >= self.workers:
                try:
                    if httpx.get(f"{self.base}/healthz", timeout=5).status_code == 200:
                        return time.monotonic() - t0
                except httpx.TransportError:
                    pass
            if time.monotonic() - t0 > timeout_s:
                raise RuntimeError(f"serve not ready in {timeout_s}s: {self.log.read_text()}")
            time.sleep(0.5)

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)  # uvicorn stops its workers gracefully
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=30)
        self._out.close()


def sse_done(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """(the done event's Answer, an error event's detail) of an SSE body."""
    done = error = None
    for frame in text.replace("\r\n", "\n").split("\n\n"):
        name, data = "", ""
        for line in frame.split("\n"):
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data += line[5:].strip()
        if name == "done":
            done = json.loads(data)
        elif name == "error":
            error = json.loads(data).get("detail", data)
    return done, error


def play(base: str, session: int, turns: list[tuple[str, str]], stream_every: int) -> list[Any]:
    results: list[TurnResult] = []
    session_id: str | None = None
    with httpx.Client(base_url=base, timeout=300) as http:
        for i, (kind, message) in enumerate(turns):
            streamed = session_id is not None and (session + i) % stream_every == 0
            body = {"message": message, "session_id": session_id, "stream": streamed}
            t0 = time.perf_counter()
            status, answer, error = 0, None, None
            try:
                if streamed:
                    with http.stream("POST", "/v1/chat", json=body) as r:
                        status = r.status_code
                        text = r.read().decode()
                    answer, error = sse_done(text) if status == 200 else (None, text[:300])
                else:
                    r = http.post("/v1/chat", json=body)
                    status = r.status_code
                    if status == 200:
                        answer = r.json()
                    else:
                        error = r.text[:300]
            except httpx.HTTPError as exc:
                error = f"{type(exc).__name__}: {exc}"
            seconds = time.perf_counter() - t0
            if answer is None and error is None:
                error = "no done event"
            if answer is not None:
                session_id = answer.get("session_id") or session_id
            results.append(
                TurnResult(
                    session=session,
                    turn=i,
                    kind=kind,
                    streamed=streamed,
                    status=status,
                    seconds=seconds,
                    server_ms=(answer or {}).get("latency_ms", {}).get("total"),
                    trace_id=(answer or {}).get("trace_id"),
                    error=error,
                )
            )
    return results


def pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def summary(values: list[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "p50": pct(values, 50),
        "p95": pct(values, 95),
        "p99": pct(values, 99),
        "max": max(values) if values else float("nan"),
        "mean": statistics.fmean(values) if values else float("nan"),
    }


def check_state(db: Path, results: list[TurnResult], sessions: int) -> dict[str, Any]:
    conn = sqlite3.connect(db)
    try:
        integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
        traces = {r[0] for r in conn.execute("SELECT trace_id FROM traces")}
        turn_rows = conn.execute("SELECT COUNT(*) FROM turns").fetchone()[0]
        n_sessions = conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
        gaps = 0
        for (sid,) in conn.execute("SELECT session_id FROM sessions").fetchall():
            positions = [
                p
                for (p,) in conn.execute(
                    "SELECT position FROM turns WHERE session_id = ? ORDER BY position", (sid,)
                )
            ]
            gaps += positions != list(range(len(positions)))
    finally:
        conn.close()
    answered = {r.trace_id for r in results if r.trace_id}
    return {
        "integrity_check": integrity,
        "stored_traces": len(traces),
        "turns_sent": len(results),
        "turns_answered": len(answered),
        "traces_equal_turns": len(traces) == len(results) == len(answered) and traces == answered,
        "turn_rows": turn_rows,
        "turn_rows_equal_2x_turns": turn_rows == 2 * len(results),
        "sessions": n_sessions,
        "sessions_expected": sessions,
        "sessions_with_position_gaps": gaps,
    }


class LoadSampler:
    """The 1-minute load average every second while the run lasts (the machine is shared)."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            self.samples.append(os.getloadavg()[0])

    def __enter__(self) -> LoadSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


def run(args: argparse.Namespace) -> dict[str, Any]:
    template = ingested_template(args.rebuild)
    project = CACHE / "run" / "project"
    shutil.rmtree(project.parent, ignore_errors=True)
    shutil.copytree(template, project)
    rng = random.Random(args.seed)
    scripts = [script(rng, args.turns) for _ in range(args.sessions)]
    load_before = os.getloadavg()
    server = Server(project, args.workers, project.parent / "serve.log")
    try:
        startup_s = server.wait_ready(timeout_s=300)
        with LoadSampler() as sampler, ThreadPoolExecutor(max_workers=args.sessions) as pool:
            t0 = time.perf_counter()
            futures = [
                pool.submit(play, server.base, s, turns, args.stream_every)
                for s, turns in enumerate(scripts)
            ]
            results: list[TurnResult] = [r for f in futures for r in f.result()]
            wall = time.perf_counter() - t0
    finally:
        server.stop()
    state = check_state(project / "state.db", results, args.sessions)
    ok = [r for r in results if r.error is None and r.status == 200]
    errors = [r for r in results if r not in ok]
    by = {
        "all": [r.seconds for r in ok],
        "first": [r.seconds for r in ok if r.kind == "first"],
        "follow_up": [r.seconds for r in ok if r.kind == "follow_up"],
        "aside": [r.seconds for r in ok if r.kind == "aside"],
        "streamed": [r.seconds for r in ok if r.streamed],
        "not_streamed": [r.seconds for r in ok if not r.streamed],
    }
    return {
        "config": {
            "sessions": args.sessions,
            "turns_per_session": args.turns,
            "workers": args.workers,
            "stream_every": args.stream_every,
            "seed": args.seed,
            "embedder": "all-MiniLM-L6-v2 (sentence-transformers, CPU)",
            "corpus": "tellmemore/data/sample",
        },
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load_before": [round(x, 2) for x in load_before],
            "load_during_mean": round(statistics.fmean(sampler.samples), 2)
            if sampler.samples
            else None,
            "load_during_max": round(max(sampler.samples), 2) if sampler.samples else None,
        },
        "startup_s": round(startup_s, 1),
        "wall_s": round(wall, 2),
        "turns": len(results),
        "errors": len(errors),
        "error_examples": [asdict(e) for e in errors[:5]],
        "throughput_turns_per_s": round(len(ok) / wall, 2),
        "latency_s": {k: {m: round(v, 3) for m, v in summary(vs).items()} for k, vs in by.items()},
        "server_total_ms": {
            m: round(v, 1)
            for m, v in summary([r.server_ms for r in ok if r.server_ms is not None]).items()
        },
        "state": state,
    }


def render(r: dict[str, Any]) -> str:
    c, m, s = r["config"], r["machine"], r["state"]
    lines = [
        "# Load: `tellmemore serve --workers 2` on loopback",
        "",
        f"{c['sessions']} concurrent sessions x {c['turns_per_session']} turns "
        f"({r['turns']} turns: first questions, follow-ups, asides; 1 turn in "
        f"{c['stream_every']} streamed as SSE), {c['workers']} uvicorn "
        f"workers, {c['embedder']}, the sample corpus. Client: one thread per session "
        "(httpx), latency = request to full answer (`done` for streams).",
        "",
        f"Machine: {m['platform']}, Python {m['python']}, {m['cpus']} CPUs, shared with "
        f"other work: load average {m['load_before'][0]} before, "
        f"{m['load_during_mean']} mean / {m['load_during_max']} max during the run.",
        "",
        "| turns | errors | wall s | throughput turns/s | p50 s | p95 s | p99 s | max s |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    a = r["latency_s"]["all"]
    lines.append(
        f"| {r['turns']} | **{r['errors']}** | {r['wall_s']} | **{r['throughput_turns_per_s']}** "
        f"| **{a['p50']}** | **{a['p95']}** | **{a['p99']}** | {a['max']} |"
    )
    lines += [
        "",
        "| turns of kind | n | p50 s | p95 s | p99 s |",
        "| --- | --- | --- | --- | --- |",
    ]
    for key, v in r["latency_s"].items():
        if key != "all":
            lines.append(f"| {key} | {v['n']} | {v['p50']} | {v['p95']} | {v['p99']} |")
    st = r["server_total_ms"]
    lines += [
        "",
        f"Server-side turn time (`latency_ms.total`, from the start of the turn in its "
        f"worker thread, so it includes contention with the other turns of that process): "
        f"p50 {st['p50']} ms, p95 {st['p95']} ms, p99 {st['p99']} ms. The rest of the client "
        "latency is HTTP, SSE framing and waiting for a worker thread: "
        f"{c['sessions']} sessions share {c['workers']} processes on {m['cpus']} cores.",
        "",
        "## Nothing lost",
        "",
        f"- stored traces: {s['stored_traces']}, turns sent: {s['turns_sent']}, turns "
        f"answered: {s['turns_answered']} -> traces == turns: **{s['traces_equal_turns']}**",
        f"- turn rows: {s['turn_rows']} (2 per turn: {s['turn_rows_equal_2x_turns']}); "
        f"sessions: {s['sessions']} of {s['sessions_expected']}; sessions with position gaps: "
        f"{s['sessions_with_position_gaps']}",
        f"- `PRAGMA integrity_check`: {s['integrity_check']}",
        f"- workers ready {r['startup_s']} s after launch (each loads MiniLM and warms up)",
    ]
    if r["error_examples"]:
        lines += ["", "## Errors", ""]
        lines += [f"- {e['status']}: {e['error']}" for e in r["error_examples"]]
    lines += ["", "Reproduce: `.venv/bin/python bench/load.py --out`", ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--stream-every", type=int, default=3)
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--rebuild", action="store_true", help="re-ingest the template")
    parser.add_argument("--out", action="store_true", help="write bench/results/load.*")
    parser.add_argument("--render", action="store_true", help="only rewrite load.md from load.json")
    args = parser.parse_args()
    if args.render:
        (OUT / "load.md").write_text(render(json.loads((OUT / "load.json").read_text())))
        return
    if not 1 <= args.sessions <= 200 or not 1 <= args.turns <= 100:
        parser.error("--sessions must be 1..200 and --turns 1..100")
    result = run(args)
    text = render(result)
    print(text)
    if args.out:
        (OUT / "load.json").write_text(json.dumps(result, indent=2) + "\n")
        (OUT / "load.md").write_text(text)
    ok = result["errors"] == 0 and result["state"]["traces_equal_turns"]
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
