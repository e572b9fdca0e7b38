"""The report's chart: strategies side by side, all turns next to follow-up turns.

One panel per dataset (columns) and retriever (rows), bars of the primary
measure. Drawn with matplotlib's Agg canvas directly (no pyplot global state,
no display needed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tellmemore.eval.measures import PRIMARY


def render_chart(report: dict[str, Any], path: Path, *, measure: str = PRIMARY) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows = report["results"]
    datasets = list(dict.fromkeys(r["dataset"] for r in rows))
    retrievers = list(dict.fromkeys(r["retriever"] for r in rows))
    strategies = list(dict.fromkeys(r["strategy"] for r in rows))
    value = {
        (r["dataset"], r["retriever"], r["strategy"], r["slice"]): r["measures"].get(measure)
        for r in rows
    }
    ncols, nrows = max(len(datasets), 1), max(len(retrievers), 1)
    fig = Figure(figsize=(4.2 * ncols, 2.9 * nrows), dpi=110, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False, sharey=True)
    width = 0.38
    xs = list(range(len(strategies)))
    top = max([v for v in value.values() if v is not None] + [0.1])
    for i, retriever in enumerate(retrievers):
        for j, dataset in enumerate(datasets):
            ax = axes[i][j]
            for offset, slice_, color in (
                (-width / 2, "all", "#9ab"),
                (width / 2, "followup", "#247"),
            ):
                heights = [value.get((dataset, retriever, s, slice_)) or 0.0 for s in strategies]
                bars = ax.bar(
                    [x + offset for x in xs],
                    heights,
                    width,
                    color=color,
                    label="all turns" if slice_ == "all" else "follow-up turns",
                )
                ax.bar_label(bars, fmt="%.2f", fontsize=6, padding=1)
            ax.set_xticks(xs, strategies, rotation=30, fontsize=7)
            ax.set_ylim(0, min(1.0, top * 1.2))
            ax.set_title(f"{dataset} · {retriever}", fontsize=9)
            if j == 0:
                ax.set_ylabel(measure, fontsize=8)
            ax.tick_params(axis="y", labelsize=7)
    axes[0][0].legend(fontsize=7, loc="upper left")
    fig.suptitle(f"{measure} by strategy: all turns vs follow-up turns", fontsize=11)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
