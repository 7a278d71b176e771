"""An event recorder: controllers report what they did as core/v1 Event objects.

client-go's ``record.EventRecorder`` with its ``EventCorrelator``
(staging/src/k8s.io/client-go/tools/record/events_cache.go, event.go). Each Event goes to
the involved object's namespace, named ``<object>.<nanoseconds in hex>``, with
``source.component``/``reportingComponent`` set to the controller's component name
(``replicaset-controller``). It is the one recorder of every component (the workload
controllers, the HPA controller, the garbage collector, the simulated scheduler, kubelets
and node controllers), and as client-go's broadcaster does for each of them, every Event
passes the correlator first, with upstream's defaults:

- counts repeats: an Event identical to one already written (same source, object, type,
  reason and message) patches that Event's ``count``, ``lastTimestamp`` and ``message``;
- aggregates: once 10 different messages with the same source, object, type and reason
  came within 10 minutes of each other, further ones become a single Event reading
  ``(combined from similar events): <message>``, itself counted as a repeat;
- throttles: each source may write 25 Events about an object, then one per 5 minutes.

On virtual time many events share one instant, so the nanosecond part of a new name is
bumped past the last one used for that object (upstream relies on the wall clock to keep
names apart). Recording is best effort, as upstream: a failure is logged, never raised
into the reconcile that reported it. Time comes from the injected clock only.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from podscale.api.kinds import kind_for
from podscale.client.http import ApiError
from podscale.controllers.runtime_api import STRATEGIC_MERGE_PATCH, ControllerApi
from podscale.hpa.conditions import format_time
from podscale.store.interface import Clock

__all__ = ["EventRecorder"]

_LOG = logging.getLogger(__name__)
_EVENT = kind_for("v1", "Event")
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_NAME_ATTEMPTS: Final = 5
_LRU_ENTRIES: Final = 4096
_AGGREGATE_MAX_EVENTS: Final = 10
_AGGREGATE_INTERVAL: Final = timedelta(seconds=600)
_SPAM_BURST: Final = 25
_SPAM_QPS: Final = 1.0 / 300.0
_COMBINED: Final = "(combined from similar events): "

JSON = dict[str, Any]


def _nanoseconds(moment: datetime) -> int:
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1_000


def _involved_object(obj: Mapping[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata") or {}
    return {
        "kind": obj.get("kind", ""),
        "namespace": meta.get("namespace", ""),
        "name": meta.get("name", ""),
        "uid": meta.get("uid", ""),
        "apiVersion": obj.get("apiVersion", ""),
        "resourceVersion": meta.get("resourceVersion", ""),
    }


def _object_key(event: Mapping[str, Any]) -> tuple[str, ...]:
    # Source and involved object, as upstream's getSpamKey.
    source, involved = event.get("source") or {}, event.get("involvedObject") or {}
    return (
        str(source.get("component", "")),
        str(source.get("host", "")),
        *(str(involved.get(f, "")) for f in ("kind", "namespace", "name", "uid", "apiVersion")),
    )


def _event_key(event: Mapping[str, Any]) -> tuple[str, ...]:
    # getEventKey: the object (with its fieldPath), type, reason and message.
    field_path = str((event.get("involvedObject") or {}).get("fieldPath", ""))
    rest = (str(event.get(f, "")) for f in ("type", "reason", "message"))
    return (*_object_key(event), field_path, *rest)


def _aggregate_key(event: Mapping[str, Any]) -> tuple[str, ...]:
    # EventAggregatorByReasonFunc: everything but the message (the local key).
    fields = ("type", "reason", "reportingComponent", "reportingInstance")
    return (*_object_key(event), *(str(event.get(f, "")) for f in fields))


class _Lru(OrderedDict[Hashable, Any]):
    """groupcache's ``lru.Cache``: a bounded map that forgets the least recently used."""

    def get_recent(self, key: Hashable) -> Any:
        if key not in self:
            return None
        self.move_to_end(key)
        return self[key]

    def put(self, key: Hashable, value: Any) -> None:
        self[key] = value
        self.move_to_end(key)
        if len(self) > _LRU_ENTRIES:
            self.popitem(last=False)


@dataclass
class _Aggregate:
    messages: dict[str, None] = field(default_factory=dict)  # an ordered set
    last_seen: datetime | None = None


@dataclass
class _Observation:
    count: int
    first_timestamp: str
    name: str


@dataclass
class _Bucket:
    tokens: float
    last: datetime


