"""Which kinds a scenario's targets may name: any kind with a scale subresource.

A target (``spec.workloads[*].target``, and the ``target`` of ``scale`` and ``crash``
events) names the object that receives the load, as an HPA's ``scaleTargetRef`` does: a
built-in kind with a scale subresource (``model.TARGET_API_VERSIONS``: Deployment,
ReplicaSet, StatefulSet in apps/v1) or a namespaced kind defined by a CustomResourceDefinition
of the scenario (``custom_kinds.defined_kinds``) that serves the scale subresource.
``resolve_target_api_version`` checks a target's ``kind`` (and optional ``apiVersion``)
against both and says which apiVersion the target lives in; ``podscale.scenario.workloads``
reports its errors in ``field.Error`` form. Without an ``apiVersion`` a custom kind is
looked up in the scenario's CRDs (the first served version with a scale subresource).
"""

from __future__ import annotations

from collections.abc import Mapping

from podscale.api.field_errors import FieldError, FieldPath, invalid, not_supported, required
from podscale.scenario.custom_kinds import DefinedKind
from podscale.scenario.model import TARGET_API_VERSIONS

__all__ = ["resolve_target_api_version", "target_kind_names"]

Defined = Mapping[tuple[str, str], DefinedKind]


def _usable(found: DefinedKind) -> bool:
    return found.scalable and found.namespaced


def target_kind_names(defined: Defined) -> list[str]:
    """Every kind a target may name: the built-in ones, then the scenario's scalable ones."""
    custom = sorted({d.kind for d in defined.values() if _usable(d)} - set(TARGET_API_VERSIONS))
    return [*TARGET_API_VERSIONS, *custom]


def _crd_name(found: DefinedKind) -> str:
    return f"{found.plural}.{found.group}"


def resolve_target_api_version(
    kind: str, api_version: str | None, defined: Defined, path: FieldPath
) -> tuple[str | None, list[FieldError]]:
    """The apiVersion of the target ``kind`` (``api_version`` as written, None when left
    out), or None and the errors saying why the kind cannot be a target."""
    built_in = TARGET_API_VERSIONS.get(kind)
    if built_in is not None and api_version in (None, built_in):
        return built_in, []
    same_kind = [d for d in defined.values() if d.kind == kind]
    versions = sorted({f"{d.group}/{d.version}" for d in same_kind if _usable(d)})
    if built_in is not None:
        versions = sorted({*versions, built_in})
    if api_version is not None:
        if versions and api_version not in versions:
            return None, [not_supported(path.child("apiVersion"), api_version, versions)]
        same_kind = [d for d in same_kind if f"{d.group}/{d.version}" == api_version]
    if not same_kind:
        return None, [not_supported(path.child("kind"), kind, target_kind_names(defined))]
    usable = [d for d in same_kind if _usable(d)]
    if not usable:
        found = same_kind[0]
        why = (
            f"the CustomResourceDefinition {_crd_name(found)} serves no scale subresource "
            f"for {found.group}/{found.version}: a target needs one "
            "(spec.versions[*].subresources.scale), as an HPA's scaleTargetRef does"
            if not found.scalable
            else f"the CustomResourceDefinition {_crd_name(found)} is cluster-scoped: "
            "a target must be namespaced, as an HPA's scaleTargetRef is"
        )
        return None, [invalid(path.child("kind"), kind, why)]
    groups = sorted({d.group for d in usable})
    if api_version is None and len(groups) > 1:
        detail = f"kind {kind} is defined in several groups ({', '.join(groups)}): say which"
        return None, [required(path.child("apiVersion"), detail)]
    first = usable[0]
    return f"{first.group}/{first.version}", []
