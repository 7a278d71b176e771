"""The custom kinds a scenario defines: CustomResourceDefinitions among its objects.

Pure functions over the scenario's manifests (plain dicts), shared by the loader and the
run. ``is_definition`` picks the CRDs out (a scenario creates them first and waits for
each to be Established, as ``kubectl apply`` users do before creating custom resources);
``defined_kinds`` maps each kind they define, per served version, to its resource name,
scope and scale subresource, so that ``unknown_kind`` can tell a kind that is neither built
in nor defined (the loader's clear error, in kubectl's words) and the run can resolve the
custom resources' URLs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from podscale.api.kinds import is_built_in

__all__ = [
    "CRD_API_VERSION",
    "DefinedKind",
    "defined_kinds",
    "is_definition",
    "no_match_message",
    "unknown_kind",
]

CRD_API_VERSION: Final = "apiextensions.k8s.io/v1"
_CRD_KIND: Final = "CustomResourceDefinition"


@dataclass(frozen=True, slots=True)
class DefinedKind:
    """A kind a scenario's CRD serves in one version."""

    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    scalable: bool


def is_definition(obj: Mapping[str, Any]) -> bool:
    """Whether ``obj`` is an apiextensions.k8s.io/v1 CustomResourceDefinition."""
    return obj.get("apiVersion") == CRD_API_VERSION and obj.get("kind") == _CRD_KIND


def defined_kinds(objects: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], DefinedKind]:
    """``(apiVersion, kind)`` -> ``DefinedKind`` for every served version of every CRD in
    ``objects`` (malformed CRDs define nothing: the API server reports them)."""
    found: dict[tuple[str, str], DefinedKind] = {}
    for obj in objects:
        if not is_definition(obj):
            continue
        spec = obj.get("spec")
        if not isinstance(spec, Mapping):
            continue
        names = spec.get("names")
        if not isinstance(names, Mapping):
            continue
        group, kind, plural = spec.get("group"), names.get("kind"), names.get("plural")
        if not (isinstance(group, str) and isinstance(kind, str) and isinstance(plural, str)):
            continue
        for version in spec.get("versions") or ():
            if not isinstance(version, Mapping) or not version.get("served"):
                continue
            name = str(version.get("name") or "")
            subresources = version.get("subresources") or {}
            scalable = isinstance(subresources, Mapping) and "scale" in subresources
            namespaced = spec.get("scope") != "Cluster"
            found[(f"{group}/{name}", kind)] = DefinedKind(
                group, name, kind, plural, namespaced, scalable
            )
    return found


def unknown_kind(
    api_version: str, kind: str, defined: Mapping[tuple[str, str], DefinedKind]
) -> bool:
    """Whether ``kind`` in ``api_version`` is neither built in nor defined by a CRD."""
    return (api_version, kind) not in defined and not is_built_in(api_version, kind)


def no_match_message(api_version: str, kind: str) -> str:
    """kubectl's error for a kind no resource serves, with where a scenario defines one."""
    return (
        f'no matches for kind "{kind}" in version "{api_version}": ensure CRDs are installed '
        "first (a CustomResourceDefinition in spec.manifests, or a CRD podscale ships in "
        "spec.crds)"
    )
