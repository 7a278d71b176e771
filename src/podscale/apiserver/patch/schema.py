"""Strategic-merge metadata: which lists of each built-in kind merge, and by which key.

Upstream reads it from the Go struct tags ``patchStrategy:"merge" patchMergeKey:"..."`` of the
API types; ``patch.strategic`` asks this table instead. The entries were written from
staging/src/k8s.io/api/core/v1/types.go (ObjectMeta in apimachinery's meta/v1/types.go,
PodSpec, Container, PodStatus, NodeSpec/NodeStatus, NamespaceStatus), apps/v1/types.go and
autoscaling/v2/types.go. Every list not listed is atomic (replaced whole): tolerations, taints,
envFrom, readinessGates, affinity terms, label-selector expressions, HPA ``spec.metrics`` and
``status.currentMetrics``, container statuses. ``retainKeys`` strategies need no entry: the
``$retainKeys`` directive is honoured wherever a patch carries it.

A kind is *built-in* when it is registered in ``podscale.api.kinds``; subresources use their
object's kind (``Scale`` for ``/scale``, the parent kind for ``/status``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

__all__ = ["EMPTY", "SchemaNode", "schema_for"]

# path below the object -> merge key ("" merges a list of scalars as a set).
_Table = Mapping[tuple[str, ...], str]


@dataclass(frozen=True)
class SchemaNode:
    """Patch metadata of one field; ``fields`` describes its children (or its items' fields)."""

    merge: bool = False
    merge_key: str = ""
    fields: Mapping[str, SchemaNode] = field(default_factory=dict)

    def child(self, name: str) -> SchemaNode:
        """The metadata of field ``name``; unknown fields merge maps and replace lists."""
        return self.fields.get(name, EMPTY)


EMPTY: Final = SchemaNode()


def _under(prefix: tuple[str, ...], table: _Table) -> dict[tuple[str, ...], str]:
    return {prefix + path: key for path, key in table.items()}


_OBJECT_META: Final[_Table] = {("ownerReferences",): "uid", ("finalizers",): ""}

_CONTAINER: Final[_Table] = {
    ("ports",): "containerPort",
    ("env",): "name",
    ("volumeMounts",): "mountPath",
    ("volumeDevices",): "devicePath",
}

_POD_SPEC: Final[_Table] = {
    ("volumes",): "name",
    ("containers",): "name",
    ("initContainers",): "name",
    ("ephemeralContainers",): "name",
    **_under(("containers",), _CONTAINER),
    **_under(("initContainers",), _CONTAINER),
    **_under(("ephemeralContainers",), _CONTAINER),
    ("imagePullSecrets",): "name",
    ("hostAliases",): "ip",
    ("topologySpreadConstraints",): "topologyKey",
    ("schedulingGates",): "name",
    ("resourceClaims",): "name",
}

_POD_STATUS: Final[_Table] = {
    ("conditions",): "type",
    ("podIPs",): "ip",
    ("hostIPs",): "ip",
    ("resourceClaimStatuses",): "name",
}

_CONDITIONS: Final[_Table] = {("conditions",): "type"}

_META: Final = _under(("metadata",), _OBJECT_META)

_WORKLOAD: Final = {
    **_META,
    **_under(("spec", "template", "metadata"), _OBJECT_META),
    **_under(("spec", "template", "spec"), _POD_SPEC),
    **_under(("status",), _CONDITIONS),
}

_TABLES: Final[Mapping[tuple[str, str], _Table]] = {
    ("v1", "Pod"): {
        **_META,
        **_under(("spec",), _POD_SPEC),
        **_under(("status",), _POD_STATUS),
    },
    ("v1", "Node"): {
        **_META,
        ("spec", "podCIDRs"): "",
        ("status", "conditions"): "type",
        ("status", "addresses"): "type",
    },
    ("v1", "Namespace"): {**_META, **_under(("status",), _CONDITIONS)},
    ("v1", "Event"): _META,
    ("apps/v1", "Deployment"): _WORKLOAD,
    ("apps/v1", "ReplicaSet"): _WORKLOAD,
    ("apps/v1", "StatefulSet"): _WORKLOAD,
    ("autoscaling/v2", "HorizontalPodAutoscaler"): {**_META, **_under(("status",), _CONDITIONS)},
    ("autoscaling/v1", "HorizontalPodAutoscaler"): _META,
    ("autoscaling/v1", "Scale"): _META,
    ("v1", "ConfigMap"): _META,
    ("v1", "Secret"): _META,
    ("v1", "ServiceAccount"): {**_META, ("secrets",): "name"},
    # Service ports merge on the port number, as upstream's patchMergeKey says.
    ("v1", "Service"): {**_META, ("spec", "ports"): "port", **_under(("status",), _CONDITIONS)},
    ("policy/v1", "PodDisruptionBudget"): {**_META, **_under(("status",), _CONDITIONS)},
    ("coordination.k8s.io/v1", "Lease"): _META,
}


def _build(table: _Table) -> SchemaNode:
    """Fold ``path -> merge key`` entries into a tree of ``SchemaNode``s."""
    children: dict[str, dict[tuple[str, ...], str]] = {}
    own: dict[str, str] = {}
    for path, key in table.items():
        head, rest = path[0], path[1:]
        if rest:
            children.setdefault(head, {})[rest] = key
        else:
            own[head] = key
    names = children.keys() | own.keys()
    fields = {
        name: SchemaNode(
            merge=name in own,
            merge_key=own.get(name, ""),
            fields=_build(children.get(name, {})).fields,
        )
        for name in names
    }
    return SchemaNode(fields=fields)


_SCHEMAS: Final = {gvk: _build(table) for gvk, table in _TABLES.items()}


def schema_for(api_version: str, kind: str) -> SchemaNode:
    """The root metadata of a built-in kind; kinds without merge lists get ``EMPTY``."""
    return _SCHEMAS.get((api_version, kind), EMPTY)
