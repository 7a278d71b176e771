"""Go durations (``"30s"``, ``"5m"``, ``"1h30m"``, ``"1.5h"``) to and from ``timedelta``.

``parse_go_duration`` is Go's ``time.ParseDuration``: an optional sign, then one or more
``<decimal><unit>`` parts with units ``ns``, ``us`` (``µs``, ``μs``), ``ms``, ``s``, ``m``,
``h``; a bare ``"0"`` is allowed; a rejected string raises ``DurationError`` with Go's
message. ``format_go_duration`` is Go's ``Duration.String`` (``0s``, ``500ms``, ``1m0s``,
``1h2m3.5s``). Python's ``timedelta`` counts microseconds, so parsed nanoseconds are rounded
to the nearest microsecond. Users: scenario files and CLI flags (``podscale.scenario``,
``podscale.cli``), the HPA's metrics windows (``podscale.controllers.hpa.metrics_values``),
metrics-server's ``window`` (``podscale.metrics.server.render``) and the kubelet's back-off
messages (``podscale.runtime``). Pure.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Final

__all__ = ["DurationError", "format_go_duration", "parse_go_duration"]

_NANOS_PER_UNIT: Final = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,  # U+00B5 micro sign
    "μs": 1_000,  # U+03BC Greek mu
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60 * 1_000_000_000,
    "h": 3600 * 1_000_000_000,
}
# Go durations are int64 nanoseconds.
_MAX_NANOS: Final = 2**63 - 1
_SECOND_NS: Final = 1_000_000_000


class DurationError(ValueError):
    """A string Go's ``time.ParseDuration`` rejects; the message is Go's."""


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _take(text: str, start: int, accept: str) -> int:
    end = start
    while end < len(text) and text[end] in accept:
        end += 1
    return end


def parse_go_duration(text: str) -> timedelta:
    """Parse like Go's ``time.ParseDuration``; raises ``DurationError`` with Go's message."""
    invalid = DurationError(f"time: invalid duration {_quote(text)}")
    rest = text
    negative = False
    if rest[:1] in ("-", "+"):
        negative = rest[0] == "-"
        rest = rest[1:]
    if rest == "0":
        return timedelta(0)
    if not rest:
        raise invalid
    total = Decimal(0)
    position = 0
    while position < len(rest):
        digits_end = _take(rest, position, "0123456789")
        whole = rest[position:digits_end]
        fraction = ""
        if digits_end < len(rest) and rest[digits_end] == ".":
            fraction_end = _take(rest, digits_end + 1, "0123456789")
            fraction = rest[digits_end + 1 : fraction_end]
            digits_end = fraction_end
        if not whole and not fraction:
            raise invalid
        unit_end = digits_end
        while unit_end < len(rest) and rest[unit_end] not in ".0123456789":
            unit_end += 1
        unit = rest[digits_end:unit_end]
        if not unit:
            raise DurationError(f"time: missing unit in duration {_quote(text)}")
        if unit not in _NANOS_PER_UNIT:
            raise DurationError(f"time: unknown unit {_quote(unit)} in duration {_quote(text)}")
        total += Decimal(f"{whole or '0'}.{fraction or '0'}") * _NANOS_PER_UNIT[unit]
        if total > _MAX_NANOS:
            raise invalid
        position = unit_end
    # Go truncates fractional nanoseconds; timedelta then rounds to microseconds.
    nanos = int(total)
    return timedelta(microseconds=(-nanos if negative else nanos) / 1000)


def _fraction(value: int, digits: int) -> str:
    """``value`` / 10**digits with trailing zeros (and a bare point) dropped."""
    whole, rest = divmod(value, 10**digits)
    if rest == 0:
        return str(whole)
    return f"{whole}.{rest:0{digits}d}".rstrip("0")


def format_go_duration(value: timedelta) -> str:
    """Go's ``time.Duration.String`` (to the microsecond a timedelta holds): ``0s``,
    ``500ms``, ``1.5µs``, ``15s``, ``14.999s``, ``1m0s``, ``1h2m3.5s``."""
    nanos = ((value.days * 86_400 + value.seconds) * 1_000_000 + value.microseconds) * 1000
    sign = "-" if nanos < 0 else ""
    nanos = abs(nanos)
    if nanos == 0:
        return "0s"
    if nanos < _SECOND_NS:
        for unit, digits in (("ms", 6), ("µs", 3)):
            if nanos >= 10**digits:
                return f"{sign}{_fraction(nanos, digits)}{unit}"
        return f"{sign}{nanos}ns"
    text = f"{_fraction(nanos % (60 * _SECOND_NS), 9)}s"
    minutes = nanos // (60 * _SECOND_NS)
    if minutes:
        hours, minutes = divmod(minutes, 60)
        text = f"{minutes}m{text}"
        if hours:
            text = f"{hours}h{text}"
    return sign + text
