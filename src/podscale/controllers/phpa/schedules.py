"""Which ``spec.schedules[]`` window of a PredictiveHorizontalPodAutoscaler is active now.

A window is the set of minutes its cron expression matches in its time zone: a minute
belongs to it when the schedule fires at any second of that minute (``podscale.cron``'s
``Schedule.next_after``, which walks daylight saving time as the Go libraries do). Five
fields are robfig/cron v3's standard dialect (``* 8-19 * * 1-5``, optionally after a
``CRON_TZ=``/``TZ=`` prefix, which then overrides ``timeZone``; descriptors such as
``@daily`` too); six are the CronHPA's go-cron fork with a seconds field first.
``active_bounds`` gives the first matching window in list order (earlier windows win where
they overlap). Pure: ``validation`` checks the same parse, ``decisions`` and ``controller``
(the engine) call ``active_bounds`` with the injected clock's ``now``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Final
from zoneinfo import ZoneInfo

from podscale.controllers.phpa.types import Schedule
from podscale.cron import Dialect, parse
from podscale.cron import Schedule as CronSchedule

__all__ = ["active_bounds", "cron_dialect", "parse_window", "window_matches"]

# Go's strings.Fields separators, as podscale.cron splits.
_SPACE: Final = re.compile(
    "[\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+"
)
_MINUTE: Final = timedelta(minutes=1)
_SECOND: Final = timedelta(seconds=1)


def cron_dialect(cron: str) -> Dialect:
    """``cronhpa`` for six fields (seconds first), ``standard`` otherwise (five fields, a
    ``CRON_TZ=`` prefix, a descriptor); a wrong count is then reported by the parse."""
    parts = [part for part in _SPACE.split(cron) if part]
    if parts and parts[0].startswith(("TZ=", "CRON_TZ=")):
        parts = parts[1:]
    return "cronhpa" if len(parts) == 6 and not cron.startswith("@") else "standard"


def parse_window(cron: str) -> CronSchedule:
    """The window's schedule in its dialect; ``podscale.cron.CronError`` if it does not parse."""
    return parse(cron, cron_dialect(cron))


def window_matches(schedule: CronSchedule, zone: ZoneInfo, now: datetime) -> bool:
    """Whether the minute holding ``now`` (aware) is one the schedule fires in."""
    start = now.astimezone(UTC).replace(second=0, microsecond=0)
    # next_after is strictly after: from the second before the minute, so its first
    # second counts.
    found = schedule.next_after(start - _SECOND, zone)
    return found is not None and found < start + _MINUTE


def active_bounds(
    schedules: Sequence[Schedule], now: datetime
) -> tuple[str, int | None, int | None] | None:
    """``(name, minReplicas, maxReplicas)`` of the first window active at ``now`` (aware),
    None bounds where the window leaves the spec's; None when no window is active. A window
    whose cron or zone does not load (validation refuses those) is never active."""
    for window in schedules:
        try:
            schedule = parse_window(window.cron)
            zone = ZoneInfo(window.time_zone)
        except (ValueError, KeyError, OSError):  # CronError, unknown zones, bad zone keys
            continue
        if window_matches(schedule, zone, now):
            return window.name, window.min_replicas, window.max_replicas
    return None
