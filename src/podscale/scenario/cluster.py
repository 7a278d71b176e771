"""The cluster parts of a scenario: ``spec.nodes``, ``spec.pods`` and ``spec.events``.

Called by ``podscale.scenario.loader`` with its ``FieldReader``; produces the values of
``podscale.scenario.model``. Schema::

    nodes:                      # either a count of identical nodes ...
      count: 3                  #   named <namePrefix>1 .. <namePrefix>N (default "node-")
      capacity: {cpu: "4", memory: 8Gi, pods: 110}
      labels: {...}
    nodes:                      # ... or a list
      - {name: big, capacity: {cpu: "16", memory: 64Gi}, labels: {...}}
    pods: {startupDelay: 2s, readinessDelay: 3s, terminationDelay: 1s}
    events:
      - {at: 10m, type: scale, target: {kind: Deployment, name: web}, replicas: 5}
      - {at: 12m, type: crash, target: {kind: Deployment, name: web}, count: 1}
      - {at: 15m, type: loseNode, node: node-2}
      - {at: 20m, type: restoreNode, node: node-2}

Capacity defaults are ``podscale.runtime.simulated.node_objects.node``'s (4 CPUs, 8Gi, 110 pods) and
pod timing defaults ``podscale.runtime.simulated.kubelet_state.StartupProfile``'s. No ``nodes``
means one default node. Events come back ordered by ``at`` (file order among equal times).
An event's ``target`` is read as a workload's (``scenario.workloads.read_target``): any kind
with a scale subresource, custom kinds of the scenario's CRDs included.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any, Final

from podscale.api.field_errors import (
    FieldPath,
    duplicate,
    invalid,
    not_found,
    not_supported,
    required,
)
from podscale.api.field_reader import FieldReader
from podscale.api.names import validate_dns1123_subdomain_name
from podscale.api.quantity import Quantity, parse_quantity
from podscale.runtime.simulated.kubelet_state import StartupProfile
from podscale.scenario.custom_kinds import DefinedKind
from podscale.scenario.model import EVENT_TYPES, NodeSpec, ScenarioEvent
from podscale.scenario.workloads import read_target

__all__ = ["read_events", "read_nodes", "read_pod_timing", "read_string_map"]

_DEFAULT_CPU: Final = parse_quantity("4")
_DEFAULT_MEMORY: Final = parse_quantity("8Gi")
_DEFAULT_PODS: Final = 110
_EVENT_FIELDS: Final = {
    "scale": ("target", "replicas"),
    "crash": ("target", "count"),
    "loseNode": ("node",),
    "restoreNode": ("node",),
}


def read_string_map(
    r: FieldReader, obj: dict[str, Any], key: str, path: FieldPath
) -> dict[str, str]:
    """Labels or annotations: an object of strings."""
    value = obj.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        r.type_error(path.child(key), value, "object")
        return {}
    result: dict[str, str] = {}
    for k, v in value.items():
        if not isinstance(v, str):
            r.type_error(path.child(key).key(str(k)), v, "string")
        else:
            result[str(k)] = v
    return result


def _capacity(
    r: FieldReader, obj: dict[str, Any], path: FieldPath
) -> tuple[Quantity, Quantity, int]:
    fields = r.child_mapping(obj, "capacity", path, ("cpu", "memory", "pods"))
    if fields is None:
        return _DEFAULT_CPU, _DEFAULT_MEMORY, _DEFAULT_PODS
    inner = path.child("capacity")
    cpu = r.quantity(fields, "cpu", inner, positive=True)
    memory = r.quantity(fields, "memory", inner, positive=True)
    pods = r.integer(fields, "pods", inner, minimum=1)
    return cpu or _DEFAULT_CPU, memory or _DEFAULT_MEMORY, pods or _DEFAULT_PODS


def _node_name(r: FieldReader, name: str, path: FieldPath) -> bool:
    problems = validate_dns1123_subdomain_name(name, False)
    for problem in problems:
        r.errors.append(invalid(path, name, problem))
    return not problems


def _node_list(r: FieldReader, items: list[Any], path: FieldPath) -> list[NodeSpec]:
    nodes: list[NodeSpec] = []
    for i, item in enumerate(items):
        item_path = path.index(i)
        obj = r.mapping(item, item_path, ("name", "capacity", "labels"))
        if obj is None:
            continue
        name = r.string(obj, "name", item_path, need=True)
        cpu, memory, pods = _capacity(r, obj, item_path)
        labels = read_string_map(r, obj, "labels", item_path)
        if name is None or not _node_name(r, name, item_path.child("name")):
            continue
        if any(n.name == name for n in nodes):
            r.errors.append(duplicate(item_path.child("name"), name))
            continue
        nodes.append(NodeSpec(name, cpu, memory, pods, labels))
    return nodes


def read_nodes(r: FieldReader, spec: dict[str, Any], path: FieldPath) -> list[NodeSpec]:
    """``spec.nodes`` in either form; ``path`` is the ``spec`` path."""
    value = spec.get("nodes")
    nodes_path = path.child("nodes")
    if value is None:
        return [NodeSpec("node-1", _DEFAULT_CPU, _DEFAULT_MEMORY, _DEFAULT_PODS)]
    if isinstance(value, list):
        if not value:
            r.errors.append(invalid(nodes_path, value, "must have at least one node"))
        return _node_list(r, value, nodes_path)
    obj = r.mapping(value, nodes_path, ("count", "capacity", "namePrefix", "labels"))
    if obj is None:
        return []
    count = r.integer(obj, "count", nodes_path, need=True, minimum=1)
    prefix = r.string(obj, "namePrefix", nodes_path)
    cpu, memory, pods = _capacity(r, obj, nodes_path)
    labels = read_string_map(r, obj, "labels", nodes_path)
    prefix = "node-" if prefix is None else prefix
    if count is None or not _node_name(r, f"{prefix}1", nodes_path.child("namePrefix")):
        return []
    return [NodeSpec(f"{prefix}{i}", cpu, memory, pods, labels) for i in range(1, count + 1)]


def read_pod_timing(r: FieldReader, spec: dict[str, Any], path: FieldPath) -> StartupProfile:
    """``spec.pods``: how long the simulated kubelet takes per pod."""
    default = StartupProfile()
    obj = r.child_mapping(
        spec, "pods", path, ("startupDelay", "readinessDelay", "terminationDelay")
    )
    if obj is None:
        return default
    inner = path.child("pods")
    startup = r.duration(obj, "startupDelay", inner)
    readiness = r.duration(obj, "readinessDelay", inner)
    termination = r.duration(obj, "terminationDelay", inner)
    return StartupProfile(
        startup=default.startup if startup is None else startup,
        readiness_delay=default.readiness_delay if readiness is None else readiness,
        termination=default.termination if termination is None else termination,
    )


def _event(
    r: FieldReader,
    item: Any,
    path: FieldPath,
    duration: timedelta | None,
    nodes: set[str],
    defined: Mapping[tuple[str, str], DefinedKind],
) -> ScenarioEvent | None:
    if not isinstance(item, dict):
        r.type_error(path, item, "object")
        return None
    kind = r.string(item, "type", path, need=True)
    if kind is not None and kind not in _EVENT_FIELDS:
        r.errors.append(not_supported(path.child("type"), kind, EVENT_TYPES))
        return None
    obj = r.mapping(item, path, ("at", "type", *(_EVENT_FIELDS[kind] if kind else ())))
    if obj is None or kind is None:
        return None
    at = r.duration(obj, "at", path, need=True)
    if at is not None and duration is not None and at > duration:
        r.errors.append(invalid(path.child("at"), obj["at"], "must not be after spec.duration"))
    if kind in ("scale", "crash"):
        target = None
        if obj.get("target") is None:
            r.errors.append(required(path.child("target")))
        else:
            target = read_target(r, obj["target"], path.child("target"), defined)
        replicas = r.integer(obj, "replicas", path, need=kind == "scale", minimum=0)
        count = r.integer(obj, "count", path, minimum=1)
        if at is None or target is None or (kind == "scale" and replicas is None):
            return None
        return ScenarioEvent(at, kind, target=target, replicas=replicas, count=count or 1)
    node = r.string(obj, "node", path, need=True)
    if node is not None and node not in nodes:
        r.errors.append(not_found(path.child("node"), node))
        return None
    if at is None or node is None:
        return None
    return ScenarioEvent(at, kind, node=node)


def read_events(
    r: FieldReader,
    spec: dict[str, Any],
    path: FieldPath,
    duration: timedelta | None,
    nodes: list[NodeSpec],
    defined: Mapping[tuple[str, str], DefinedKind] | None = None,
) -> list[ScenarioEvent]:
    """``spec.events``, ordered by time; ``defined`` are the kinds of the scenario's CRDs
    (``custom_kinds.defined_kinds``), which targets may name."""
    names = {n.name for n in nodes}
    events = []
    for i, item in enumerate(r.sequence(spec, "events", path)):
        event = _event(r, item, path.child("events").index(i), duration, names, defined or {})
        if event is not None:
            events.append(event)
    return sorted(events, key=lambda e: e.at)
