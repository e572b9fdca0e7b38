"""`tellmemore eval DATASET_DIR...`: conversational retrieval, strategies side by side."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated, Any

import typer

from tellmemore.cli.common import JsonOpt, console, print_json, progress_bar

app = typer.Typer()

DEFAULT_STRATEGIES = "raw,concat,all_user,embedded,llm,oracle"
DEFAULT_RETRIEVERS = "bm25,dense,hybrid"


def eval_command(
    datasets: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Dataset directories, each holding corpus.jsonl and conversations.jsonl "
            "(the MTRAG format); with a behaviour.jsonl (labelled turns, the MTRAG-UN "
            "format) abstain and ask-back are also reported by label.",
            show_default=False,
        ),
    ] = None,
    strategies: Annotated[
        str,
        typer.Option(
            "--strategies",
            help="Comma-separated: raw, concat, all_user, embedded, llm (only with an LLM "
            "endpoint configured), oracle (the human rewrite).",
        ),
    ] = DEFAULT_STRATEGIES,
    retrievers: Annotated[
        str, typer.Option("--retrievers", help="Comma-separated: bm25, dense, hybrid.")
    ] = DEFAULT_RETRIEVERS,
    k: Annotated[
        str, typer.Option("--k", help="Cut-offs for R@k and nDCG@k; RR at the largest.")
    ] = "5,10",
    out: Annotated[
        Path,
        typer.Option(
            "--out", help="Directory for report.md, report.json, details.json, report.png."
        ),
    ] = Path("eval-report"),
    cache: Annotated[
        Path | None,
        typer.Option(
            "--cache",
            help="Cache directory for indexes, query vectors and rankings "
            "[default: ~/.cache/tellmemore/eval].",
            show_default=False,
        ),
    ] = None,
    skip_invalid: Annotated[
        bool,
        typer.Option(
            "--skip-invalid",
            help="Skip turns whose gold is missing from the corpus or whose follow-up has no "
            "history (counted in the report) instead of stopping.",
        ),
    ] = False,
    limit: Annotated[
        int | None,
        typer.Option("--limit", min=1, help="Only the first N turns of each dataset (smoke runs)."),
    ] = None,
    cases: Annotated[
        Path | None,
        typer.Option(
            "--cases",
            help="Also run phrasing cases ({history, message, query, bindings, pass} JSONL, a "
            "file or a directory such as tests/conversation/cases) and report accuracy per "
            "pass; writes cases.json to --out.",
            show_default=False,
        ),
    ] = None,
    fit_gates: Annotated[
        Path | None,
        typer.Option(
            "--fit-gates",
            help="Fit the learned abstain, answer and ask-back gates on the datasets' "
            "behaviour.jsonl turns (pooled) and write their weights to this folder; point "
            "retrieval.gate_models at it to use them (answer.own_gates).",
            show_default=False,
        ),
    ] = None,
    json_out: JsonOpt = False,
) -> None:
    """Measure retrieval on conversations: every strategy x retriever over every turn, with
    follow-up turns reported apart, binding and over-binding apart, gating and latency."""
    from tellmemore.errors import ConfigError

    if not datasets and cases is None:
        raise ConfigError("give dataset directories, --cases PATH, or both")
    if fit_gates is not None:
        try:  # before the run, which takes minutes: a folder it cannot write stops it now
            fit_gates.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"--fit-gates: cannot write to {fit_gates}: {exc.strerror}") from None
    case_report = _run_cases(cases, out, quiet=json_out) if cases is not None else None
    if not datasets:
        if json_out:
            print_json({"cases": case_report})
        return
    from tellmemore.config import Settings
    from tellmemore.eval.report import write_report
    from tellmemore.eval.runner import DEFAULT_CACHE_DIR, EvalOptions, run_eval
    from tellmemore.eval.strategies import parse_strategies
    from tellmemore.index.embedders import load_embedder

    options = EvalOptions(
        strategies=parse_strategies(strategies),
        retrievers=_retrievers(retrievers),
        ks=_ks(k),
        cache_dir=cache if cache is not None else DEFAULT_CACHE_DIR,
        skip_invalid=skip_invalid,
        limit=limit,
    )
    settings = Settings.load()
    llm = None
    if settings.llm_enabled and "llm" in options.strategies:
        from tellmemore.llm import LLMClient

        llm = LLMClient(settings.llm)
    command = _command(datasets, strategies, retrievers, k, out, skip_invalid, limit, cases)
    embedder = load_embedder(settings.embedder)
    with _Bars() as bars:
        run = run_eval(
            datasets,
            settings=settings,
            options=options,
            embedder=embedder,
            llm=llm,
            progress=bars.update,
        )
    report, paths = write_report(run, out, command=command)
    gates = _fit_gates(run, datasets, fit_gates) if fit_gates is not None else None
    if json_out:
        extra = {"cases": case_report} if case_report is not None else {}
        print_json({**report, **extra, **({"gates": gates} if gates is not None else {})})
        return
    _print_summary(report, run.unavailable, paths)
    for name, what in (gates or {}).items():
        console.print(f"{name} gate: {what}")


def _fit_gates(run: Any, datasets: list[Path], folder: Path) -> dict[str, str]:
    """The gates fitted on every dataset's labelled turns, written to `folder`: per gate,
    the file written or why it was not fitted."""
    from tellmemore.answer.own_gates import cross_check, fit_gates, write_gates
    from tellmemore.errors import ConfigError

    rows = [row for r in run.runs for row in r.gate_rows]
    if not rows:
        raise ConfigError("--fit-gates: no dataset has a behaviour.jsonl of labelled turns")
    fitted = fit_gates(rows, ", ".join(d.name for d in datasets))
    written = write_gates(fitted, folder)
    checks = cross_check(rows, fitted)
    return {name: f"{what}\n  {checks[name]}" if name in checks else what
            for name, what in written.items()}  # fmt: skip


def _run_cases(path: Path, out: Path, *, quiet: bool) -> dict[str, Any]:
    """Run the phrasing cases; print accuracy per pass and the failures; write cases.json."""
    import json

    from rich.table import Table

    from tellmemore.eval.cases import load_cases, per_pass, run_case

    loaded, corpora = load_cases(path)
    results = [run_case(c, corpora) for c in loaded]
    counts = per_pass(results)
    report: dict[str, Any] = {
        "path": str(path),
        "cases": len(results),
        "passed": sum(r.ok for r in results),
        "per_pass": {
            k: {"passed": ok, "cases": n, "accuracy": ok / n} for k, (ok, n) in counts.items()
        },
        "failures": [{"id": r.id, "failures": list(r.failures)} for r in results if not r.ok],
        "pass_checked": any(r.passes_fired is not None for r in results),
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / "cases.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    if not quiet:
        table = Table(title=f"Phrasing cases ({path}): accuracy per pass")
        for col in ("pass", "cases", "passed", "accuracy"):
            table.add_column(col, justify="left" if col == "pass" else "right")
        for name, (ok, n) in sorted(counts.items()):
            table.add_row(name, str(n), str(ok), f"{ok / n:.3f}")
        console.print(table)
        for f in report["failures"][:20]:
            console.print(f"[red]failed[/] {f['id']}: {'; '.join(f['failures'])}")
    return report


def _retrievers(value: str) -> tuple[Any, ...]:
    from tellmemore.errors import ConfigError
    from tellmemore.types import SearchMode

    names = [v.strip() for v in value.split(",") if v.strip()]
    try:
        modes = tuple(dict.fromkeys(SearchMode.from_str(n) for n in names))
    except ValueError as exc:
        raise ConfigError(f"--retrievers: {exc}") from None
    if not modes:
        raise ConfigError("--retrievers is empty; valid: bm25, dense, hybrid")
    return modes


def _ks(value: str) -> tuple[int, ...]:
    from tellmemore.errors import ConfigError

    try:
        ks = tuple(sorted({int(v) for v in value.split(",") if v.strip()}))
    except ValueError:
        raise ConfigError(f"--k must list positive integers like 5,10; got {value!r}") from None
    if not ks or ks[0] < 1:
        raise ConfigError(f"--k must list positive integers like 5,10; got {value!r}")
    return ks


def _command(
    datasets: list[Path],
    strategies: str,
    retrievers: str,
    k: str,
    out: Path,
    skip_invalid: bool,
    limit: int | None,
    cases: Path | None = None,
) -> str:
    args = ["tellmemore", "eval", *map(str, datasets)]
    if strategies != DEFAULT_STRATEGIES:
        args += ["--strategies", strategies]
    if retrievers != DEFAULT_RETRIEVERS:
        args += ["--retrievers", retrievers]
    if k != "5,10":
        args += ["--k", k]
    args += ["--out", str(out)]
    if skip_invalid:
        args.append("--skip-invalid")
    if limit:
        args += ["--limit", str(limit)]
    if cases is not None:
        args += ["--cases", str(cases)]
    return shlex.join(args)


class _Bars:
    """One rich progress bar per stage label, drawn on stderr."""

    def __enter__(self) -> _Bars:
        self._progress = progress_bar()
        self._tasks: dict[str, Any] = {}
        self._progress.__enter__()
        return self

    def update(self, label: str, done: int, total: int) -> None:
        task = self._tasks.get(label)
        if task is None:
            task = self._tasks[label] = self._progress.add_task(label, total=total)
        self._progress.update(task, completed=done, total=total)

    def __exit__(self, *exc: object) -> None:
        self._progress.__exit__(None, None, None)


def _print_summary(
    report: dict[str, Any], unavailable: dict[str, str], paths: dict[str, Path]
) -> None:
    from rich.table import Table

    from tellmemore.eval.measures import PRIMARY

    rows = [r for r in report["results"] if r["slice"] == "followup"]
    datasets = list(dict.fromkeys(r["dataset"] for r in rows))
    table = Table(title=f"Follow-up turns, {PRIMARY} (all turns in report.md)")
    table.add_column("strategy")
    table.add_column("retriever")
    for d in datasets:
        table.add_column(d, justify="right")
    cell = {(r["strategy"], r["retriever"], r["dataset"]): r for r in rows}
    for s, rt in dict.fromkeys((r["strategy"], r["retriever"]) for r in rows):
        values = []
        for d in datasets:
            v = cell.get((s, rt, d), {}).get("measures", {}).get(PRIMARY)
            values.append("–" if v is None else f"{v:.3f}")
        table.add_row(s, rt, *values)
    console.print(table)
    for name, why in unavailable.items():
        console.print(f"[yellow]{name} not run[/]: {why}")
    console.print("Wrote " + ", ".join(str(p) for p in paths.values()))


app.command("eval")(eval_command)
