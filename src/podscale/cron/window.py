"""Whether an instant fires, and whether a [start, end) window is active, per system.

Both window rules look only at the next start and the next end strictly after `now`:
a window is running when the end comes before the next start.
- KEDA's cron scaler (and Crane, which follows it) compares the two as Unix seconds:
  inactive when the next start is before the next end (and still ahead), else active
  while `now` is not past the next end. So equal instants count as active, and a
  schedule that never fires (Go's zero time, year 1) sorts before every real time.
- Kapacity calls the window active only when the next start is strictly after the next
  end: equal instants are inactive. A schedule that never fires is the zero time too.
Uses `podscale.cron.schedule.Schedule.next_after`; `podscale.controllers` call these.
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from podscale.cron import gotime
from podscale.cron.schedule import Schedule

# time.Time{}.Unix(): what a Go schedule that finds nothing reports to these systems.
_GO_ZERO_UNIX = -62135596800


def fires_at(schedule: Schedule, instant: dt.datetime, zone: ZoneInfo) -> bool:
    """Whether `instant` is a fire time: a whole second that `next_after` of the second
    before it returns. For `@every d` that holds only when d is one second, since such a
    schedule has no fire times of its own (they count from whoever asks)."""
    unix = gotime.unix_floor(instant)
    if instant.microsecond:
        return False
    found = schedule.next_after(gotime.to_utc(unix - 1), zone)
    return found is not None and gotime.unix_floor(found) == unix


def _next_unix(schedule: Schedule, now: dt.datetime, zone: ZoneInfo) -> int:
    found = schedule.next_after(now, zone)
    return _GO_ZERO_UNIX if found is None else gotime.unix_floor(found)


def window_active_keda(start: Schedule, end: Schedule, now: dt.datetime, zone: ZoneInfo) -> bool:
    """KEDA's cron trigger: active from a start fire time until just before the end one."""
    current = gotime.unix_floor(now)
    next_start = _next_unix(start, now, zone)
    next_end = _next_unix(end, now, zone)
    if next_start < next_end and current < next_start:
        return False
    return current <= next_end


def window_active_kapacity(
    start: Schedule, end: Schedule, now: dt.datetime, zone: ZoneInfo
) -> bool:
    """Kapacity's cron portrait: active when the next start is strictly after the next end."""
    return _next_unix(start, now, zone) > _next_unix(end, now, zone)
