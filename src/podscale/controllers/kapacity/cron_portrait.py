"""The Cron portrait provider: which replica cron rule is active now, and until when.

Each rule has a name, a `start` and an `end` standard cron spec (robfig/cron v3's
five fields, optionally `CRON_TZ=`-prefixed), a time zone (default UTC) and a replica
count. As Kapacity's cron provider reads them, a rule is active when its next start
fire time is strictly after its next end fire time (`podscale.cron.
window_active_kapacity`), and the value it offers expires at that next end. A spec that
never fires again counts as Go's zero time: a rule whose end never fires again stays
active with no expiry (Kapacity's zero expire time reads as "never expires"). Two rules
active at once are an error, as are an unknown zone or a bad spec; the messages are
Kapacity's. The result feeds `podscale.controllers.kapacity.portraits.merge_portraits`.
Pure: `now` is a parameter; zone data comes from `zoneinfo`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from podscale.controllers.kapacity import validation
from podscale.controllers.kapacity.portraits import CRON_PROVIDER, PortraitValue
from podscale.cron import CronError, Schedule, parse, window_active_kapacity
from podscale.cron.gotime import go_quote

_UTC = ZoneInfo("UTC")


class CronPortraitError(ValueError):
    """A rule the provider cannot evaluate; `str()` is Kapacity's message for it."""


@dataclass(frozen=True)
class ReplicaCron:
    name: str
    start: str
    end: str
    replicas: int
    time_zone: str = "UTC"


def load_zone(name: str) -> ZoneInfo:
    """``validation.load_zone`` with UTC as "Local" (podscale has no host zone), its error
    as a ``CronPortraitError``."""
    try:
        return validation.load_zone(name, _UTC)
    except ValueError as exc:
        raise CronPortraitError(str(exc)) from None


def cron_portrait(rules: Sequence[ReplicaCron], now: dt.datetime) -> PortraitValue | None:
    """The active rule's value (expiring at its next end), or None when none is active."""
    active: ReplicaCron | None = None
    expire: dt.datetime | None = None
    for rule in rules:
        try:
            zone = load_zone(rule.time_zone)
        except CronPortraitError as exc:
            raise CronPortraitError(
                f"failed to load time zone of cron {go_quote(rule.name)}: {exc}"
            ) from exc
        start = _parse(rule, "start", rule.start)
        end = _parse(rule, "end", rule.end)
        if not window_active_kapacity(start, end, now, zone):
            continue
        if active is not None:
            raise CronPortraitError(
                f"found overlapping cron {go_quote(active.name)} and {go_quote(rule.name)}"
            )
        active, expire = rule, end.next_after(now, zone)
    if active is None:
        return None
    return PortraitValue(provider=CRON_PROVIDER, replicas=active.replicas, expire_time=expire)


def _parse(rule: ReplicaCron, which: str, spec: str) -> Schedule:
    try:
        return parse(spec, "standard")
    except CronError as exc:
        raise CronPortraitError(
            f"failed to check active for cron {go_quote(rule.name)}: "
            f"failed to parse {which} cron {go_quote(spec)}: {exc.message}"
        ) from exc
