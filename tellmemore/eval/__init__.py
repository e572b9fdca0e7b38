"""Conversational retrieval evaluation: `tellmemore eval` as a library.

    run = run_eval(["bench/mtrag/govt"], settings=Settings.load(), options=EvalOptions(),
                   embedder=load_embedder(settings.embedder))
    report, paths = write_report(run, Path("eval-report"))

Datasets are directories in the MTRAG format (`datasets`); strategies turn a
turn into searched phrasings (`strategies`); `measures` scores retrieval with
ir_measures and binding against the human rewrite; `report` writes
report.json (fixed shape), details.json, report.md and a chart.
"""

from tellmemore.eval.datasets import Dataset, EvalTurn, Skipped, load_dataset
from tellmemore.eval.measures import Binding, binding, measure_names, score_turns
from tellmemore.eval.report import build_details, build_report, write_report
from tellmemore.eval.runner import EvalOptions, EvalRun, TurnResult, run_eval
from tellmemore.eval.strategies import STRATEGIES, Strategy, build_strategies, parse_strategies

__all__ = [
    "STRATEGIES",
    "Binding",
    "Dataset",
    "EvalOptions",
    "EvalRun",
    "EvalTurn",
    "Skipped",
    "Strategy",
    "TurnResult",
    "binding",
    "build_details",
    "build_report",
    "build_strategies",
    "load_dataset",
    "measure_names",
    "parse_strategies",
    "run_eval",
    "score_turns",
    "write_report",
]
