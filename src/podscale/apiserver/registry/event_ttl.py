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

import orjson

from podscale.api.timestamps import parse_time_or_none
from podscale.store.decode_memo import DecodeMemo
from podscale.store.interface import Clock, NotFoundError, Store

__all__ = ["DEFAULT_EVENT_TTL", "EVENTS", "expire_events", "expired_events", "last_written"]

# kube-apiserver's --event-ttl default.
DEFAULT_EVENT_TTL: Final = timedelta(hours=1)
# Core and events.k8s.io Events share this storage, as upstream's do.
EVENTS: Final = "events"
_PERIOD: Final = timedelta(minutes=1)
JSON = dict[str, Any]


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
    return _expired((_written(event) for event in events), now, ttl)


def _written(event: Mapping[str, Any]) -> tuple[tuple[str, str], datetime | None]:
    metadata = event.get("metadata") or {}
    key = (str(metadata.get("namespace") or ""), str(metadata.get("name")))
    return key, last_written(event)


def _expired(
    written: Iterable[tuple[tuple[str, str], datetime | None]], now: datetime, ttl: timedelta
) -> list[tuple[str, str]]:
    return [key for key, at in written if at is not None and now - at >= ttl]


def _stored_written(data: bytes) -> JSON:
    """An Event's key and last write from its stored bytes (what the expiry memo keeps)."""
    key, at = _written(orjson.loads(data))
    return {"key": key, "written": at}


async def expire_events(
    store: Store, clock: Clock, ttl: timedelta = DEFAULT_EVENT_TTL, *, period: timedelta = _PERIOD
) -> None:
    """Delete expired Events every ``period`` until cancelled.

    Each pass lists every Event, but through a ``DecodeMemo`` of each one's key and last
    write: only the Events written since the previous pass are decoded (any write, an
    update moving ``lastTimestamp`` included, stores new bytes), in the list's order."""
    memo: DecodeMemo[JSON] = DecodeMemo(_stored_written)
    while True:
        await asyncio.sleep(period.total_seconds())
        listed = store.list(EVENTS, decode=memo).items
        memo.turn()
        written = [(item["key"], item["written"]) for item in listed]
        for namespace, name in _expired(written, clock.now(), ttl):
            with contextlib.suppress(NotFoundError):  # deleted meanwhile
                store.delete(EVENTS, namespace, name)
