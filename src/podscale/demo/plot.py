"""The PNG plot of a ``podscale demo`` run, drawn from its ``Timeline``.

Three stacked panels share the x axis (minutes of virtual time): the offered load; the
average CPU utilization with the target as a dashed line and the band the tolerance leaves
alone; the desired, current and ready replicas as step lines. Every ``SuccessfulRescale``
(``podscale.demo.timeline.find_rescales``) is a vertical marker through all panels,
green with an upward triangle for a scale-up, orange with a downward one for a scale-down,
labelled ``from→to`` on the replicas panel.

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

__all__ = ["write_plot"]

_UP_COLOR: Final = "tab:green"
_DOWN_COLOR: Final = "tab:orange"
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


def _draw(figure: Figure, timeline: Timeline) -> None:
    samples = timeline.samples
    xs = [_minutes(s.offset.total_seconds()) for s in samples]
    load_ax, cpu_ax, replicas_ax = figure.subplots(3, 1, sharex=True)

    loads = [s.load for s in samples]
    load_ax.step(xs, loads, where="post", color="tab:blue", label="offered load")
    load_ax.set_ylabel("load (req/s)")
    load_ax.set_ylim(0, _upper_limit(loads))

    utilization = [math.nan if s.utilization is None else s.utilization for s in samples]
    targets = [float(s.target_utilization) for s in samples]
    cpu_ax.plot(xs, utilization, color="tab:red", label="CPU utilization")
    cpu_ax.step(xs, targets, where="post", color="black", linestyle="--", label="target")
    cpu_ax.fill_between(
        xs,
        [t * (1 - timeline.tolerance) for t in targets],
        [t * (1 + timeline.tolerance) for t in targets],
        step="post",
        color="grey",
        alpha=0.15,
        label="tolerance",
    )
    cpu_ax.set_ylabel("CPU (% of request)")
    cpu_ax.set_ylim(0, _upper_limit([*utilization, *targets]))

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

    axes = (load_ax, cpu_ax, replicas_ax)
    _mark_rescales(axes, find_rescales(timeline))
    end = xs[-1] if xs else 0.0
    replicas_ax.set_xlim(0, end if end > 0 else 1.0)
    for ax in axes:
        ax.grid(True, alpha=0.3)
        if samples:
            ax.legend(loc="upper right", fontsize=8)
    figure.suptitle(f"HorizontalPodAutoscaler {timeline.namespace}/{timeline.name}")


def write_plot(timeline: Timeline, path: Path) -> Path:
    """Draw ``timeline`` as a PNG at ``path`` and return the path."""
    with matplotlib.style.context("default"):
        figure = Figure(figsize=_SIZE_INCHES, dpi=_DPI, layout="constrained")
        FigureCanvasAgg(figure)
        _draw(figure, timeline)
        figure.savefig(path, format="png", dpi=_DPI, metadata={"Software": None})
    return path
