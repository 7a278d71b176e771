"""Cron schedules as the Kubernetes scaling ecosystem reads them: pure, no clock, no I/O.

`parse(spec, dialect)` gives a `Schedule` ("cronhpa": the CronHPA controller's go-cron
fork, six fields with seconds; "standard": robfig/cron v3's five fields, as KEDA, Crane
and Kapacity use); `Schedule.next_after(instant, zone)` the next fire time; `fires_at`
and the two window rules build on it. Modules: `parse` (spec text), `fields` (one
field's bit set), `schedule` (the next-time walk), `gotime` (Go's time arithmetic that
the walk needs for daylight saving time), `window`, `errors`. docs/cron.md has the rules.

Not croniter: no seconds-first form, `@every` or `@date`, no star bit in its day rule,
and DST gaps and overlaps resolved as Python does them rather than as Go's `time.Date`.
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
