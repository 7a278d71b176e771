"""Event conversion between core/v1 and events.k8s.io/v1 (one storage, two shapes)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from podscale.api.conversion_events import event_from_core, event_to_core

JSON = dict[str, Any]

CORE: JSON = {
    "apiVersion": "v1",
    "kind": "Event",
    "metadata": {"name": "web.1", "namespace": "default"},
    "involvedObject": {"kind": "Deployment", "name": "web", "namespace": "default"},
    "reason": "ScalingReplicaSet",
    "message": "Scaled up replica set web-1 to 2",
    "source": {"component": "deployment-controller"},
    "firstTimestamp": "2026-01-02T03:04:05Z",
    "lastTimestamp": "2026-01-02T03:04:06Z",
    "count": 2,
    "type": "Normal",
    "reportingComponent": "deployment-controller",
    "reportingInstance": "",
}


def test_core_event_in_the_events_shape() -> None:
    event = event_from_core(CORE)
    assert event == {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": "web.1", "namespace": "default"},
        "regarding": {"kind": "Deployment", "name": "web", "namespace": "default"},
        "reason": "ScalingReplicaSet",
        "note": "Scaled up replica set web-1 to 2",
        "deprecatedSource": {"component": "deployment-controller"},
        "deprecatedFirstTimestamp": "2026-01-02T03:04:05Z",
        "deprecatedLastTimestamp": "2026-01-02T03:04:06Z",
        "deprecatedCount": 2,
        "type": "Normal",
        "reportingController": "deployment-controller",
        # Go writes a zero MicroTime as null (no omitempty on eventTime).
        "eventTime": None,
    }


def test_unset_structs_are_written_as_go_does() -> None:
    event = event_from_core({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e"}})
    assert event["regarding"] == {}
    assert event["deprecatedSource"] == {}
    assert event["deprecatedFirstTimestamp"] is None
    assert "deprecatedCount" not in event
    assert "series" not in event


_text = st.text(st.characters(categories=("L", "N")), min_size=1, max_size=8)
_events_v1 = st.fixed_dictionaries(
    {"apiVersion": st.just("events.k8s.io/v1"), "kind": st.just("Event")},
    optional={
        "metadata": st.fixed_dictionaries({"name": _text}),
        "eventTime": st.just("2026-01-02T03:04:05.000000Z"),
        "series": st.fixed_dictionaries(
            {"count": st.integers(2, 9), "lastObservedTime": st.just("2026-01-02T03:04:05Z")}
        ),
        "reportingController": _text,
        "reportingInstance": _text,
        "action": _text,
        "reason": _text,
        "note": _text,
        "type": st.sampled_from(["Normal", "Warning"]),
        "regarding": st.fixed_dictionaries({"kind": _text, "name": _text}),
        "related": st.fixed_dictionaries({"kind": _text, "name": _text}),
        "deprecatedSource": st.fixed_dictionaries({"component": _text}),
        "deprecatedFirstTimestamp": st.just("2026-01-02T03:04:05Z"),
        "deprecatedLastTimestamp": st.just("2026-01-02T03:04:05Z"),
        "deprecatedCount": st.integers(1, 9),
    },
)


@given(_events_v1)
def test_round_trip_through_storage_keeps_every_set_field(event: JSON) -> None:
    back = event_from_core(event_to_core(event))
    assert {key: value for key, value in back.items() if key in event} == event
