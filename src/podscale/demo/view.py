"""The live terminal view of ``podscale demo``: one status line per sample, event lines.

``render_line`` turns a ``Sample`` (``podscale.demo.timeline``) and the events since the
previous call into lines: virtual time (``mm:ss``), offered load, the pods' CPU
utilization, desired/current/ready replicas, each at a fixed width so the lines stack into a
table, then a small bar of the HPA's first metric against its target and kubectl's TARGETS
cell (every metric, whatever its type: ``cpu: 75%/50%``, ``600/30 (avg)``); then one line
per event. ``LiveView`` writes them
to a text stream (or a ``click.echo``-like callable) while the demo driver runs, at most
one status line per ``interval`` of virtual time; event lines are never held back.

The lines are plain ASCII with no escape sequences, so piped output is deterministic. On a
terminal the CLI shows a ``rich`` live table instead (``podscale.cli.demo_live``, a
``LiveView`` with the same throttle); colour and terminal width are handled there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Final, TextIO

from podscale.demo.timeline import Sample, TimelineEvent, format_offset

__all__ = [
    "BAR_CELLS",
    "LiveView",
    "event_head",
    "metric_bar",
    "render_bar",
    "render_line",
    "targets_text",
    "utilization_band",
]

# Cells on each side of the target marker: the bar spans 0 to twice the target.
BAR_CELLS: Final = 10


def render_bar(utilization: float | None, target: int) -> str:
    """``[#####.....|..........]``: utilization on a 0..2*target scale, ``|`` at target.

    Always ``2 * BAR_CELLS + 3`` characters; ``>`` in the last cell means off the scale;
    an unknown utilization leaves the cells blank.
    """
    cells = 2 * BAR_CELLS
    if utilization is None:
        body = " " * cells
    else:
        # A target of 0 cannot pass validation; scale to 100% rather than divide by zero.
        full_scale = 2 * target if target > 0 else 100
        filled = min(cells, max(0, round(utilization / full_scale * cells)))
        body = "#" * filled + "." * (cells - filled)
        if utilization > full_scale:
            body = body[:-1] + ">"
    return f"[{body[:BAR_CELLS]}|{body[BAR_CELLS:]}]"


def _first_ratio(sample: Sample) -> float | None:
    """The first metric's ``current / target`` (legacy samples: CPU against its target)."""
    if sample.metrics:
        return sample.metrics[0].ratio
    if sample.utilization is None or not sample.target_utilization:
        return None
    return sample.utilization / sample.target_utilization


def utilization_band(sample: Sample, tolerance: float) -> int:
    """1 above ``target * (1 + tolerance)``, -1 below ``target * (1 - tolerance)``, else 0
    (also for an unknown value): how a view colours the HPA's first metric, whatever its
    type (the one its bar shows)."""
    ratio = _first_ratio(sample)
    if ratio is None:
        return 0
    return 1 if ratio > 1 + tolerance else -1 if ratio < 1 - tolerance else 0


def metric_bar(sample: Sample) -> str:
    """``render_bar`` of the HPA's first metric against its target (``|``)."""
    ratio = _first_ratio(sample)
    return render_bar(None if ratio is None else ratio * 100, 100)


def targets_text(sample: Sample) -> str:
    """kubectl's TARGETS cell of the sample (for a timeline recorded without it, CPU
    utilization against the CPU target, as kubectl would print it)."""
    if sample.targets:
        return sample.targets
    current = "<unknown>" if sample.utilization is None else f"{sample.utilization:.0f}%"
    return f"cpu: {current}/{sample.target_utilization}%"


def _status_line(sample: Sample) -> str:
    known = sample.utilization is not None
    utilization = f"{sample.utilization:4.0f}%" if known else "  --%"
    # TARGETS varies in width, so it comes last and the columns before it still stack.
    return (
        f"{format_offset(sample.offset)}  load {sample.load:8.1f} req/s  cpu {utilization}"
        f"  desired {sample.desired_replicas:3d}  current {sample.current_replicas:3d}"
        f"  ready {sample.ready_replicas:3d}  {metric_bar(sample)} {targets_text(sample)}"
    )


def event_head(event: TimelineEvent) -> str:
    """``* Reason`` (``!`` for a Warning)."""
    return f"{'!' if event.type == 'Warning' else '*'} {event.reason}"


def _event_line(event: TimelineEvent) -> str:
    return f"{format_offset(event.offset)}  {event_head(event)}: {event.message}"


def render_line(
    sample: Sample,
    events_since_last: Sequence[TimelineEvent] = (),
) -> list[str]:
    """The status line for ``sample``, then one line per event, in the order given."""
    lines = [_status_line(sample)]
    lines.extend(_event_line(event) for event in events_since_last)
    return lines


class LiveView:
    """Writes the demo's progress as it happens, throttled in virtual time.

    ``out`` is a text stream (``sys.stdout``, ``click.get_text_stream("stdout")``) or a
    callable taking one line, such as ``click.echo``. A status line is written for the first
    sample and then only once ``interval`` of virtual time has passed since the last one
    written (or when ``force`` is set, e.g. for the final sample); events passed with a
    sample that is held back are still written at once.
    """

    def __init__(
        self,
        out: TextIO | Callable[[str], object],
        *,
        interval: timedelta = timedelta(seconds=15),
        tolerance: float = 0.1,
    ) -> None:
        if interval < timedelta(0):
            raise ValueError(f"interval must not be negative, got {interval}")
        self._out = out
        self._interval = interval
        self._tolerance = tolerance
        self._last_shown: timedelta | None = None

    @property
    def last_shown(self) -> timedelta | None:
        """The offset of the last status line written (None before the first)."""
        return self._last_shown

    def show(
        self,
        sample: Sample,
        events: Sequence[TimelineEvent] = (),
        *,
        force: bool = False,
    ) -> list[str]:
        """Write what is due for ``sample`` and the events since the last call; return it."""
        lines = render_line(sample, events)
        if not self._due(sample, force):
            lines = lines[1:]
        for line in lines:
            self._write(line)
        return lines

    def _due(self, sample: Sample, force: bool) -> bool:
        """Whether ``sample``'s status is shown now (and, if so, remember it was)."""
        last = self._last_shown
        if not (force or last is None or sample.offset - last >= self._interval):
            return False
        self._last_shown = sample.offset
        return True

    def _write(self, line: str) -> None:
        if callable(self._out):
            self._out(line)
            return
        self._out.write(line + "\n")
        self._out.flush()
