"""``runtime_events.EventRecorder`` with correlation (client-go's EventCorrelator) against a
fake API on a hand-driven clock: counting repeats by patch, the 10-minute aggregation
window, the spam filter's refill, and every component's recorder correlating (each source
counted apart)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any, cast

import pytest

from podscale.client.http import ApiError
from podscale.controllers.runtime_api import STRATEGIC_MERGE_PATCH, ControllerApi
from podscale.controllers.runtime_events import EventRecorder

JSON = dict[str, Any]
START = datetime(2026, 3, 1, tzinfo=UTC)
RS: JSON = {
    "apiVersion": "apps/v1",
    "kind": "ReplicaSet",
    "metadata": {"name": "web", "namespace": "default", "uid": "u1", "resourceVersion": "7"},
}


class Clock:
    def __init__(self) -> None:
        self.moment = START

    def now(self) -> datetime:
        return self.moment


class EventSink:
    """Stores created Events by name; patches merge top-level fields (what the Event
    patches carry); ``gone`` makes the next patch answer 404."""

    def __init__(self) -> None:
        self.events: dict[str, JSON] = {}
        self.calls: list[tuple[str, str]] = []
        self.gone = False

    async def create(self, kind: Any, namespace: str | None, obj: JSON, **_: Any) -> JSON:
        name = obj["metadata"]["name"]
        self.calls.append(("create", name))
        self.events[name] = dict(obj)
        return dict(obj)

    async def patch(
        self, kind: Any, namespace: str | None, name: str, patch: JSON, *, content_type: str
    ) -> JSON:
        assert content_type == STRATEGIC_MERGE_PATCH
        assert set(patch) == {"count", "lastTimestamp", "message"}
        self.calls.append(("patch", name))
        if self.gone:
            self.gone = False
            del self.events[name]
            raise ApiError(404, {"message": "not found", "code": 404})
        self.events[name] = {**self.events[name], **patch}
        return self.events[name]


def recorder(
    sink: EventSink, clock: Clock, component: str = "replicaset-controller"
) -> EventRecorder:
    return EventRecorder(cast(ControllerApi, sink), clock, component)


def record_all(rec: EventRecorder, clock: Clock, messages: list[tuple[float, str]]) -> None:
    async def go() -> None:
        for at, message in messages:
            clock.moment = START + timedelta(seconds=at)
            await rec.record(RS, "Warning", "FailedCreate", message)

    asyncio.run(go())


def test_a_repeat_patches_count_last_timestamp_and_message() -> None:
    sink, clock = EventSink(), Clock()
    record_all(recorder(sink, clock), clock, [(0, "boom"), (30, "boom"), (90, "boom")])
    assert [verb for verb, _ in sink.calls] == ["create", "patch", "patch"]
    [event] = sink.events.values()
    assert (event["count"], event["firstTimestamp"], event["lastTimestamp"]) == (
        3,
        "2026-03-01T00:00:00Z",
        "2026-03-01T00:01:30Z",
    )


def test_a_counted_event_that_is_gone_is_written_again_under_its_name() -> None:
    sink, clock = EventSink(), Clock()
    rec = recorder(sink, clock)
    record_all(rec, clock, [(0, "boom")])
    sink.gone = True
    record_all(rec, clock, [(10, "boom")])
    [(first, name), (patched, same), (created, again)] = sink.calls
    assert (first, patched, created) == ("create", "patch", "create")
    assert name == same == again
    assert sink.events[name]["count"] == 2


@pytest.mark.parametrize(
    ("gap", "combined"),
    [(600, 1), (601, 0)],
    ids=["within-ten-minutes", "after-ten-minutes-starts-over"],
)
def test_aggregation_window(gap: int, combined: int) -> None:
    sink, clock = EventSink(), Clock()
    messages = [(0, f"error {i}") for i in range(9)] + [(gap, "error 9")]
    record_all(recorder(sink, clock), clock, messages)
    found = [e for e in sink.events.values() if e["message"].startswith("(combined")]
    assert len(found) == combined
    assert len(sink.events) == 9 + 1


@pytest.mark.parametrize(
    ("last_at", "written"),
    [(0, 25), (299, 25), (300, 26)],
    ids=["burst-of-25", "no-token-yet", "one-token-per-five-minutes"],
)
def test_spam_filter(last_at: float, written: int) -> None:
    sink, clock = EventSink(), Clock()
    # Identical messages, so aggregation never kicks in; only the filter drops writes.
    record_all(recorder(sink, clock), clock, [(0, "boom")] * 25 + [(last_at, "boom")])
    assert len(sink.calls) == written


@pytest.mark.parametrize(
    "component",
    [
        "horizontal-pod-autoscaler",
        "deployment-controller",
        "statefulset-controller",
        "garbage-collector-controller",
        "default-scheduler",
        "kubelet",
    ],
)
def test_every_component_counts_repeats(component: str) -> None:
    sink, clock = EventSink(), Clock()
    record_all(recorder(sink, clock, component), clock, [(0, "boom")] * 30)
    [event] = sink.events.values()
    # 25 writes pass the spam filter (the burst); the rest are dropped, as upstream.
    assert (event["count"], event["source"]["component"]) == (25, component)
    assert [verb for verb, _ in sink.calls] == ["create"] + ["patch"] * 24


def test_two_sources_about_one_object_are_counted_apart() -> None:
    sink, clock = EventSink(), Clock()
    first, second = recorder(sink, clock, "kubelet"), recorder(sink, clock, "default-scheduler")
    record_all(first, clock, [(0, "boom"), (1, "boom")])
    record_all(second, clock, [(2, "boom")])
    counts = sorted((e["source"]["component"], e["count"]) for e in sink.events.values())
    assert counts == [("default-scheduler", 1), ("kubelet", 2)]
