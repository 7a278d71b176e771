"""A parsed schedule and its next fire time, stepping wall time as the go cron libraries do.

`Schedule.next_after` answers "the first fire time strictly after this instant", at one
second resolution, searching at most into the fifth year after the instant's year (then
None, where Go returns the zero time). The search is the field-by-field walk of
robfig/cron's `SpecSchedule.Next` (month, then day, hour, minute, second; a wrap re-checks
the earlier fields), done on Unix seconds with `podscale.cron.gotime` so that daylight
saving time comes out as in Go:
- a wall time that a spring-forward skips is not a fire time (hours are stepped in
  absolute time, so the skipped hour is never seen);
- a wall time that a fall-back repeats fires twice, once per offset;
- robfig/cron v3 ("standard") also corrects the day step when a transition moves
  midnight (zones whose DST starts at 00:00); the older code the CronHPA controller's
  go-cron fork carries ("cronhpa") does not, so that dialect lands on 01:00 instead.
The day rule (`_day_matches`): if day-of-month or day-of-week carries the star bit,
both must match; otherwise either may.

`@every d` is a constant delay with no origin of its own: the next fire time after an
instant is the instant, truncated to the second, plus `d` (whole seconds, at least one),
as robfig's `ConstantDelaySchedule`; the five-year limit does not apply to it.
Built by `podscale.cron.parse`; `podscale.cron.window` asks it for fire times.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal
from zoneinfo import ZoneInfo

from podscale.cron import gotime
from podscale.cron.fields import STAR_BIT, Dialect


@dataclass(frozen=True)
class Schedule:
    """What `parse` read from one spec; `kind` says which of the two shapes it is."""

    spec: str
    dialect: Dialect
    kind: Literal["fields", "every"]
    second: int = 0  # bit sets, bit i set when value i fires (plus STAR_BIT, see fields)
    minute: int = 0
    hour: int = 0
    day_of_month: int = 0
    month: int = 0
    day_of_week: int = 0
    delay_seconds: int = 0  # for kind == "every"
    zone_name: str | None = None  # CRON_TZ=/TZ= prefix of the standard dialect

    def next_after(self, instant: dt.datetime, zone: ZoneInfo) -> dt.datetime | None:
        """The first fire time strictly after `instant` (aware, UTC), or None within 5 years.

        `zone` is the zone the fields are read in, unless the spec named its own zone.
        """
        unix = gotime.unix_floor(instant)
        if self.kind == "every":
            return gotime.to_utc(unix + self.delay_seconds)
        found = self._next_unix(unix, ZoneInfo(self.zone_name) if self.zone_name else zone)
        return None if found is None else gotime.to_utc(found)

    def _next_unix(self, unix: int, zone: ZoneInfo) -> int | None:
        t = unix + 1
        added = False
        year_limit = gotime.wall(t, zone).year + 5
        while True:  # each pass is Go's WRAP label
            w = gotime.wall(t, zone)
            if w.year > year_limit:
                return None
            wrapped = False
            while not (1 << w.month) & self.month:
                if not added:
                    added = True
                    t = gotime.date(w.year, w.month, 1, 0, 0, 0, zone)
                t = gotime.add_date(t, zone, months=1)
                w = gotime.wall(t, zone)
                if w.month == 1:
                    wrapped = True
                    break
            if wrapped:
                continue
            while not self._day_matches(w):
                if not added:
                    added = True
                    t = gotime.date(w.year, w.month, w.day, 0, 0, 0, zone)
                t = gotime.add_date(t, zone, days=1)
                w = gotime.wall(t, zone)
                if self.dialect == "standard" and w.hour != 0:
                    # v3 only: midnight skipped or repeated by DST; pull back to 00:00.
                    t += (24 - w.hour) * 3600 if w.hour > 12 else -w.hour * 3600
                    w = gotime.wall(t, zone)
                if w.day == 1:
                    wrapped = True
                    break
            if wrapped:
                continue
            while not (1 << w.hour) & self.hour:
                if not added:
                    added = True
                    t = gotime.date(w.year, w.month, w.day, w.hour, 0, 0, zone)
                t += 3600
                w = gotime.wall(t, zone)
                if w.hour == 0:
                    wrapped = True
                    break
            if wrapped:
                continue
            while not (1 << w.minute) & self.minute:
                if not added:
                    added = True
                    t = gotime.truncate(t, 60)
                t += 60
                w = gotime.wall(t, zone)
                if w.minute == 0:
                    wrapped = True
                    break
            if wrapped:
                continue
            while not (1 << w.second) & self.second:
                if not added:
                    added = True
                    t = gotime.truncate(t, 1)
                t += 1
                w = gotime.wall(t, zone)
                if w.second == 0:
                    wrapped = True
                    break
            if wrapped:
                continue
            return t

    def _day_matches(self, w: gotime.Wall) -> bool:
        dom_match = bool((1 << w.day) & self.day_of_month)
        dow_match = bool((1 << w.weekday) & self.day_of_week)
        if (self.day_of_month | self.day_of_week) & STAR_BIT:
            return dom_match and dow_match
        return dom_match or dow_match
