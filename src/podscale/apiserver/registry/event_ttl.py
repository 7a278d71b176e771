"""Events expire an hour after they were last written, as kube-apiserver's ``--event-ttl``.

kube-apiserver stores each Event under an etcd lease of ``--event-ttl`` (default 1 h) renewed
by every write, so Events vanish on their own (watchers see them DELETED) and ``kubectl get
events`` only ever shows the recent past. Without it a long simulation piles up Events, and
every reader that lists them (snapshots, ``kubectl get events``) pays for the whole history.

``expired_events`` is the pure part: an Event's last write is the latest of its creation and
its observation times (``lastTimestamp``, ``eventTime``, ``series.lastObservedTime``), which
the recorders set on each write. ``expire_events`` is the shell ``podscale.plane`` runs next
to the API server: every ``period`` on the injected clock it deletes what has expired,
straight from the store, as the lease expiry does (no admission, no finalizers).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any, Final

from podscale.api.timestamps import parse_time_or_none
from podscale.store.interface import Clock, NotFoundError, Store

__all__ = ["DEFAULT_EVENT_TTL", "EVENTS", "expire_events", "expired_events", "last_written"]

# kube-apiserver's --event-ttl default.
DEFAULT_EVENT_TTL: Final = timedelta(hours=1)
# Core and events.k8s.io Events share this storage, as upstream's do.
EVENTS: Final = "events"
_PERIOD: Final = timedelta(minutes=1)


def last_written(event: Mapping[str, Any]) -> datetime | None:
    """When ``event`` was last written, as far as its own fields tell."""
    metadata = event.get("metadata") or {}
    series = event.get("series") or {}
    times = [
        parse_time_or_none(metadata.get("creationTimestamp")),
        parse_time_or_none(event.get("lastTimestamp")),
        parse_time_or_none(event.get("eventTime")),
        parse_time_or_none(series.get("lastObservedTime") if isinstance(series, dict) else None),
    ]
    known = [time for time in times if time is not None]
    return max(known) if known else None


def expired_events(
    events: Iterable[Mapping[str, Any]], now: datetime, ttl: timedelta = DEFAULT_EVENT_TTL
) -> list[tuple[str, str]]:
    """(namespace, name) of each Event last written ``ttl`` or longer before ``now``."""
    expired: list[tuple[str, str]] = []
    for event in events:
        written = last_written(event)
        if written is not None and now - written >= ttl:
            metadata = event.get("metadata") or {}
            expired.append((str(metadata.get("namespace") or ""), str(metadata.get("name"))))
    return expired


async def expire_events(
    store: Store, clock: Clock, ttl: timedelta = DEFAULT_EVENT_TTL, *, period: timedelta = _PERIOD
) -> None:
    """Delete expired Events every ``period`` until cancelled."""
    while True:
        await asyncio.sleep(period.total_seconds())
        listed = store.list(EVENTS).items
        for namespace, name in expired_events(listed, clock.now(), ttl):
            with contextlib.suppress(NotFoundError):  # deleted meanwhile
                store.delete(EVENTS, namespace, name)
