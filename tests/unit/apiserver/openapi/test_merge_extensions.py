"""The server-side apply markers on podscale's schemas match upstream's generated OpenAPI v3.

Each row names a schema (and property) and the ``x-kubernetes-list-*`` / ``map-type`` markers
upstream's api/openapi-spec/v3 documents carry there; the merge code (``fieldmanager``) reads
exactly these to decide atomic vs granular ownership.
"""

from __future__ import annotations

from typing import Any

import pytest

from podscale.apiserver.openapi.dsl import apps, autoscaling_v2, core, meta
from podscale.apiserver.openapi.schemas import all_schemas

_MAP_BY = "x-kubernetes-list-map-keys"
_LIST = "x-kubernetes-list-type"

LIST_CASES: list[tuple[str, str, str, list[str] | None]] = [
    (meta("ObjectMeta"), "ownerReferences", "map", ["uid"]),
    (meta("ObjectMeta"), "finalizers", "set", None),
    (meta("ObjectMeta"), "managedFields", "atomic", None),
    (core("PodSpec"), "containers", "map", ["name"]),
    (core("PodSpec"), "initContainers", "map", ["name"]),
    (core("PodSpec"), "volumes", "map", ["name"]),
    (core("PodSpec"), "tolerations", "atomic", None),
    (core("PodSpec"), "topologySpreadConstraints", "map", ["topologyKey", "whenUnsatisfiable"]),
    (core("Container"), "ports", "map", ["containerPort", "protocol"]),
    (core("Container"), "env", "map", ["name"]),
    (core("Container"), "volumeMounts", "map", ["mountPath"]),
    (core("Container"), "args", "atomic", None),
    (core("ServiceSpec"), "ports", "map", ["port", "protocol"]),
    (core("NodeSpec"), "taints", "atomic", None),
    (core("NodeStatus"), "conditions", "map", ["type"]),
    (core("NamespaceSpec"), "finalizers", "atomic", None),
    (apps("DeploymentStatus"), "conditions", "map", ["type"]),
    (apps("StatefulSetSpec"), "volumeClaimTemplates", "atomic", None),
    (autoscaling_v2("HorizontalPodAutoscalerSpec"), "metrics", "atomic", None),
    (autoscaling_v2("HorizontalPodAutoscalerStatus"), "conditions", "map", ["type"]),
    (autoscaling_v2("HPAScalingRules"), "policies", "atomic", None),
]


@pytest.mark.parametrize(
    ("schema", "field", "list_type", "keys"),
    LIST_CASES,
    ids=[f"{name.rsplit('.', 1)[1]}.{field}-{lt}" for name, field, lt, _ in LIST_CASES],
)
def test_list_markers_follow_upstream(
    schema: str, field: str, list_type: str, keys: list[str] | None
) -> None:
    prop: dict[str, Any] = all_schemas()[schema]["properties"][field]
    assert prop[_LIST] == list_type
    assert prop.get(_MAP_BY) == keys


# Upstream's +structType=atomic types: a reference or selector is owned and replaced whole.
ATOMIC_STRUCTS = [
    meta("OwnerReference"),
    meta("LabelSelector"),
    core("ObjectReference"),
    core("LocalObjectReference"),
    core("TypedLocalObjectReference"),
    core("ConfigMapKeySelector"),
    core("SecretKeySelector"),
    core("FileKeySelector"),
    core("ObjectFieldSelector"),
    core("ResourceFieldSelector"),
    core("NodeSelector"),
    core("NodeSelectorTerm"),
]


@pytest.mark.parametrize(
    "schema", ATOMIC_STRUCTS, ids=[n.rsplit(".", 1)[1] for n in ATOMIC_STRUCTS]
)
def test_struct_type_atomic_is_map_type_atomic(schema: str) -> None:
    assert all_schemas()[schema]["x-kubernetes-map-type"] == "atomic"


MAP_CASES: list[tuple[str, str, str | None]] = [
    (core("PodSpec"), "nodeSelector", "atomic"),
    (core("ServiceSpec"), "selector", "atomic"),
    (core("PersistentVolumeClaimStatus"), "allocatedResourceStatuses", "granular"),
    (meta("ObjectMeta"), "labels", None),
    (meta("LabelSelector"), "matchLabels", None),
]


@pytest.mark.parametrize(
    ("schema", "field", "map_type"),
    MAP_CASES,
    ids=[f"{name.rsplit('.', 1)[1]}.{field}-{mt or 'unmarked'}" for name, field, mt in MAP_CASES],
)
def test_map_markers_follow_upstream(schema: str, field: str, map_type: str | None) -> None:
    prop = all_schemas()[schema]["properties"][field]
    assert prop.get("x-kubernetes-map-type") == map_type


def test_unmarked_struct_stays_granular() -> None:
    # Most structs carry no marker: apply merges them field by field (upstream's default).
    assert "x-kubernetes-map-type" not in all_schemas()[core("PodSpec")]
    assert (
        "x-kubernetes-map-type" not in all_schemas()[autoscaling_v2("CrossVersionObjectReference")]
    )
