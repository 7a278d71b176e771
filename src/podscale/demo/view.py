"""The live terminal view of ``podscale demo``: one status line per sample, event lines.

``render_line`` turns a ``Sample`` (``podscale.demo.timeline``) and the events since the
previous call into lines: virtual time (``mm:ss``), offered load, CPU utilization with a
small bar against the target, and desired/current/ready replicas, each column at a fixed
width so the lines stack into a table; then one line per event. ``LiveView`` writes them
to a text stream (or a ``click.echo``-like callable) while the demo driver runs, at most
one status line per ``interval`` of virtual time; event lines are never held back.

Colour is an ANSI decoration for terminals only: without it (the default, and whenever
the stream is not a TTY) the output is plain ASCII with no escape sequences.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Final, TextIO

from podscale.demo.timeline import Sample, TimelineEvent, format_offset

__all__ = ["BAR_CELLS", "LiveView", "render_bar", "render_line"]

# Cells on each side of the target marker: the bar spans 0 to twice the target.
BAR_CELLS: Final = 10

_RESET: Final = "\x1b[0m"
_BOLD: Final = "\x1b[1m"
_RED: Final = "\x1b[31m"
_GREEN: Final = "\x1b[32m"
_YELLOW: Final = "\x1b[33m"
_CYAN: Final = "\x1b[36m"


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


def _paint(text: str, code: str, color: bool) -> str:
    return f"{code}{text}{_RESET}" if color else text


def _utilization_color(sample: Sample, tolerance: float) -> str:
    assert sample.utilization is not None
    ratio = sample.utilization / sample.target_utilization if sample.target_utilization else 1.0
    if ratio > 1 + tolerance:
        return _RED
    if ratio < 1 - tolerance:
        return _CYAN
    return _GREEN


def _status_line(sample: Sample, tolerance: float, color: bool) -> str:
    known = sample.utilization is not None
    utilization = f"{sample.utilization:4.0f}%" if known else "  --%"
    bar = render_bar(sample.utilization, sample.target_utilization)
    if color and sample.utilization is not None:
        code = _utilization_color(sample, tolerance)
        utilization = _paint(utilization, code, color)
        bar = _paint(bar, code, color)
    return (
        f"{format_offset(sample.offset)}  load {sample.load:8.1f} req/s"
        f"  cpu {utilization} {bar} target {sample.target_utilization:3d}%"
        f"  desired {sample.desired_replicas:3d}  current {sample.current_replicas:3d}"
        f"  ready {sample.ready_replicas:3d}"
    )


def _event_line(event: TimelineEvent, color: bool) -> str:
    warning = event.type == "Warning"
    mark = "!" if warning else "*"
    head = _paint(f"{mark} {event.reason}", _YELLOW if warning else _BOLD, color)
    return f"{format_offset(event.offset)}  {head}: {event.message}"


def render_line(
    sample: Sample,
    events_since_last: Sequence[TimelineEvent] = (),
    *,
    tolerance: float = 0.1,
    color: bool = False,
) -> list[str]:
    """The status line for ``sample``, then one line per event, in the order given.

    With ``color`` the utilization is red above ``target * (1 + tolerance)``, cyan below
    ``target * (1 - tolerance)`` and green within, and event reasons are highlighted.
    """
    lines = [_status_line(sample, tolerance, color)]
    lines.extend(_event_line(event, color) for event in events_since_last)
    return lines


class LiveView:
    """Writes the demo's progress as it happens, throttled in virtual time.

    ``out`` is a text stream (``sys.stdout``, ``click.get_text_stream("stdout")``) or a
    callable taking one line, such as ``click.echo``. ``color=None`` means colour exactly
    when ``out`` is a stream attached to a TTY. A status line is written for the first
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
        color: bool | None = None,
    ) -> None:
        if interval < timedelta(0):
            raise ValueError(f"interval must not be negative, got {interval}")
        self._out = out
        self._interval = interval
        self._tolerance = tolerance
        self._color = _is_tty(out) if color is None else color
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
        lines = render_line(sample, events, tolerance=self._tolerance, color=self._color)
        due = (
            force or self._last_shown is None or sample.offset - self._last_shown >= self._interval
        )
        if due:
            self._last_shown = sample.offset
        else:
            lines = lines[1:]
        for line in lines:
            self._write(line)
        return lines

    def _write(self, line: str) -> None:
        if callable(self._out):
            self._out(line)
            return
        self._out.write(line + "\n")
        self._out.flush()


def _is_tty(out: TextIO | Callable[[str], object]) -> bool:
    isatty = getattr(out, "isatty", None)
    return bool(isatty()) if callable(isatty) and not callable(out) else False
