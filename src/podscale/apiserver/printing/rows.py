"""Row printers for nodes, namespaces, events, the workload kinds and the generic fallback.

Each follows its ``printXxx`` in upstream's pkg/printers/internalversion/printers.go, always
in wide mode (the API server prints every column). Integer columns carry JSON integers, as
upstream's ``int64`` cells. Objects went through defaulting on write, but a missing
``spec.replicas`` still prints 1, the value upstream's decoder would default it to.
Pods and HPAs have their own modules (``printing.pods``, ``printing.hpa``); columns live in
``printing.columns``; ``printing`` dispatches here.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

from podscale.api.selectors import format_label_selector, label_selector_to_string
from podscale.api.timestamps import format_time
from podscale.apiserver.printing.format import (
    UNKNOWN,
    age_since,
    as_int,
    as_str,
    dicts_at,
    layout_containers,
    parse_time,
    since,
    value_at,
)

__all__ = [
    "print_created_at",
    "print_deployment",
    "print_event",
    "print_generic",
    "print_namespace",
    "print_node",
    "print_replica_set",
    "print_stateful_set",
]

JSON = dict[str, Any]

_NONE: Final = "<none>"
_ROLE_LABEL_PREFIX: Final = "node-role.kubernetes.io/"
_ROLE_LABEL: Final = "kubernetes.io/role"
_DEFAULT_REPLICAS: Final = 1


def _name(obj: JSON) -> str:
    return as_str(value_at(obj, "metadata", "name"))


def _age(obj: JSON, now: datetime) -> str:
    return age_since(value_at(obj, "metadata", "creationTimestamp"), now)


def _desired_replicas(obj: JSON) -> int:
    return as_int(value_at(obj, "spec", "replicas"), _DEFAULT_REPLICAS)


def print_created_at(obj: JSON, now: datetime) -> JSON:
    """Name and creation time in UTC RFC 3339 (Go's zero time when unset), as upstream's
    default table convertor prints them."""
    created = parse_time(value_at(obj, "metadata", "creationTimestamp"))
    text = format_time(created) if created is not None else "0001-01-01T00:00:00Z"
    return {"cells": [_name(obj), text]}


def print_generic(obj: JSON, now: datetime) -> JSON:
    """Name and Age, for kinds without a dedicated printer."""
    return {"cells": [_name(obj), _age(obj, now)]}


def print_namespace(namespace: JSON, now: datetime) -> JSON:
    """Name, phase (Active / Terminating; empty if unset) and Age."""
    phase = as_str(value_at(namespace, "status", "phase"))
    return {"cells": [_name(namespace), phase, _age(namespace, now)]}


def print_node(node: JSON, now: datetime) -> JSON:
    """Status from the Ready condition plus SchedulingDisabled, roles from labels, versions."""
    status = value_at(node, "status")
    # Later duplicates win, as in upstream's condition map.
    ready = {c.get("type"): c for c in dicts_at(status, "conditions")}.get("Ready")
    states = [
        "Unknown" if ready is None else ("Ready" if ready.get("status") == "True" else "NotReady")
    ]
    if value_at(node, "spec", "unschedulable") is True:
        states.append("SchedulingDisabled")
    info = value_at(status, "nodeInfo")
    return {
        "cells": [
            _name(node),
            ",".join(states),
            ",".join(_node_roles(node)) or _NONE,
            _age(node, now),
            as_str(value_at(info, "kubeletVersion")),
            _node_address(status, "InternalIP"),
            _node_address(status, "ExternalIP"),
            as_str(value_at(info, "osImage")) or UNKNOWN,
            as_str(value_at(info, "kernelVersion")) or UNKNOWN,
            as_str(value_at(info, "containerRuntimeVersion")) or UNKNOWN,
        ]
    }


def _node_roles(node: JSON) -> list[str]:
    """Sorted roles from ``node-role.kubernetes.io/<role>`` keys and ``kubernetes.io/role``."""
    labels = value_at(node, "metadata", "labels")
    roles: set[str] = set()
    for key, value in (labels if isinstance(labels, dict) else {}).items():
        if key.startswith(_ROLE_LABEL_PREFIX) and key != _ROLE_LABEL_PREFIX:
            roles.add(key.removeprefix(_ROLE_LABEL_PREFIX))
        elif key == _ROLE_LABEL and isinstance(value, str) and value:
            roles.add(value)
    return sorted(roles)


def _node_address(status: Any, address_type: str) -> str:
    for address in dicts_at(status, "addresses"):
        if address.get("type") == address_type:
            return as_str(address.get("address"))
    return _NONE


def print_event(event: JSON, now: datetime) -> JSON:
    """Last Seen, Type, Reason, Object (``kind/name``, kind lowercased), Subobject, Source,
    Message, First Seen, Count, Name. Event-series and new-API (eventTime) events included."""
    first_time = parse_time(event.get("firstTimestamp")) or parse_time(event.get("eventTime"))
    first_seen = UNKNOWN if first_time is None else since(first_time, now)
    last_time = parse_time(event.get("lastTimestamp"))
    last_seen = first_seen if last_time is None else since(last_time, now)
    count = as_int(event.get("count"))
    series = event.get("series")
    if isinstance(series, dict):
        last_seen = age_since(series.get("lastObservedTime"), now)
        count = as_int(series.get("count"))
    elif count == 0:
        count = 1  # singleton events of the events.k8s.io API carry no count
    involved = event.get("involvedObject")
    kind = as_str(value_at(involved, "kind")).lower()
    name = as_str(value_at(involved, "name"))
    source = _event_source(event)
    return {
        "cells": [
            last_seen,
            as_str(event.get("type")),
            as_str(event.get("reason")),
            f"{kind}/{name}" if name else kind,
            as_str(value_at(involved, "fieldPath")),
            source,
            as_str(event.get("message")).strip(),
            first_seen,
            count,
            _name(event),
        ]
    }


def _event_source(event: JSON) -> str:
    """``component, host``; the reporting controller/instance stand in for empty parts."""
    component = as_str(value_at(event, "source", "component")) or as_str(
        event.get("reportingComponent")
    )
    host = as_str(value_at(event, "source", "host")) or as_str(event.get("reportingInstance"))
    return f"{component}, {host}" if host else component


def print_replica_set(replica_set: JSON, now: datetime) -> JSON:
    """Desired, Current and Ready as integers; wide: containers, images, selector."""
    status = value_at(replica_set, "status")
    names, images = layout_containers(value_at(replica_set, "spec", "template", "spec"))
    return {
        "cells": [
            _name(replica_set),
            _desired_replicas(replica_set),
            as_int(value_at(status, "replicas")),
            as_int(value_at(status, "readyReplicas")),
            _age(replica_set, now),
            names,
            images,
            _format_selector(value_at(replica_set, "spec", "selector")),
        ]
    }


def print_deployment(deployment: JSON, now: datetime) -> JSON:
    """Ready as ``ready/desired``, Up-to-date, Available; wide: containers, images, selector.

    Unlike replica sets, an empty selector prints "" here and an invalid one ``<invalid>``.
    """
    status = value_at(deployment, "status")
    names, images = layout_containers(value_at(deployment, "spec", "template", "spec"))
    ready = as_int(value_at(status, "readyReplicas"))
    selector = _selector_string(value_at(deployment, "spec", "selector"))
    return {
        "cells": [
            _name(deployment),
            f"{ready}/{_desired_replicas(deployment)}",
            as_int(value_at(status, "updatedReplicas")),
            as_int(value_at(status, "availableReplicas")),
            _age(deployment, now),
            names,
            images,
            selector,
        ]
    }


def _format_selector(selector: Any) -> str:
    """``metav1.FormatLabelSelector``: ``<none>`` when it selects everything or nothing."""
    try:
        return format_label_selector(selector if isinstance(selector, dict) else None)
    except (AttributeError, TypeError):  # malformed expressions; upstream cannot decode them
        return "<error>"


def _selector_string(selector: Any) -> str:
    """``LabelSelectorAsSelector(...).String()``: "" for empty, ``<invalid>`` on error."""
    try:
        return label_selector_to_string(selector if isinstance(selector, dict) else None)
    except (ValueError, AttributeError, TypeError):  # SelectorError is a ValueError
        return "<invalid>"


def print_stateful_set(stateful_set: JSON, now: datetime) -> JSON:
    """Ready as ``ready/desired``; wide: containers and images."""
    ready = as_int(value_at(stateful_set, "status", "readyReplicas"))
    names, images = layout_containers(value_at(stateful_set, "spec", "template", "spec"))
    return {
        "cells": [
            _name(stateful_set),
            f"{ready}/{_desired_replicas(stateful_set)}",
            _age(stateful_set, now),
            names,
            images,
        ]
    }