class EventRecorder:
    """Records events about objects on behalf of ``component``."""

    def __init__(self, api: ControllerApi, clock: Clock, component: str) -> None:
        self._api = api
        self._clock = clock
        self._component = component
        self._last_nanos: dict[str, int] = {}
        self._aggregates = _Lru()
        self._observed = _Lru()
        self._buckets = _Lru()

    async def record(
        self, obj: Mapping[str, Any], event_type: str, reason: str, message: str
    ) -> None:
        """Report an Event (``event_type`` ``Normal`` or ``Warning``) about ``obj``."""
        now = self._clock.now()
        involved = _involved_object(obj)
        namespace = str(involved["namespace"] or "default")
        event: JSON = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {
                "name": self._fresh_name(namespace, involved, now),
                "namespace": namespace,
            },
            "involvedObject": involved,
            "reason": reason,
            "message": message,
            "source": {"component": self._component},
            "firstTimestamp": format_time(now),
            "lastTimestamp": format_time(now),
            "count": 1,
            "type": event_type,
            "reportingComponent": self._component,
            "reportingInstance": "",
        }
        event, key = self._aggregate(event, now)
        patch = self._observe(event, key)
        if self._throttled(event, now):
            return
        await self._write(event, key, patch, now)

    def _fresh_name(self, namespace: str, involved: Mapping[str, Any], now: datetime) -> str:
        name_key = f"{namespace}/{involved['name']}"
        nanos = max(_nanoseconds(now), self._last_nanos.get(name_key, 0) + 1)
        self._last_nanos[name_key] = nanos
        return f"{involved['name']}.{nanos:x}"

    # -- correlation (upstream's EventCorrelator) -------------------------------------

    def _aggregate(self, event: JSON, now: datetime) -> tuple[JSON, Hashable]:
        """``EventAggregate``: the event itself, or the combined one from the 10th message on."""
        key = _aggregate_key(event)
        record = self._aggregates.get_recent(key)
        # Too long since a similar one (or none yet): a fresh record.
        if (
            record is None
            or record.last_seen is None
            or now - record.last_seen > _AGGREGATE_INTERVAL
        ):
            record = _Aggregate()
        record.messages[str(event["message"])] = None
        record.last_seen = now
        self._aggregates.put(key, record)
        if len(record.messages) < _AGGREGATE_MAX_EVENTS:
            return event, _event_key(event)
        # Keep the set at the maximum; upstream drops an arbitrary message, we the oldest.
        del record.messages[next(iter(record.messages))]
        namespace = str(event["metadata"]["namespace"])
        combined: JSON = {
            **event,
            "metadata": {
                "name": self._fresh_name(namespace, event["involvedObject"], now),
                "namespace": namespace,
            },
            "message": _COMBINED + str(event["message"]),
            # The combined event is built afresh upstream, without the reporting fields.
            "reportingComponent": "",
            "reportingInstance": "",
        }
        return combined, key

    def _observe(self, event: JSON, key: Hashable) -> JSON | None:
        """``eventObserve``: a repeat takes the first one's name and count; returns the
        patch (count, lastTimestamp, message) that updates it, or ``None`` to create."""
        last = self._observed.get_recent(key)
        patch: JSON | None = None
        if last is not None and last.count > 0:
            event["metadata"]["name"] = last.name
            event["firstTimestamp"] = last.first_timestamp
            event["count"] = last.count + 1
            patch = {k: event[k] for k in ("count", "lastTimestamp", "message")}
        name = str(event["metadata"].get("name", ""))
        self._observed.put(key, _Observation(event["count"], event["firstTimestamp"], name))
        return patch

    def _throttled(self, event: JSON, now: datetime) -> bool:
        """``EventSourceObjectSpamFilter``: a token bucket per source and object."""
        key = _object_key(event)
        bucket = self._buckets.get_recent(key) or _Bucket(float(_SPAM_BURST), now)
        elapsed = (now - bucket.last).total_seconds()
        bucket.tokens = min(float(_SPAM_BURST), bucket.tokens + elapsed * _SPAM_QPS)
        bucket.last = now
        self._buckets.put(key, bucket)
        if bucket.tokens < 1.0:
            return True
        bucket.tokens -= 1.0
        return False

    # -- writing (upstream's recordToSink) --------------------------------------------

    async def _write(self, event: JSON, key: Hashable, patch: JSON | None, now: datetime) -> None:
        namespace, name = str(event["metadata"]["namespace"]), str(event["metadata"]["name"])
        if patch is not None:
            try:
                written = await self._api.patch(
                    _EVENT, namespace, name, patch, content_type=STRATEGIC_MERGE_PATCH
                )
            except ApiError as err:
                if err.status != 404:
                    _LOG.warning("could not update event %s %s: %s", event["reason"], name, err)
                    return
            else:
                self._remember(written, key)
                return
        # New, or a counted event that is gone (written afresh under its name, as upstream).
        for _ in range(_NAME_ATTEMPTS):
            try:
                written = await self._api.create(_EVENT, namespace, event)
            except ApiError as err:
                if err.status != 409 or patch is not None:
                    _LOG.warning("could not record event %s %s: %s", event["reason"], name, err)
                    return
                # Taken (a restart on virtual time reuses instants): the next nanosecond.
                event["metadata"]["name"] = self._fresh_name(
                    namespace, event["involvedObject"], now
                )
                continue
            self._remember(written, key)
            return
        _LOG.warning("could not record event %s %s: name taken", event["reason"], name)

    def _remember(self, written: JSON, key: Hashable) -> None:
        # ``UpdateState``: the server's copy names the next repeat (also under ``key``, as
        # our names may differ from the one the correlator first chose).
        name = str((written.get("metadata") or {}).get("name", ""))
        count = int(written.get("count") or 0)
        observation = _Observation(count, str(written.get("firstTimestamp", "")), name)
        self._observed.put(_event_key(written), observation)
        self._observed.put(key, observation)
