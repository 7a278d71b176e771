"""Cron schedules as the Kubernetes scaling ecosystem reads them: pure, no clock, no I/O.

`parse(spec, dialect)` gives a `Schedule` ("cronhpa": the CronHPA controller's go-cron
fork, six fields with seconds; "standard": robfig/cron v3's five fields, as KEDA, Crane
and Kapacity use); `Schedule.next_after(instant, zone)` the next fire time; `fires_at`
and the two window rules build on it. Modules: `parse` (spec text), `fields` (one
field's bit set), `schedule` (the next-time walk), `gotime` (Go's time arithmetic that
the walk needs for daylight saving time), `window`, `errors`. docs/cron.md has the rules.

No cron library from PyPI is used: croniter, the common one, has no seconds-first
six-field form or `@every`/`@date`, ORs day-of-month and day-of-week unless told
otherwise (and ignores the star bit that robfig/cron keys on), and normalises DST gaps
and overlaps with Python's datetime instead of Go's `time.Date`, so its answers differ
from the Go libraries' at exactly the points that matter here.
"""

from podscale.cron.errors import CronError
from podscale.cron.fields import Dialect
from podscale.cron.parse import parse
from podscale.cron.schedule import Schedule
from podscale.cron.window import fires_at, window_active_kapacity, window_active_keda

__all__ = [
    "CronError",
    "Dialect",
    "Schedule",
    "fires_at",
    "parse",
    "window_active_kapacity",
    "window_active_keda",
]
