"""The PNG of a replay: every autoscaler against the same load, on one time axis.

Three stacked panels share the x axis (minutes of scenario time): the needed pods (the load,
black) and each autoscaler's mean Ready pods per minute; the cost so far (cumulative
pod-hours of ``spec.replicas``) of each autoscaler and of the two references; and each
autoscaler's ``spec.replicas`` with its scale events marked (an upward triangle for a
scale-up, a downward one for a scale-down). Colours follow the autoscalers' order.

Drawn as ``podscale.demo.plot`` draws the demo's: matplotlib's object API on the Agg
canvas, under the default style, saved without the ``Software`` metadata, so the same
report gives the same bytes.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Final

import matplotlib.style
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from podscale.replay.replay import ReplayReport

__all__ = ["write_plot"]

_DPI: Final = 100
_SIZE_INCHES: Final = (11.0, 9.0)
_COLORS: Final = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown")
_REFERENCE_STYLES: Final = (":", "-.")


def _draw(figure: Figure, report: ReplayReport) -> None:
    first = report.window.start.total_seconds() / 60
    runs = [r for r in report.runs if not r.reference]
    references = [r for r in report.runs if r.reference]
    needed = report.runs[0].series.needed
    xs = [first + m for m in range(len(needed) + 1)]

    # Step lines over whole minutes: each minute's value holds to the next minute.
    def stepped(values: tuple[float, ...] | tuple[int, ...]) -> list[float]:
        return [float(v) for v in values] + ([float(values[-1])] if values else [])

    pods_ax, cost_ax, replicas_ax = figure.subplots(3, 1, sharex=True)
    pods_ax.step(xs, stepped(needed), where="post", color="black", linewidth=1.6, label="needed")
    colors = dict(zip((r.name for r in runs), itertools.cycle(_COLORS), strict=False))
    for run in runs:
        pods_ax.step(
            xs,
            stepped(run.series.ready),
            where="post",
            color=colors[run.name],
            linewidth=1.0,
            label=f"ready: {run.name}",
        )
    pods_ax.set_ylabel("pods")
    pods_ax.set_title(f"needed pods (at {report.utilization}% of the CPU request) and ready pods")

    for run in runs:
        cost = list(itertools.accumulate(run.series.replicas, initial=0.0))
        cost_ax.plot(xs, [c / 60 for c in cost], color=colors[run.name], label=run.name)
    for run, style in zip(references, _REFERENCE_STYLES, strict=False):
        cost = list(itertools.accumulate(run.series.replicas, initial=0.0))
        cost_ax.plot(xs, [c / 60 for c in cost], color="grey", linestyle=style, label=run.name)
    cost_ax.set_ylabel("cost (pod-hours)")
    cost_ax.set_title("cost so far")

    for run in runs:
        color = colors[run.name]
        replicas_ax.step(
            xs,
            stepped(run.series.replicas),
            where="post",
            color=color,
            linewidth=1.0,
            label=f"replicas: {run.name}",
        )
        for up, marker in ((True, "^"), (False, "v")):
            chosen = [e for e in run.series.events if (e.to_replicas > e.from_replicas) == up]
            if chosen:
                replicas_ax.scatter(
                    [first + e.minute for e in chosen],
                    [e.to_replicas for e in chosen],
                    color=color,
                    marker=marker,
                    s=18,
                    zorder=3,
                )
    replicas_ax.set_ylabel("spec.replicas")
    replicas_ax.set_title("scale events (▲ up, ▼ down)")
    replicas_ax.set_xlabel("scenario time (minutes)")
    for ax in (pods_ax, cost_ax, replicas_ax):
        ax.grid(True, alpha=0.3)
        ax.set_ylim(bottom=0)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.legend(loc="upper left", fontsize=7, framealpha=0.6)
    replicas_ax.set_xlim(xs[0], xs[-1])
    figure.suptitle(f"podscale replay {report.scenario}: {report.target}")


def write_plot(report: ReplayReport, path: Path) -> Path:
    """Draw ``report`` as a PNG at ``path`` and return the path."""
    with matplotlib.style.context("default"):
        figure = Figure(figsize=_SIZE_INCHES, dpi=_DPI, layout="constrained")
        FigureCanvasAgg(figure)
        _draw(figure, report)
        figure.savefig(path, format="png", dpi=_DPI, metadata={"Software": None})
    return path
