"""Building blocks of ``describe`` output, in kubectl's ``describe.go`` layout.

Text is written as tab-separated cells into a ``DescribeWriter``; ``render`` aligns each
flushed segment with ``podscale.cli.printer.align_columns`` (kubectl's describe tabwriter:
padding 2). kubectl flushes before an events table but not before ``Events:  <none>``, which
is why that line aligns with the table above it; ``flush`` keeps that quirk. Shared pieces:
labels/annotations blocks, timestamps (RFC 1123 with numeric zone) and the events section.
Used by ``podscale.cli.describe_hpa`` and ``podscale.cli.describe``. Pure: ``now`` is passed.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Final

from podscale.apiserver.printing.format import age_since, parse_time
from podscale.cli.printer import align_columns

__all__ = [
    "SKIPPED_ANNOTATIONS",
    "DescribeWriter",
    "format_timestamp",
]

JSON = dict[str, Any]

# kubectl describe hides these annotations (describe.go skipAnnotations).
SKIPPED_ANNOTATIONS: Final = frozenset({"kubectl.kubernetes.io/last-applied-configuration"})


def format_timestamp(value: Any) -> str:
    """Go's ``time.RFC1123Z`` in the local zone, as kubectl prints CreationTimestamp."""
    moment = parse_time(value)
    if moment is None:
        return "<unset>"
    return moment.astimezone().strftime("%a, %d %b %Y %H:%M:%S %z")


class DescribeWriter:
    """kubectl's PrefixWriter over a flushable tabwriter; ``level`` indents by 2 spaces."""

    def __init__(self) -> None:
        self._segments: list[str] = []
        self._pending: list[str] = []

    def write(self, level: int, text: str) -> None:
        self._pending.append("  " * level + text)

    def flush(self) -> None:
        if self._pending:
            self._segments.append("".join(self._pending))
            self._pending = []

    def render(self) -> str:
        self.flush()
        return "".join(align_columns(s, padding=2) for s in self._segments)

    def write_map(self, title: str, values: Any, skip: frozenset[str] = frozenset()) -> None:
        """``Labels:``/``Annotations:`` blocks: sorted ``k=v`` (labels) lines or ``<none>``."""
        entries = (
            {str(k): str(v) for k, v in (values or {}).items() if str(k) not in skip}
            if isinstance(values, dict)
            else {}
        )
        separator = ": " if title.strip() == "Annotations" else "="
        if not entries:
            self.write(0, f"{title}:\t<none>\n")
            return
        for index, key in enumerate(sorted(entries)):
            lead = f"{title}:\t" if index == 0 else "\t"
            self.write(0, f"{lead}{key}{separator}{entries[key]}\n")

    def write_events(self, events: list[JSON], now: datetime) -> None:
        """The ``Events:`` section (kubectl's DescribeEvents), oldest first."""
        if not events:
            self.write(0, "Events:\t<none>\n")
            return
        self.flush()
        self.write(0, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n")
        self.write(1, "----\t------\t----\t----\t-------\n")
        for event in sorted(events, key=_event_time):
            source = (
                (event.get("source") or {}).get("component")
                or event.get("reportingComponent")
                or ""
            )
            message = " ".join(str(event.get("message") or "").split("\n")).strip()
            self.write(
                1,
                f"{event.get('type', '')}\t{event.get('reason', '')}\t"
                f"{_interval(event, now)}\t{source}\t{message}\n",
            )


def _event_time(event: JSON) -> datetime:
    moment = parse_time(event.get("lastTimestamp")) or parse_time(event.get("eventTime"))
    return moment or datetime.min.replace(tzinfo=UTC)


def _interval(event: JSON, now: datetime) -> str:
    first = age_since(event.get("eventTime"), now)
    if not event.get("eventTime"):
        first = age_since(event.get("firstTimestamp"), now)
    series = event.get("series")
    if isinstance(series, dict):
        last = age_since(series.get("lastObservedTime"), now)
        return f"{last} (x{series.get('count', 0)} over {first})"
    count = int(event.get("count") or 0)
    if count > 1:
        return f"{age_since(event.get('lastTimestamp'), now)} (x{count} over {first})"
    return first
