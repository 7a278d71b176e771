"""Cell formatting shared by the server-side printers: ages, quantities, container lists.

The printers (``printing.pods``, ``printing.rows``, ``printing.hpa``) read objects as plain
Kubernetes JSON, which may be partial or malformed: every accessor here tolerates a missing or
mistyped field and answers the zero value upstream's typed structs would hold. Ages follow
apimachinery's ``duration.HumanDuration`` and the printers' ``translateTimestampSince``;
``now`` is always passed in, never read from a clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from podscale.api.quantity import parse_quantity
from podscale.api.timestamps import parse_time_or_none

__all__ = [
    "UNKNOWN",
    "age_since",
    "as_int",
    "as_str",
    "dicts_at",
    "format_quantity",
    "human_duration",
    "layout_containers",
    "parse_time",
    "since",
    "value_at",
]

JSON = dict[str, Any]

# What upstream prints for a zero timestamp (and what we print for an unparseable one).
UNKNOWN: Final = "<unknown>"

_MICROS_PER_SECOND: Final = 1_000_000
_MICROS_PER_MINUTE: Final = 60 * _MICROS_PER_SECOND
_MICROS_PER_HOUR: Final = 60 * _MICROS_PER_MINUTE


def value_at(obj: Any, *path: str) -> Any:
    """The value under ``path`` in nested dicts, or None when any step is missing."""
    current = obj
    for key in path:
        if not isinstance(current, Mapping):
            return None
        current = current.get(key)
    return current


def as_str(value: Any) -> str:
    """A string field's value; "" (Go's zero value) for anything that is not a string."""
    return value if isinstance(value, str) else ""


def as_int(value: Any, default: int = 0) -> int:
    """An integer field's value; ``default`` for a missing or non-integer value."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    return int(value)


def dicts_at(obj: Any, *path: str) -> list[JSON]:
    """The list under ``path``, keeping only its object entries (malformed ones are skipped)."""
    value = value_at(obj, *path)
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, dict)]


def parse_time(value: Any) -> datetime | None:
    """An RFC 3339 ``Time``/``MicroTime`` as an aware datetime; None for absent or invalid."""
    return parse_time_or_none(value)


def age_since(value: Any, now: datetime) -> str:
    """``translateTimestampSince``: the human age of a timestamp, ``<unknown>`` when unset."""
    then = parse_time(value)
    return UNKNOWN if then is None else since(then, now)


def since(then: datetime, now: datetime) -> str:
    """The human duration from ``then`` to ``now``; a naive ``now`` is taken as UTC."""
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    return human_duration(now - then)


def human_duration(elapsed: timedelta) -> str:
    """apimachinery ``HumanDuration``: about two significant figures ("5m2s", "2d3h", "3y45d").

    A clock skew of up to a second in the future reads as "0s"; more is ``<invalid>``.
    """
    micros = elapsed // timedelta(microseconds=1)
    # Go converts with int(), which truncates toward zero, also for negative durations.
    seconds = -(-micros // _MICROS_PER_SECOND) if micros < 0 else micros // _MICROS_PER_SECOND
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 120:
        return f"{seconds}s"
    minutes = micros // _MICROS_PER_MINUTE
    if minutes < 10:
        rest = seconds % 60
        return f"{minutes}m{rest}s" if rest else f"{minutes}m"
    if minutes < 180:
        return f"{minutes}m"
    hours = micros // _MICROS_PER_HOUR
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h{rest}m" if rest else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    days = hours // 24
    if hours < 24 * 8:
        rest = hours % 24
        return f"{days}d{rest}h" if rest else f"{days}d"
    if hours < 24 * 365 * 2:
        return f"{days}d"
    years = days // 365
    if hours < 24 * 365 * 8:
        rest = days % 365
        return f"{years}y{rest}d" if rest else f"{years}y"
    return f"{years}y"


def format_quantity(value: Any) -> str:
    """A quantity as upstream's ``Quantity.String()`` prints it after decoding.

    None stands for Go's nil ``*Quantity``, which prints ``<nil>``; a value that does not
    parse (validation keeps those out of storage) is shown as given.
    """
    if value is None:
        return "<nil>"
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return str(value)
    try:
        return str(parse_quantity(value))
    except ValueError:  # QuantityError included
        return str(value)


def layout_containers(pod_spec: Any) -> tuple[str, str]:
    """The Containers and Images cells: comma-joined names and images, in spec order."""
    containers = dicts_at(pod_spec, "containers")
    names = ",".join(as_str(container.get("name")) for container in containers)
    images = ",".join(as_str(container.get("image")) for container in containers)
    return names, images
