"""Event conversion between core/v1 and events.k8s.io/v1: one storage, two API shapes.

Upstream stores every Event once, as core/v1 sees it (``podscale.apiserver.resources``
stores both under ``events``); events.k8s.io/v1 renames and regroups the fields:
``note`` is core's ``message``, ``regarding`` its ``involvedObject``,
``reportingController`` its ``reportingComponent``, and the legacy aggregation fields
(``source``, ``firstTimestamp``, ``lastTimestamp``, ``count``) carry a ``deprecated``
prefix. Everything else keeps its name. Pure; both functions return new dicts and drop
fields the target shape does not have, as a conversion through Go's types would.
"""

from __future__ import annotations

import copy
from typing import Any, Final

__all__ = ["CORE_API_VERSION", "EVENTS_API_VERSION", "event_from_core", "event_to_core"]

JSON = dict[str, Any]
CORE_API_VERSION: Final = "v1"
EVENTS_API_VERSION: Final = "events.k8s.io/v1"

# (events.k8s.io/v1 name, core/v1 name)
_RENAMED: Final = (
    ("regarding", "involvedObject"),
    ("note", "message"),
    ("reportingController", "reportingComponent"),
    ("deprecatedSource", "source"),
    ("deprecatedFirstTimestamp", "firstTimestamp"),
    ("deprecatedLastTimestamp", "lastTimestamp"),
    ("deprecatedCount", "count"),
)
_SAME: Final = (
    "metadata",
    "reason",
    "type",
    "eventTime",
    "series",
    "action",
    "related",
    "reportingInstance",
)


def event_to_core(event: JSON) -> JSON:
    """An events.k8s.io/v1 Event as core/v1 (the stored shape)."""
    core: JSON = {"apiVersion": CORE_API_VERSION, "kind": "Event"}
    for name in _SAME:
        if name in event:
            core[name] = copy.deepcopy(event[name])
    for new, old in _RENAMED:
        if new in event:
            core[old] = copy.deepcopy(event[new])
    return core


# What Go's encoder writes for an unset field of events.k8s.io/v1's Event: omitempty drops
# empty strings, zero integers and nil pointers (series, related), but never a struct (an
# empty ObjectReference or EventSource is {}, a zero time null).
_UNSET: Final[dict[str, Any]] = {
    "regarding": {},
    "deprecatedSource": {},
    "deprecatedFirstTimestamp": None,
    "deprecatedLastTimestamp": None,
    "eventTime": None,
}


def event_from_core(core: JSON) -> JSON:
    """A core/v1 Event as events.k8s.io/v1 serializes it."""
    event: JSON = {"apiVersion": EVENTS_API_VERSION, "kind": "Event"}
    for name in _SAME:
        if core.get(name) not in ("", None):
            event[name] = copy.deepcopy(core[name])
    for new, old in _RENAMED:
        value = core.get(old)
        if value not in ("", 0, None):
            event[new] = copy.deepcopy(value)
    for name, unset in _UNSET.items():
        event.setdefault(name, copy.deepcopy(unset))
    return event
