"""The PNG of a replay: every autoscaler against the same load, on one time axis.

Four stacked panels share the x axis (minutes of scenario time): the needed pods (the load,
black) and each autoscaler's mean Ready pods per minute; the cost so far (cumulative
pod-hours of ``spec.replicas``) of each autoscaler and of the two references; the metric
each autoscaler's HPA scaled on against its target (``podscale.replay.hpa_series``, any
metric type); and each autoscaler's ``spec.replicas`` with its scale events marked (an
upward triangle for a scale-up, a downward one for a scale-down) and its scale-down
stabilization window shaded after each. Colours follow the autoscalers' order; legends sit
outside the axes, so none hides data.

Drawn as ``podscale.demo.plot`` draws the demo's: matplotlib's object API on the Agg
canvas, under the default style, saved without the ``Software`` metadata, so the same
report gives the same bytes.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Final

import matplotlib.style
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from podscale.replay.replay import ReplayReport, RunResult

__all__ = ["write_plot"]

_DPI: Final = 100
_SIZE_INCHES: Final = (12.0, 11.0)
_COLORS: Final = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown")
_REFERENCE_STYLES: Final = (":", "-.")


def _metric_panel(ax: Axes, runs: list[RunResult], colors: dict[str, str], xs: list[float]) -> None:
    """Each autoscaler's first metric (minute means, whatever its type) with its target
    dashed: in its own unit when every run's first metric is the same one, else as percent
    of each run's target (so different metrics share the axis; the target is 100%)."""
    firsts = [(run, run.metrics.metrics[0]) for run in runs if run.metrics and run.metrics.metrics]
    if not firsts:
        ax.set_title("no HPA metric recorded")
        return
    same = len({(m.label, m.unit, m.average) for _, m in firsts}) == 1
    for run, metric in firsts:
        scale = 1.0 if same or metric.target <= 0 else 100.0 / metric.target
        values = [v * scale for v in metric.means]
        color = colors[run.name]
        ax.step(
            xs,
            [*values, values[-1]],
            where="post",
            color=color,
            linewidth=1.0,
            label=f"{run.name}: {metric.label}",
        )
        target = metric.target * scale
        ax.axhline(target, color=color, linestyle="--", linewidth=0.9, label=f"target: {run.name}")
    if same:
        metric = firsts[0][1]
        unit = "% of request" if metric.unit == "%" else "per pod" if metric.average else "total"
        ax.set_ylabel(f"{metric.label} ({unit})")
    else:
        ax.set_ylabel("metric (% of target)")
    ax.set_title("the metric each autoscaler scaled on (first of its spec.metrics), per minute")


def _shade_windows(ax: Axes, run: RunResult, color: str, first: float) -> None:
    """The scale-down stabilization window after each of the run's scale events, merged
    where they overlap (one shade)."""
    assert run.metrics is not None
    width = run.metrics.scale_down_window / 60
    if width <= 0:
        return
    spans: list[tuple[float, float]] = []
    for event in run.series.events:
        start = first + event.minute
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], start + width))
        else:
            spans.append((start, start + width))
    for start, stop in spans:
        ax.axvspan(start, stop, color=color, alpha=0.07, linewidth=0)


def _draw(figure: Figure, report: ReplayReport) -> None:
    first = report.window.start.total_seconds() / 60
    runs = [r for r in report.runs if not r.reference]
    references = [r for r in report.runs if r.reference]
    needed = report.runs[0].series.needed
    xs = [first + m for m in range(len(needed) + 1)]

    # Step lines over whole minutes: each minute's value holds to the next minute.
    def stepped(values: tuple[float, ...] | tuple[int, ...]) -> list[float]:
        return [float(v) for v in values] + ([float(values[-1])] if values else [])

    pods_ax, cost_ax, metric_ax, replicas_ax = figure.subplots(4, 1, sharex=True)
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

    _metric_panel(metric_ax, runs, colors, xs)

    for run in runs:
        color = colors[run.name]
        if run.metrics is not None:
            _shade_windows(replicas_ax, run, color, first)
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
    replicas_ax.set_title(
        "scale events (▲ up, ▼ down); shaded: the scale-down stabilization window after each"
    )
    replicas_ax.set_xlabel("scenario time (minutes)")
    for ax in (pods_ax, cost_ax, metric_ax, replicas_ax):
        ax.grid(True, alpha=0.3)
        ax.set_ylim(bottom=0)
        if ax is not metric_ax:
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        # Outside the axes, to the right: a legend never hides a line.
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7)
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
