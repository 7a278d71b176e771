"""Validation of events.k8s.io/v1 Events, as upstream's ValidateEventCreate/Update.

An events.k8s.io/v1 Event is validated in its core form (``podscale.api.conversion_events``),
so field paths use the internal names (``reportingController``, ``message``, ``count``...),
as upstream's do. Every event first passes the legacy core/v1 rules (``legacy``, which the
package's ``__init__`` owns and passes in); the events.k8s.io API adds strict ones: a
DNS-subdomain name, a required ``eventTime``, type Normal or Warning, a series of at least 2
with a last observed time, and none of the deprecated aggregation fields on create; on
update, the event's content is immutable.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from podscale.api.conversion_events import event_to_core
from podscale.api.field_errors import FieldError, FieldPath, invalid, required
from podscale.api.validation.objectmeta import (
    validate_immutable_field,
    validate_object_meta,
    validate_object_meta_update,
)

__all__ = ["validate_v1_event", "validate_v1_event_update"]

JSON = Mapping[str, Any]
Legacy = Callable[[JSON], list[FieldError]]

_TYPES: Final = ("Normal", "Warning")
# (core field, path in errors): the legacy aggregation fields must stay unset on create.
_UNSET_ON_CREATE: Final = ("firstTimestamp", "lastTimestamp", "count")
# The event's content, immutable through the events.k8s.io API (upstream's order; reason
# is checked twice there, which the de-duplication below folds).
_IMMUTABLE: Final = (
    ("involvedObject", "involvedObject"),
    ("reason", "reason"),
    ("message", "message"),
    ("source", "source"),
    ("firstTimestamp", "firstTimestamp"),
    ("lastTimestamp", "lastTimestamp"),
    ("count", "count"),
    ("type", "type"),
    ("eventTime", "eventTime"),
    ("action", "action"),
    ("related", "related"),
    ("reportingComponent", "reportingController"),
    ("reportingInstance", "reportingInstance"),
)


def _unique(errors: list[FieldError]) -> list[FieldError]:
    seen: dict[str, FieldError] = {}
    for error in errors:
        seen.setdefault(str(error), error)
    return list(seen.values())


def _series(core: JSON) -> list[FieldError]:
    series = core.get("series")
    if not isinstance(series, Mapping):
        return []
    errors: list[FieldError] = []
    count = series.get("count")
    if not isinstance(count, int) or count < 2:
        errors.append(invalid(FieldPath("series.count"), "", "should be at least 2"))
    if not series.get("lastObservedTime"):
        errors.append(required(FieldPath("series.lastObservedTime")))
    return errors


def validate_v1_event(event: JSON, legacy: Legacy) -> list[FieldError]:
    """Field errors for creating ``event`` through events.k8s.io/v1."""
    core = event_to_core(dict(event))
    errors = list(legacy(core))
    errors += validate_object_meta(core.get("metadata") or {}, namespaced=True)
    errors += _series(core)
    if not core.get("eventTime"):
        errors.append(required(FieldPath("eventTime")))
    kind = core.get("type")
    if kind not in _TYPES:
        errors.append(invalid(FieldPath("type"), "", f"has invalid value: {kind or ''}"))
    for name in _UNSET_ON_CREATE:
        if core.get(name):
            errors.append(invalid(FieldPath(name), "", "needs to be unset"))
    source = core.get("source")
    if isinstance(source, Mapping) and (source.get("component") or source.get("host")):
        errors.append(invalid(FieldPath("source"), "", "needs to be unset"))
    return _unique(errors)


def validate_v1_event_update(new: JSON, old: JSON, legacy: Legacy) -> list[FieldError]:
    """Field errors for updating an event through events.k8s.io/v1."""
    new_core, old_core = event_to_core(dict(new)), event_to_core(dict(old))
    errors = list(legacy(new_core))
    errors += validate_object_meta_update(
        new_core.get("metadata") or {}, old_core.get("metadata") or {}
    )
    if new_core.get("series") != old_core.get("series"):
        errors += _series(new_core)
    for name, path in _IMMUTABLE:
        errors += validate_immutable_field(new_core.get(name), old_core.get(name), FieldPath(path))
    return _unique(errors)
