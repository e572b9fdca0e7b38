"""Cold start of the CLI: wall and CPU time of fresh `tellmemore` processes, and where it goes.

    .venv/bin/python bench/cold_start.py                 # the committed run
    .venv/bin/python bench/cold_start.py --runs 3

On a project holding the bundled sample corpus, each command runs `--runs`
times as a new process (`python -m tellmemore ...`; the OS file cache is warm,
as for a user's second command of the day). Wall time is what the user
waits; CPU time (user + sys of the child) is far less disturbed by other jobs
on a shared machine. `ask` runs once more with `embedder.backend = "torch"`
(the query encoded by sentence-transformers on torch, as before the ONNX path)
for comparison. The breakdown times the phases of one `ask` in a fresh
process: interpreter start, imports of the CLI, settings + project, index
open, query encoder load, and the turn itself. Targets: cold `ask` <= 2 s,
cold `index stats` <= 0.5 s. Results: bench/results/cold_start.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
RESULTS = ROOT / "bench" / "results"

QUESTION = "what escalation options do we have on cloud connect"

PHASES = r"""
import json, sys, time
t0 = time.perf_counter()
import tellmemore.cli  # the CLI modules, typer, rich
t1 = time.perf_counter()
from tellmemore.assistant import Assistant, Session
from tellmemore.config import Settings
assistant = Assistant(Settings.load(sys.argv[1]))
t2 = time.perf_counter()
assistant.index.count()
t3 = time.perf_counter()
assistant.embedder.query_encoder()
t4 = time.perf_counter()
answer = Session(assistant, None).ask(sys.argv[2])
t5 = time.perf_counter()
assistant.close()
heavy = sorted(m for m in ("torch", "sentence_transformers", "onnxruntime") if m in sys.modules)
print(json.dumps({
    "import CLI": t1 - t0, "settings + project": t2 - t1, "index open": t3 - t2,
    "query encoder load": t4 - t3, "turn (resolve, search, answer)": t5 - t4,
    "runtimes loaded": heavy, "cited": len(answer.citations),
}))
"""


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall seconds, child CPU seconds and stdout of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def summarise(walls: list[float], cpus: list[float]) -> dict[str, Any]:
    return {
        "wall_median_s": round(statistics.median(walls), 3),
        "wall_min_s": round(min(walls), 3),
        "cpu_median_s": round(statistics.median(cpus), 3),
        "runs": len(walls),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--no-save", action="store_true")
    parser.add_argument("--render", action="store_true", help="rewrite the .md from the .json")
    args = parser.parse_args()
    if args.render:
        report = json.loads((RESULTS / "cold_start.json").read_text(encoding="utf-8"))
        (RESULTS / "cold_start.md").write_text(render(report))
        return

    from tellmemore.assistant import Assistant
    from tellmemore.config import Settings
    from tellmemore.ingest import sample_corpus_path

    py = sys.executable
    env = dict(os.environ)
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        assistant = Assistant(Settings.load(project))
        assistant.ingest([sample_corpus_path()])
        trace = assistant.ask(QUESTION).trace_id
        assistant.close()
        base = [py, "-m", "tellmemore"]
        commands = {
            "python -c pass (interpreter alone)": ([py, "-c", "pass"], env),
            "tellmemore --help": ([*base, "--help"], env),
            "tellmemore index stats": ([*base, "index", "stats", "-p", str(project)], env),
            "tellmemore feedback TRACE up": (
                [*base, "feedback", trace, "up", "-p", str(project)],
                env,
            ),
            "tellmemore search QUERY": ([*base, "search", QUESTION, "-p", str(project)], env),
            "tellmemore ask QUESTION": ([*base, "ask", QUESTION, "-p", str(project)], env),
            "tellmemore ask QUESTION (backend torch)": (
                [*base, "ask", QUESTION, "-p", str(project)],
                {**env, "TELLMEMORE_EMBEDDER__BACKEND": "torch"},
            ),
        }
        samples: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in commands}
        for _ in range(args.runs):  # interleaved: load changes hit every command alike
            for name, (cmd, cmd_env) in commands.items():
                wall, cpu, _ = timed(cmd, cmd_env)
                samples[name][0].append(wall)
                samples[name][1].append(cpu)
        for name, (walls, cpus) in samples.items():
            results[name] = summarise(walls, cpus)
            print(f"{name}: {results[name]}", file=sys.stderr)
        phases = []
        for _ in range(args.runs):
            _, _, out = timed([py, "-c", PHASES, str(project), QUESTION], env)
            phases.append(json.loads(out.strip().splitlines()[-1]))
    keys = [k for k in phases[0] if isinstance(phases[0][k], float)]
    breakdown = {k: round(statistics.median(p[k] for p in phases), 3) for k in keys}
    report = {
        "command": "bench/cold_start.py " + " ".join(sys.argv[1:]),
        "corpus": "bundled sample corpus",
        "cpus": os.cpu_count(),
        "load_avg_end": [round(x, 2) for x in os.getloadavg()],
        "commands": results,
        "ask_breakdown_median_s": breakdown,
        "ask_runtimes_loaded": phases[0]["runtimes loaded"],
    }
    print(render(report))
    if not args.no_save:
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / "cold_start.json").write_text(json.dumps(report, indent=2) + "\n")
        (RESULTS / "cold_start.md").write_text(render(report))


def render(report: dict[str, Any]) -> str:
    lines = [
        "# Cold start of the CLI",
        "",
        f"Produced by `{report['command']}` on the {report['corpus']}: every command as a new "
        f"process, {next(iter(report['commands'].values()))['runs']} interleaved runs, warm OS "
        f"file cache; {report['cpus']} CPUs shared with other jobs (1-minute load average at "
        f"the end: {report['load_avg_end'][0]}). CPU = user + sys time of the process.",
        "",
        "| command | wall median s | wall min s | CPU median s |",
        "| --- | --- | --- | --- |",
    ]
    for name, r in report["commands"].items():
        lines.append(
            f"| `{name}` | {r['wall_median_s']} | {r['wall_min_s']} | {r['cpu_median_s']} |"
        )
    lines += [
        "",
        "Where a cold `ask` spends its time (median seconds per phase, one fresh process each; "
        "the interpreter's own start is the first row above):",
        "",
        "| phase | s |",
        "| --- | --- |",
    ]
    for k, v in report["ask_breakdown_median_s"].items():
        lines.append(f"| {k} | {v} |")
    loaded = ", ".join(report["ask_runtimes_loaded"]) or "none"
    lines += [
        "",
        f"Model runtimes a cold `ask` loads: {loaded}.",
        "",
        "On a machine this loaded a process spends most of its wall time waiting for a CPU, "
        "so the wall medians say more about the other jobs than about the command: read the "
        "CPU column (what the command costs) and the wall minimum (the closest to an idle "
        "machine). Targets: `ask` <= 2 s, `index stats` <= 0.5 s.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
