"""The PNG plot of a ``podscale demo`` run, drawn from its ``Timeline``.

Three stacked panels share the x axis (minutes of virtual time): the offered load; the
HPA's own metrics (``status.currentMetrics``, whatever their type) with the target as a
dashed line and the band the tolerance leaves alone; the desired, current and ready
replicas as step lines. Every ``SuccessfulRescale`` (``podscale.demo.timeline.find_rescales``)
is a vertical marker through all panels, green with an upward triangle for a scale-up,
orange with a downward one for a scale-down, labelled ``from→to`` on the replicas panel,
where a shaded span after it covers the behavior's stabilization window. Legends sit outside
the axes, so none hides data.

Drawn with matplotlib's object API on the Agg canvas (no pyplot, no GUI, no global state),
under matplotlib's default style so a user's matplotlibrc cannot change the picture, and
saved without the ``Software`` metadata: the same timeline gives the same bytes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import matplotlib.style
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from podscale.demo.timeline import Rescale, Timeline, find_rescales
from podscale.scenario.hpa_metrics import MetricReading

__all__ = ["write_plot"]

_UP_COLOR: Final = "tab:green"
_DOWN_COLOR: Final = "tab:orange"
_METRIC_COLORS: Final = ("tab:red", "tab:brown", "tab:olive", "tab:pink", "tab:gray")
_DPI: Final = 100
_SIZE_INCHES: Final = (10.0, 8.0)


def _minutes(seconds: float) -> float:
    return seconds / 60.0


def _upper_limit(values: Sequence[float]) -> float:
    """A y-axis top with headroom; never equal to the bottom (0), which matplotlib warns on."""
    finite = [v for v in values if math.isfinite(v)]
    top = max(finite, default=0.0)
    return top * 1.15 if top > 0 else 1.0


def _mark_rescales(axes: Sequence[Axes], rescales: Sequence[Rescale]) -> None:
    for rescale in rescales:
        color = _UP_COLOR if rescale.is_up else _DOWN_COLOR
        x = _minutes(rescale.offset.total_seconds())
        for ax in axes:
            ax.axvline(x, color=color, linestyle=":", linewidth=1.0, alpha=0.8)
    replicas = axes[-1]
    for direction, color, marker in ((True, _UP_COLOR, "^"), (False, _DOWN_COLOR, "v")):
        chosen = [r for r in rescales if r.is_up == direction]
        if not chosen:
            continue
        replicas.scatter(
            [_minutes(r.offset.total_seconds()) for r in chosen],
            [r.to_replicas for r in chosen],
            color=color,
            marker=marker,
            zorder=3,
            label="scale up" if direction else "scale down",
        )
        for r in chosen:
            replicas.annotate(
                f"{r.from_replicas}→{r.to_replicas}",
                (_minutes(r.offset.total_seconds()), r.to_replicas),
                textcoords="offset points",
                xytext=(3, 6 if direction else -12),
                fontsize=7,
                color=color,
            )


def _metric_panel(ax: Axes, timeline: Timeline, xs: Sequence[float]) -> None:
    """The HPA's own metrics against their targets, whatever their type.

    One metric is drawn in its own unit (CPU % of request, a queue's messages per pod, ...)
    with its target dashed and the tolerance band; several are drawn as percent of their
    targets, so they share one axis and the target is 100%. A timeline recorded without
    metric readings shows the pods' CPU utilization against the CPU target, as it did.
    """
    samples = timeline.samples
    labels = samples[-1].metrics if samples else ()
    tolerance = timeline.tolerance
    if not labels:
        values = [math.nan if s.utilization is None else s.utilization for s in samples]
        targets = [float(s.target_utilization) for s in samples]
        series = [("CPU utilization", values)]
        ylabel = "CPU (% of request)"
    elif len(labels) == 1:
        only = labels[0]

        def value(sample_metrics: tuple[MetricReading, ...]) -> float:
            current = sample_metrics[0].current if sample_metrics else None
            return math.nan if current is None else current

        series = [(only.label, [value(s.metrics) for s in samples])]
        targets = [s.metrics[0].target if s.metrics else math.nan for s in samples]
        # The metric's name is in the legend; the axis says what its numbers are.
        if only.unit == "%":
            ylabel = "% of request"
        else:
            ylabel = "value per pod" if only.average else "value (total)"
    else:

        def percent(sample_metrics: tuple[MetricReading, ...], index: int) -> float:
            ratio = sample_metrics[index].ratio if index < len(sample_metrics) else None
            return math.nan if ratio is None else 100.0 * ratio

        series = [
            (reading.label, [percent(s.metrics, i) for s in samples])
            for i, reading in enumerate(labels)
        ]
        targets = [100.0 for _ in samples]
        ylabel = "metric (% of its target)"
    for (label, values), color in zip(series, _METRIC_COLORS, strict=False):
        ax.plot(xs, values, color=color, label=label)
    ax.step(xs, targets, where="post", color="black", linestyle="--", label="target")
    ax.fill_between(
        xs,
        [t * (1 - tolerance) for t in targets],
        [t * (1 + tolerance) for t in targets],
        step="post",
        color="grey",
        alpha=0.15,
        label="tolerance",
    )
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, _upper_limit([*targets, *(v for _, values in series for v in values)]))


def _shade_windows(ax: Axes, timeline: Timeline, rescales: Sequence[Rescale]) -> None:
    """After each scale event, the span its stabilization windows cover: a scale-down
    waits until the highest recommendation of the last ``scale_down_window`` allows it,
    a scale-up likewise for ``scale_up_window`` (none by default)."""
    for window, color, name in (
        (timeline.scale_down_window, _DOWN_COLOR, "scale-down"),
        (timeline.scale_up_window, _UP_COLOR, "scale-up"),
    ):
        width = _minutes(window.total_seconds())
        if width <= 0:
            continue
        for index, (start, stop) in enumerate(_merged_spans(rescales, width)):
            ax.axvspan(
                start,
                stop,
                color=color,
                alpha=0.08,
                linewidth=0,
                label=f"{name} stabilization ({window.total_seconds():g}s)" if index == 0 else None,
            )


def _merged_spans(rescales: Sequence[Rescale], width: float) -> list[tuple[float, float]]:
    """``[t, t + width]`` after each rescale, overlapping spans merged (one shade, not a
    darker one where two windows overlap)."""
    spans: list[tuple[float, float]] = []
    for rescale in rescales:
        start = _minutes(rescale.offset.total_seconds())
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], start + width))
        else:
            spans.append((start, start + width))
    return spans


def _draw(figure: Figure, timeline: Timeline) -> None:
    samples = timeline.samples
    xs = [_minutes(s.offset.total_seconds()) for s in samples]
    load_ax, metric_ax, replicas_ax = figure.subplots(3, 1, sharex=True)

    loads = [s.load for s in samples]
    load_ax.step(xs, loads, where="post", color="tab:blue", label="offered load")
    load_ax.set_ylabel("load (req/s)")
    load_ax.set_ylim(0, _upper_limit(loads))

    _metric_panel(metric_ax, timeline, xs)

    replicas_ax.step(
        xs,
        [s.desired_replicas for s in samples],
        where="post",
        linestyle="--",
        color="tab:purple",
        label="desired",
    )
    replicas_ax.step(
        xs, [s.current_replicas for s in samples], where="post", color="tab:blue", label="current"
    )
    replicas_ax.step(
        xs,
        [s.ready_replicas for s in samples],
        where="post",
        color="tab:cyan",
        linewidth=0.8,
        label="ready",
    )
    counts = [float(max(s.desired_replicas, s.current_replicas)) for s in samples]
    replicas_ax.set_ylim(0, _upper_limit(counts))
    replicas_ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    replicas_ax.set_ylabel("replicas")
    replicas_ax.set_xlabel("virtual time (minutes)")

    axes = (load_ax, metric_ax, replicas_ax)
    rescales = find_rescales(timeline)
    _mark_rescales(axes, rescales)
    _shade_windows(replicas_ax, timeline, rescales)
    end = xs[-1] if xs else 0.0
    replicas_ax.set_xlim(0, end if end > 0 else 1.0)
    for ax in axes:
        ax.grid(True, alpha=0.3)
        if samples:
            # Outside the axes, to the right: a legend never hides a line.
            ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    figure.suptitle(f"HorizontalPodAutoscaler {timeline.namespace}/{timeline.name}")


def write_plot(timeline: Timeline, path: Path) -> Path:
    """Draw ``timeline`` as a PNG at ``path`` and return the path."""
    with matplotlib.style.context("default"):
        figure = Figure(figsize=_SIZE_INCHES, dpi=_DPI, layout="constrained")
        FigureCanvasAgg(figure)
        _draw(figure, timeline)
        figure.savefig(path, format="png", dpi=_DPI, metadata={"Software": None})
    return path
