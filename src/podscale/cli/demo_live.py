"""The terminal view of ``podscale demo``: a ``rich`` live table of the latest samples.

``LiveView`` (``podscale.demo.view``) writes plain lines, for pipes and ``--no-color``.
On a terminal ``demo_command`` uses ``RichLiveView`` instead: the same throttle in virtual
time, but the samples shown so far (the last ``rows`` of them) stay in a ``rich.live.Live``
table at the bottom of the screen, with the HPA's first metric (its TARGETS cell and
bar) coloured by the tolerance band (red above, cyan below, green within), while the HPA's
events print above it and scroll.
``rich`` sizes the table to the console, so it stays readable in an 80-column terminal.

Imported only when the demo runs on a terminal, so the CLI's start does not load ``rich``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from datetime import timedelta
from types import TracebackType
from typing import Final

from rich.console import Console
from rich.live import Live
from rich.table import Table
from rich.text import Text

from podscale.demo.timeline import Sample, TimelineEvent, format_offset
from podscale.demo.view import (
    LiveView,
    event_head,
    metric_bar,
    render_line,
    targets_text,
    utilization_band,
)

__all__ = ["RichLiveView"]

_BAND_STYLE: Final = {1: "red", 0: "green", -1: "cyan"}
# (header, minimum width): the widths of ``mm:ss``, loads to 99999.9 and percentages to 999%.
_FIXED_COLUMNS: Final = (
    ("time", 5),
    ("load/s", 7),
    ("cpu", 4),
    ("desired", 7),
    ("current", 7),
    ("ready", 5),
)


class RichLiveView(LiveView):
    """A ``LiveView`` drawing on a ``rich`` console; use it as a context manager."""

    def __init__(
        self,
        console: Console,
        *,
        interval: timedelta = timedelta(seconds=15),
        tolerance: float = 0.1,
        rows: int = 10,
    ) -> None:
        super().__init__(_discard, interval=interval, tolerance=tolerance)
        self._console = console
        self._rows: deque[Sample] = deque(maxlen=rows)
        self._live = Live(self._table(), console=console, auto_refresh=False)

    def __enter__(self) -> RichLiveView:
        self._live.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._live.stop()

    def show(
        self,
        sample: Sample,
        events: Sequence[TimelineEvent] = (),
        *,
        force: bool = False,
    ) -> list[str]:
        """Print the events above the table and, when due, add ``sample`` to it; return the
        plain lines ``LiveView`` would have written."""
        lines = render_line(sample, events)
        for event in events:
            self._live.console.print(self._event(event))
        if not self._due(sample, force):
            return lines[1:]
        self._rows.append(sample)
        self._live.update(self._table(), refresh=True)
        return lines

    def _event(self, event: TimelineEvent) -> Text:
        style = "yellow" if event.type == "Warning" else "bold"
        return Text.assemble(
            (f"{format_offset(event.offset)}  ", ""),
            (event_head(event), style),
            f": {event.message}",
        )

    def _table(self) -> Table:
        table = Table(box=None, pad_edge=False, header_style="bold")
        # The numbers and the TARGETS cells keep their width; on a narrow console the bar
        # (last) is cropped first.
        for header, width in _FIXED_COLUMNS:
            table.add_column(header, justify="right", no_wrap=True, min_width=width)
        cells = [targets_text(sample) for sample in self._rows]
        widest = max((len(cell) for cell in cells), default=0)
        table.add_column("targets", no_wrap=True, min_width=max(7, widest))
        table.add_column("vs target", no_wrap=True, overflow="crop")
        for sample in self._rows:
            style = _BAND_STYLE[utilization_band(sample, self._tolerance)]
            known = sample.utilization is not None
            table.add_row(
                format_offset(sample.offset),
                f"{sample.load:.1f}",
                f"{sample.utilization:.0f}%" if known else "--%",
                str(sample.desired_replicas),
                str(sample.current_replicas),
                str(sample.ready_replicas),
                Text(targets_text(sample), style),
                Text(metric_bar(sample), style),
            )
        return table


def _discard(_line: str) -> None:
    """The base class's writer: this view draws on its console instead."""
