"""An update's type check walks only what differs from the stored object, with the same result.

``type_mismatches(..., old)`` skips the values that are the same JSON as the stored
object's at the same place, at any depth (``types._check_changed``). For a stored object
that passed the check (every stored object did), the first mismatch must be the one the
full walk finds: random objects of two kinds, random edits (wrong types, ``1.0`` and
``true`` for ``1``, added and removed keys, longer and shorter lists) go through both.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from podscale.apiserver.openapi import type_walk
from podscale.apiserver.openapi.schemas import all_schemas
from podscale.apiserver.openapi.types import type_mismatches

JSON = dict[str, Any]

HPA: JSON = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {
        "name": "web",
        "namespace": "default",
        "labels": {"app": "web"},
        "resourceVersion": "7",
        "managedFields": [
            {"manager": "m", "operation": "Update", "fieldsV1": {"f:spec": {}}},
        ],
    },
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
        "minReplicas": 1,
        "maxReplicas": 10,
        "metrics": [
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 50},
                },
            }
        ],
    },
    "status": {
        "currentReplicas": 3,
        "desiredReplicas": 3,
        "currentMetrics": [
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "current": {"averageUtilization": 33, "averageValue": "66m"},
                },
            }
        ],
        "conditions": [
            {
                "type": "AbleToScale",
                "status": "True",
                "reason": "ReadyForNewScale",
                "message": "ok",
            },
            {
                "type": "ScalingActive",
                "status": "True",
                "reason": "ValidMetricFound",
                "message": "m",
            },
        ],
    },
}

POD: JSON = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web-1", "namespace": "default", "labels": {"app": "web"}},
    "spec": {
        "nodeName": "node-1",
        "containers": [
            {
                "name": "app",
                "image": "nginx",
                "ports": [{"containerPort": 80, "protocol": "TCP"}],
                "resources": {"requests": {"cpu": "200m"}, "limits": {"cpu": 1}},
                "readinessProbe": {"httpGet": {"port": 8080, "path": "/"}},
            }
        ],
    },
    "status": {
        "phase": "Running",
        "conditions": [{"type": "Ready", "status": "True"}],
        "containerStatuses": [
            {"name": "app", "ready": True, "restartCount": 0, "state": {"running": {}}}
        ],
    },
}

# Values put in place of others: right and wrong JSON types, the numbers Python takes as
# equal to 1 (JSON does not), integers beyond int32 and int64, containers.
_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 3),
    st.sampled_from([1.0, 2.5, -0.0, 2**31, 2**63, "", "a", "1", "True", "66m"]),
    st.lists(st.sampled_from(["a", 1, None]), max_size=2),
    st.dictionaries(
        st.sampled_from(["name", "type", "x"]), st.sampled_from(["cpu", 1]), max_size=2
    ),
)


def _containers(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The paths of every object and array in ``value``."""
    if isinstance(value, dict):
        found = [at]
        for key, child in value.items():
            found += _containers(child, (*at, key))
        return found
    if isinstance(value, list):
        found = [at]
        for index, child in enumerate(value):
            found += _containers(child, (*at, index))
        return found
    return []


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def _twins(value: Any) -> list[Any]:
    """Values equal to ``value`` in Python but not in JSON (or its text)."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        return []
    if isinstance(value, str):
        return [value + " "] if value else [0]
    return [float(value), str(value)] + ([bool(value)] if value in (0, 1) else [])


def _edit(data: st.DataObject, obj: JSON, values: st.SearchStrategy[Any]) -> None:
    """One random edit of ``obj`` in place: a key set to a twin of its value, set or
    dropped, an item set, appended or cut off."""
    target = _at(obj, data.draw(st.sampled_from(_containers(obj))))
    if isinstance(target, dict):
        keys = [*sorted(target), "name", "extra", "status", "conditions"]
        key = data.draw(st.sampled_from(keys))
        twins = _twins(target.get(key))
        if twins and data.draw(st.booleans()):
            target[key] = data.draw(st.sampled_from(twins))
        elif key in target and data.draw(st.booleans()):
            del target[key]
        else:
            target[key] = data.draw(values)
    elif target and data.draw(st.booleans()):
        index = data.draw(st.integers(0, len(target) - 1))
        if data.draw(st.booleans()):
            del target[index:]
        else:
            target[index] = data.draw(values)
    else:
        target.append(data.draw(values))


def _stored(data: st.DataObject, template: JSON) -> JSON:
    """A stored object: the template with a few edits that keep it well typed."""
    old = copy.deepcopy(template)
    for _ in range(data.draw(st.integers(0, 3))):
        _edit(data, old, st.sampled_from([None, "b", 4, {}, []]))
    assume(type_mismatches(str(template["apiVersion"]), str(template["kind"]), old) == [])
    return old


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data(), template=st.sampled_from([HPA, POD]))
def test_an_update_finds_the_mismatch_the_full_walk_finds(
    data: st.DataObject, template: JSON
) -> None:
    old = _stored(data, template)
    new = copy.deepcopy(old)
    for _ in range(data.draw(st.integers(0, 4))):
        _edit(data, new, _VALUES)
    api_version, kind = str(template["apiVersion"]), str(template["kind"])
    assert type_mismatches(api_version, kind, new, old) == type_mismatches(api_version, kind, new)


def _hpa(**status: Any) -> JSON:
    obj = copy.deepcopy(HPA)
    obj["status"].update(status)
    return obj


def _mistyped_stored() -> JSON:
    # A stored value the check would refuse (no stored object has one): the proof that a
    # value equal to the stored one is not walked, however deep.
    old = copy.deepcopy(HPA)
    old["status"]["conditions"][1]["status"] = 7
    old["status"]["currentMetrics"][0]["resource"]["current"]["averageUtilization"] = "x"
    return old


def _changed_reason() -> JSON:
    new = _mistyped_stored()
    new["status"]["conditions"][0]["reason"] = "ScaleDownStabilized"
    return new


def _changed_sibling() -> JSON:
    new = _mistyped_stored()
    new["status"]["currentMetrics"][0]["resource"]["current"]["averageValue"] = "67m"
    return new


def _edited(edit: Any) -> JSON:
    new = _mistyped_stored()
    edit(new)
    return new


@pytest.mark.parametrize(
    ("new", "expected"),
    [
        (_mistyped_stored(), []),
        (_changed_reason(), []),
        (_changed_sibling(), []),
        # A stored value changed: walked, and reported where it is.
        (
            _edited(lambda o: o["status"]["conditions"][1].update(status=8)),
            ["status.conditions[1].status"],
        ),
        # Equal in Python, not in JSON: 7.0 and true are not the stored 7.
        (
            _edited(lambda o: o["status"]["conditions"][1].update(status=7.0)),
            ["status.conditions[1].status"],
        ),
        (
            _edited(lambda o: o["status"].update(currentReplicas=True)),
            ["status.currentReplicas"],
        ),
        # An item past the stored list's end is walked whole.
        (
            _edited(lambda o: o["status"]["conditions"].append({"type": "X", "status": 1})),
            ["status.conditions[2].status"],
        ),
        # A key the stored object lacks is walked whole.
        (_edited(lambda o: o["status"].update(lastScaleTime=5)), ["status.lastScaleTime"]),
        # A container turned scalar (or the reverse) is checked against its type.
        (_edited(lambda o: o["status"].update(conditions="none")), ["status.conditions"]),
        (_edited(lambda o: o["spec"].update(minReplicas={"a": 1})), ["spec.minReplicas"]),
    ],
    ids=[
        "unchanged-skipped",
        "changed-sibling-condition-skips-the-rest",
        "changed-sibling-leaf-skips-the-rest",
        "changed-leaf-checked",
        "7.0-is-not-7",
        "true-is-not-3",
        "appended-item-checked",
        "new-key-checked",
        "list-to-string",
        "int-to-object",
    ],
)
def test_only_what_differs_from_the_stored_object_is_walked(new: JSON, expected: list[str]) -> None:
    found = type_mismatches("autoscaling/v2", "HorizontalPodAutoscaler", new, _mistyped_stored())
    assert [m.path for m in found] == expected


def test_another_api_version_is_walked_whole() -> None:
    old = _mistyped_stored()
    new = copy.deepcopy(old)
    old["apiVersion"] = "autoscaling/v1"
    found = type_mismatches("autoscaling/v2", "HorizontalPodAutoscaler", new, old)
    assert [m.path for m in found] == [
        "status.currentMetrics[0].resource.current.averageUtilization"
    ]


def _node_from_scratch(schema: Any) -> tuple[Any, ...]:
    """What ``types._node`` keeps of a schema node, read again without its memo."""
    name, resolved = type_walk._resolve(schema)
    parts = [resolved.get(k) for k in ("properties", "additionalProperties", "items")]
    return (
        name,
        resolved,
        name in type_walk.ALTERNATIVES or name in (type_walk.QUANTITY, type_walk.INT_OR_STRING),
        resolved.get("type"),
        type_walk._WANTED.get(str(resolved.get("type"))),
        str(resolved.get("format", "")),
        name.rpartition(".")[2] if name is not None else None,
        *(part if isinstance(part, Mapping) else None for part in parts),
    )


def test_memoized_schema_nodes_equal_their_resolution() -> None:
    """``_node`` (kept by the node's id) is what resolving the node gives, for every node
    a status write of these kinds walks and for every published schema."""
    type_mismatches("autoscaling/v2", "HorizontalPodAutoscaler", _hpa(currentReplicas=4), HPA)
    nodes = [schema for schema, _ in type_walk._NODES.values()]
    nodes += [{"$ref": f"#/components/schemas/{name}"} for name in all_schemas()]
    nodes += list(all_schemas().values())
    assert len(nodes) > 100
    for schema in nodes:
        assert tuple(type_walk._node(schema)) == _node_from_scratch(schema)
        assert tuple(type_walk._node(schema)) == _node_from_scratch(schema)  # from the memo


def test_memoized_schema_node_is_not_served_for_another_node_at_the_same_id() -> None:
    """A node the memo does not hold is resolved anew, even were its id one it kept."""
    first = {"type": "object", "properties": {"a": {"type": "string"}}}
    type_walk._node(first)
    second = {"type": "array", "items": {"type": "integer"}}
    type_walk._NODES[id(second)] = type_walk._NODES[id(first)]  # a stale entry under its id
    assert tuple(type_walk._node(second)) == _node_from_scratch(second)
    assert type_walk._node(second).declared == "array"
