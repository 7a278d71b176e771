"""Go duration strings (``"30s"``, ``"5m"``, ``"1h30m"``, ``"1.5h"``) as ``timedelta``.

Scenario files (``podscale.scenario.loader``) spell every time this way, as Kubernetes
configuration does. The grammar and the error messages follow Go's ``time.ParseDuration``:
an optional sign, then one or more ``<decimal><unit>`` parts with units ``ns``, ``us``
(``µs``, ``μs``), ``ms``, ``s``, ``m``, ``h``; a bare ``"0"`` is allowed. Python's
``timedelta`` counts microseconds, so nanoseconds are rounded to the nearest microsecond.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Final

__all__ = ["DurationError", "parse_go_duration"]

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
