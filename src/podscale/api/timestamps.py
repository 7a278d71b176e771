"""RFC 3339 timestamps as Kubernetes writes them, and reading them back as aware datetimes.

``format_time`` is ``metav1.Time``'s JSON (whole seconds, UTC, ``Z``:
``2026-11-22T10:00:00Z``); ``format_micro_time`` is ``metav1.MicroTime``'s (six fraction
digits: ``2026-11-22T10:00:00.250000Z``). ``parse_time`` reads either, or any offset, with
Python 3.11's ``datetime.fromisoformat`` (which accepts ``Z``); a time without an offset is
taken as UTC, as every podscale writer means it. ``parse_time_or_none`` is the lenient
reading of optional fields (absent, not a string or not a time gives ``None``).

The store stamps objects with these (``podscale.store.objects``), the HPA's conditions and
status (``podscale.hpa.conditions``), the protobuf decoder (``podscale.apiserver``), the
controllers and the printers read them. Pure.
"""

from __future__ import annotations

import functools
from datetime import UTC, datetime
from typing import Any

__all__ = ["format_micro_time", "format_time", "parse_time", "parse_time_or_none"]


@functools.lru_cache(maxsize=1024)
def format_time(moment: datetime) -> str:
    """``metav1.Time``: RFC 3339 in whole seconds, UTC; a naive ``moment`` is UTC already.

    Cached: a controller formats the same few instants (``now``, transition times) over
    and over.
    """
    return _utc(moment).isoformat(timespec="seconds") + "Z"


def format_micro_time(moment: datetime) -> str:
    """``metav1.MicroTime``: RFC 3339 with six fraction digits, UTC."""
    return _utc(moment).isoformat(timespec="microseconds") + "Z"


def parse_time(text: str) -> datetime:
    """An RFC 3339 time as an aware datetime (naive taken as UTC); ``ValueError`` if not one."""
    parsed = datetime.fromisoformat(text)
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def parse_time_or_none(value: Any) -> datetime | None:
    """``parse_time`` of an optional field: ``None`` when absent, empty or not a time."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return parse_time(value)
    except ValueError:
        return None


def _utc(moment: datetime) -> datetime:
    # Without tzinfo, so that isoformat prints no offset and the caller appends ``Z``.
    return moment if moment.tzinfo is None else moment.astimezone(UTC).replace(tzinfo=None)
