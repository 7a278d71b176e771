"""OpenAPI schemas of events.k8s.io/v1: Event, EventList and EventSeries.

The same stored events as core/v1 Event (``openapi.schemas_core``), in the newer shape
(``podscale.api.conversion_events``): ``regarding``, ``note``, ``reportingController`` and
the ``deprecated*`` legacy fields. Object references and the legacy source reuse the core
schemas, as upstream's do. ``openapi.schemas`` merges these into the shared table.
"""

from __future__ import annotations

from podscale.apiserver.openapi.dsl import (
    Schema,
    core,
    integer,
    kind_header,
    list_kind,
    meta,
    ref,
    string,
    struct,
)

__all__ = ["events_schemas", "events_v1"]


def events_v1(name: str) -> str:
    """The schema name of events.k8s.io/v1 type ``name``."""
    return f"io.k8s.api.events.v1.{name}"


def events_schemas() -> dict[str, Schema]:
    """Schema name -> schema for the events.k8s.io/v1 types."""
    gvk = ("events.k8s.io", "v1", "Event")
    return {
        events_v1("Event"): struct(
            "A report of an event somewhere in the cluster (events.k8s.io shape).",
            {
                **kind_header(),
                "eventTime": ref(meta("MicroTime"), "When the event was first observed."),
                "series": ref(events_v1("EventSeries"), "Data about a series of events."),
                "reportingController": string("Controller that emitted the event."),
                "reportingInstance": string("Instance of the controller."),
                "action": string("What action was taken or failed."),
                "reason": string("Why the action was taken, machine readable."),
                "regarding": ref(core("ObjectReference"), "The object the event is about."),
                "related": ref(core("ObjectReference"), "A secondary object."),
                "note": string("Human-readable description of the status."),
                "type": string("Normal or Warning."),
                "deprecatedSource": ref(core("EventSource"), "Legacy: the reporting component."),
                "deprecatedFirstTimestamp": ref(meta("Time"), "Legacy: first time recorded."),
                "deprecatedLastTimestamp": ref(meta("Time"), "Legacy: last time recorded."),
                "deprecatedCount": integer("Legacy: how many times it occurred."),
            },
            required=("eventTime",),
            gvk=gvk,
        ),
        events_v1("EventList"): list_kind(
            "A list of events.", events_v1("Event"), ("events.k8s.io", "v1", "EventList")
        ),
        events_v1("EventSeries"): struct(
            "A series of repeated events.",
            {
                "count": integer("Occurrences so far."),
                "lastObservedTime": ref(meta("MicroTime"), "Time of the last occurrence."),
            },
            required=("count", "lastObservedTime"),
        ),
    }
