"""How the kubelet renders a container log for ``pods/log``: which lines, in which form.

Pure helpers of ``container_logs.ContainerLogs``, following the kubelet's log reader:
``tailLines`` picks the last N lines of the log first, then ``sinceSeconds``/``sinceTime``
skip the lines stamped before the cut-off (a line at exactly the cut-off stays);
``timestamps`` prefixes each line with its time in RFC 3339 with nine fixed fractional
digits and a space; ``limitBytes`` stops the output after that many bytes, even in the
middle of a line, across everything a follow streams (``LogBudget``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from podscale.apiserver.operations.pod_log_options import PodLogOptions

__all__ = ["LogBudget", "format_timestamp", "render_lines", "select_lines"]

Line = tuple[datetime, str]


@dataclass
class LogBudget:
    """The bytes a response may still carry; ``limit`` None is unbounded."""

    limit: int | None
    used: int = 0

    @property
    def spent(self) -> bool:
        return self.limit is not None and self.used >= self.limit

    def take(self, data: bytes) -> bytes:
        if self.limit is not None:
            data = data[: max(0, self.limit - self.used)]
        self.used += len(data)
        return data


def format_timestamp(moment: datetime) -> str:
    """``2026-03-01T00:00:05.000000000Z``: the kubelet's fixed-width RFC 3339 nanoseconds."""
    utc = moment.astimezone(UTC)
    return f"{utc:%Y-%m-%dT%H:%M:%S}.{utc.microsecond * 1000:09d}Z"


def select_lines(lines: Sequence[Line], options: PodLogOptions, now: datetime) -> list[Line]:
    """The lines a request starts with: the tail, then those not older than the cut-off."""
    chosen = list(lines)
    if options.tail_lines is not None:
        chosen = chosen[len(chosen) - options.tail_lines :] if options.tail_lines else []
    since = options.since_time
    if options.since_seconds is not None:
        since = now - timedelta(seconds=options.since_seconds)
    if since is not None:
        chosen = [line for line in chosen if line[0] >= since]
    return chosen


def render_lines(lines: Sequence[Line], timestamps: bool, budget: LogBudget) -> bytes:
    """``lines`` as the response bytes (each ending in a newline), within ``budget``."""
    if not lines:
        return b""
    if timestamps:
        text = "".join(f"{format_timestamp(at)} {line}\n" for at, line in lines)
    else:
        text = "".join(f"{line}\n" for _, line in lines)
    return budget.take(text.encode())
