"""A stored CustomResourceDefinition read as the kinds it serves: pure functions over CRD dicts.

``custom_kinds(crd)`` gives one ``CustomKind`` per served version, named by the CRD's
``status.acceptedNames`` (upstream routes by the accepted names, which the naming controller,
``conditions`` here, copies from ``spec.names`` once they are free). A ``CustomKind`` is a
``KindInfo``, so the generic operations, watch and tables take it unchanged; it also carries
what custom resources need beyond that: the version's schema, the storage version, the status
and scale subresources and whether the CRD is being deleted. ``registry`` keeps the current set
per server; ``version_priority`` is upstream's kube-aware version order (discovery, preferred).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Final

from podscale.api.kinds import KindInfo, Subresource

__all__ = [
    "CLEANUP_FINALIZER",
    "CRD_GROUP",
    "CRD_KIND",
    "CRD_RESOURCE",
    "CUSTOM_RESOURCE_VERBS",
    "CustomKind",
    "ScalePaths",
    "condition_true",
    "custom_kinds",
    "find_condition",
    "is_definition",
    "storage_version",
    "version_priority",
]

JSON = dict[str, Any]

CRD_GROUP: Final = "apiextensions.k8s.io"
CRD_KIND: Final = "CustomResourceDefinition"
# The store's resource name of CRDs (the GroupResource string, as every kind is stored).
CRD_RESOURCE: Final = "customresourcedefinitions.apiextensions.k8s.io"
# Upstream's finalizer on a deleted CRD until its custom resources are gone.
CLEANUP_FINALIZER: Final = "customresourcecleanup.apiextensions.k8s.io"
# The verbs upstream's CRD discovery lists, in its order (kubectl prints them as given).
CUSTOM_RESOURCE_VERBS: Final = (
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "create",
    "update",
    "watch",
)
_SCALE: Final = Subresource("scale", "autoscaling", "v1", "Scale")
# v1, v2beta1, v10alpha3: Kubernetes-style versions sort before every other name.
_KUBE_VERSION: Final = re.compile(r"^v(\d+)(?:(alpha|beta)(\d+))?$")


@dataclass(frozen=True)
class ScalePaths:
    """The scale subresource's JSON paths (``.spec.replicas`` style; selector may be "")."""

    spec_replicas: str
    status_replicas: str
    label_selector: str = ""


@dataclass(frozen=True)
class CustomKind(KindInfo):
    """A kind served from a CRD in one version. ``schema`` is that version's
    ``openAPIV3Schema`` (None when the CRD has none); ``storage_version`` the version objects
    are stored in; ``terminating`` is set once the CRD is being deleted (creates are refused)."""

    crd_name: str = ""
    storage_version: str = ""
    schema: JSON | None = field(default=None, compare=False, hash=False)
    status_enabled: bool = False
    scale: ScalePaths | None = None
    terminating: bool = False
    # The CRD's ``spec.versions`` entry (printer columns for Tables).
    definition_version: JSON = field(default_factory=dict, compare=False, hash=False)

    @property
    def storage_api_version(self) -> str:
        return f"{self.group}/{self.storage_version}"


def is_definition(info: KindInfo) -> bool:
    """Whether ``info`` is the CustomResourceDefinition kind itself (any served version)."""
    return info.group == CRD_GROUP and info.kind == CRD_KIND


def version_priority(version: str) -> tuple[int, int, int, str]:
    """A sort key putting the highest-priority version first: GA by major descending, then
    betas, then alphas (each by major, then minor, descending), then other names
    alphabetically, as upstream's ``version.CompareKubeAwareVersionStrings``."""
    match = _KUBE_VERSION.match(version)
    if match is None:
        return (3, 0, 0, version)
    major = int(match.group(1))
    stage = {None: 0, "beta": 1, "alpha": 2}[match.group(2)]
    minor = int(match.group(3) or 0)
    return (stage, -major, -minor, "")


def find_condition(crd: JSON, kind: str) -> JSON | None:
    """The status condition of type ``kind``, if any."""
    status = crd.get("status")
    conditions = status.get("conditions") if isinstance(status, dict) else None
    for condition in conditions if isinstance(conditions, list) else []:
        if isinstance(condition, dict) and condition.get("type") == kind:
            return condition
    return None


def condition_true(crd: JSON, kind: str) -> bool:
    condition = find_condition(crd, kind)
    return condition is not None and condition.get("status") == "True"


def _versions(crd: JSON) -> list[JSON]:
    versions = (crd.get("spec") or {}).get("versions")
    return [v for v in versions if isinstance(v, dict)] if isinstance(versions, list) else []


def storage_version(crd: JSON) -> str:
    """The name of the version marked ``storage: true`` (validation allows exactly one)."""
    for version in _versions(crd):
        if version.get("storage") is True:
            return str(version.get("name", ""))
    versions = _versions(crd)
    return str(versions[0].get("name", "")) if versions else ""


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(item) for item in value) if isinstance(value, list) else ()


def _scale_paths(subresources: JSON) -> ScalePaths | None:
    scale = subresources.get("scale")
    if not isinstance(scale, dict):
        return None
    return ScalePaths(
        str(scale.get("specReplicasPath", "")),
        str(scale.get("statusReplicasPath", "")),
        str(scale.get("labelSelectorPath", "") or ""),
    )


def _schema(version: JSON) -> JSON | None:
    schema = version.get("schema")
    found = schema.get("openAPIV3Schema") if isinstance(schema, dict) else None
    return found if isinstance(found, dict) else None


def custom_kinds(crd: JSON) -> list[CustomKind]:
    """The kinds ``crd`` serves: one per served version, by its accepted names; none while
    no name is accepted (a new CRD before ``conditions`` ran, or one whose names conflict)."""
    spec = crd.get("spec") or {}
    status = crd.get("status") or {}
    names = status.get("acceptedNames") or {}
    plural = str(names.get("plural") or "")
    kind = str(names.get("kind") or "")
    if not plural or not kind:
        return []
    served = [v for v in _versions(crd) if v.get("served") is True]
    if not served:
        return []
    group = str(spec.get("group", ""))
    preferred = min((str(v.get("name", "")) for v in served), key=version_priority)
    meta = crd.get("metadata") or {}
    terminating = bool(meta.get("deletionTimestamp"))
    kinds: list[CustomKind] = []
    for version in served:
        name = str(version.get("name", ""))
        subresources = version.get("subresources") or {}
        if not isinstance(subresources, dict):
            subresources = {}
        status_enabled = isinstance(subresources.get("status"), dict)
        scale = _scale_paths(subresources)
        subs: list[Subresource] = []
        if status_enabled:
            subs.append(Subresource("status", group, name, kind))
        if scale is not None:
            subs.append(_SCALE)
        kinds.append(
            CustomKind(
                group=group,
                version=name,
                kind=kind,
                plural=plural,
                singular=str(names.get("singular") or kind.lower()),
                short_names=_strings(names.get("shortNames")),
                namespaced=spec.get("scope") != "Cluster",
                verbs=CUSTOM_RESOURCE_VERBS,
                subresources=tuple(subs),
                categories=_strings(names.get("categories")),
                list_kind=str(names.get("listKind") or f"{kind}List"),
                preferred=name == preferred,
                crd_name=str(meta.get("name", "")),
                storage_version=storage_version(crd),
                schema=_schema(version),
                status_enabled=status_enabled,
                scale=scale,
                terminating=terminating,
                definition_version=version,
            )
        )
    return kinds
