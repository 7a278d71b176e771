"""URL resolution and storage mapping: which kind, namespace, name and subresource a path names.

``parse_path`` turns ``/apis/apps/v1/namespaces/default/replicasets/web/scale`` into a
``Target``; the handlers (``handlers_*``, ``subresources``, ``watch``) work on that and the
``operations*`` modules on its parts. Every kind is stored once under its GroupResource
string in its preferred version: HorizontalPodAutoscalers live in autoscaling/v2 and are
converted on the way in and out (``to_storage``/``to_served``), events.k8s.io/v1 Events
live with the core/v1 ones (``podscale.api.conversion_events``). ``to_served`` also fills the
status fields Go always serialises (no ``omitempty``), which strict clients require
(kubectl-wire.md §8: ``desiredReplicas`` on HPAs, ``replicas`` on ReplicaSet/StatefulSet).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from podscale.api import convert_hpa
from podscale.api.conversion_events import EVENTS_API_VERSION, event_from_core, event_to_core
from podscale.api.kinds import KindInfo, resource_for
from podscale.apiserver.customresources.definitions import CustomKind
from podscale.apiserver.customresources.serving import to_served_custom, to_storage_custom

__all__ = [
    "Target",
    "lookup_kind",
    "parse_path",
    "storage_resource",
    "to_served",
    "to_storage",
]

JSON = dict[str, Any]

_HPA: Final = "HorizontalPodAutoscaler"
_STORED_HPA_VERSION: Final = "autoscaling/v2"
# Namespace subresources that sit where a namespaced collection would (/namespaces/x/status).
_NAMESPACE_SUBRESOURCES: Final = ("status", "finalize")
# Status fields Go serialises even when empty: a Service's loadBalancer struct, a PDB's
# counters (int32 without omitempty).
_STATUS_ALWAYS_SERIALISED: Final[dict[str, tuple[tuple[str, Any], ...]]] = {
    "Service": (("loadBalancer", dict),),
    "PodDisruptionBudget": tuple(
        (key, 0)
        for key in ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods")
    ),
    # A CRD's acceptedNames is a struct (no omitempty): empty names until they are accepted.
    "CustomResourceDefinition": (("acceptedNames", lambda: {"plural": "", "kind": ""}),),
}


@dataclass(frozen=True)
class Target:
    """A resolved API path. ``namespace`` None: all namespaces (or a cluster resource)."""

    group: str
    version: str
    plural: str
    namespace: str | None
    name: str | None
    subresource: str | None

    @property
    def group_resource(self) -> str:
        return self.plural if not self.group else f"{self.plural}.{self.group}"


def _split(path: str) -> tuple[str, str, list[str]] | None:
    parts = [p for p in path.split("/") if p]
    if len(parts) >= 2 and parts[0] == "api":
        return "", parts[1], parts[2:]
    if len(parts) >= 3 and parts[0] == "apis":
        return parts[1], parts[2], parts[3:]
    return None


def parse_path(path: str) -> Target | None:
    """The ``Target`` of a resource URL, or None when the path names no resource shape."""
    split = _split(path)
    if split is None:
        return None
    group, version, rest = split
    namespace: str | None = None
    if len(rest) >= 3 and rest[0] == "namespaces" and rest[2] not in _NAMESPACE_SUBRESOURCES:
        namespace, rest = rest[1], rest[2:]
    if not rest or len(rest) > 3:
        return None
    plural = rest[0]
    name = rest[1] if len(rest) >= 2 else None
    subresource = rest[2] if len(rest) == 3 else None
    if name == "" or subresource == "":
        return None
    return Target(group, version, plural, namespace, name, subresource)


def storage_resource(info: KindInfo) -> str:
    """The store's resource name: upstream's GroupResource string (events.k8s.io events
    are core events, as upstream stores them)."""
    if info.api_version == EVENTS_API_VERSION and info.kind == "Event":
        return "events"
    return info.plural if not info.group else f"{info.plural}.{info.group}"


def to_storage(obj: JSON, info: KindInfo) -> JSON:
    """``obj`` (in the served version of ``info``) as stored: HPAs become autoscaling/v2."""
    if isinstance(info, CustomKind):
        return to_storage_custom(obj, info)
    if info.kind == _HPA and info.api_version != _STORED_HPA_VERSION:
        return convert_hpa(obj, _STORED_HPA_VERSION)
    if info.kind == "Event" and info.api_version == EVENTS_API_VERSION:
        return event_to_core(obj)
    return obj


def to_served(obj: JSON, info: KindInfo) -> JSON:
    """A stored object as the client's version serialises it (mutates and returns ``obj``)."""
    if isinstance(info, CustomKind):
        return to_served_custom(obj, info)
    if info.kind == _HPA:
        if info.api_version != _STORED_HPA_VERSION:
            obj = convert_hpa(obj, info.api_version)
        status = obj.get("status")
        if not isinstance(status, dict):
            status = obj["status"] = {}
        status.setdefault("currentReplicas", 0)
        status.setdefault("desiredReplicas", 0)
    elif info.kind == "Event" and info.api_version == EVENTS_API_VERSION:
        obj = event_from_core(obj)
    elif info.kind in ("ReplicaSet", "StatefulSet"):
        status = obj.get("status")
        if not isinstance(status, dict):
            status = obj["status"] = {}
        status.setdefault("replicas", 0)
    elif info.kind in _STATUS_ALWAYS_SERIALISED:
        status = obj.get("status")
        if not isinstance(status, dict):
            status = obj["status"] = {}
        for key, empty in _STATUS_ALWAYS_SERIALISED[info.kind]:
            status.setdefault(key, empty() if callable(empty) else empty)
    return obj


def lookup_kind(target: Target) -> KindInfo | None:
    try:
        return resource_for(target.group, target.version, target.plural)
    except KeyError:
        return None
