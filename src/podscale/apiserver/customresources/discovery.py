"""Discovery entries of the custom kinds, as ``ExtraGroupVersion`` values for ``discovery``.

Upstream's CRD discovery controller publishes every group version that an established CRD
serves: versions of a group in kube-aware priority order (the first is the preferred one),
each resource with its shortNames and categories (``kubectl get all`` and
``kubectl get <category>`` resolve through them) and its ``status``/``scale`` subresources.
``http.app`` appends these after the built-in groups, for legacy (``/apis``,
``/apis/<group>/<version>``) and aggregated discovery alike.
"""

from __future__ import annotations

from typing import Any

from podscale.apiserver.customresources.definitions import (
    CustomKind,
    condition_true,
    version_priority,
)
from podscale.apiserver.customresources.registry import CustomKinds
from podscale.apiserver.discovery import (
    ExtraGroupVersion,
    discovery_resource,
    from_kind,
    legacy_entries,
)

__all__ = ["custom_group_versions"]

JSON = dict[str, Any]


def custom_group_versions(kinds: CustomKinds) -> list[ExtraGroupVersion]:
    """One entry per served group version of the established CRDs, each group's versions
    in priority order."""
    by_gv: dict[tuple[str, str], list[CustomKind]] = {}
    for crd in kinds.definitions:
        if not condition_true(crd, "Established"):
            continue
        name = str((crd.get("metadata") or {}).get("name", ""))
        for kind in kinds.kinds_of(name):
            by_gv.setdefault((kind.group, kind.version), []).append(kind)
    groups: dict[str, list[str]] = {}
    for group, version in by_gv:
        groups.setdefault(group, []).append(version)
    extra: list[ExtraGroupVersion] = []
    for group in sorted(groups):
        for version in sorted(groups[group], key=version_priority):
            members = sorted(by_gv[(group, version)], key=lambda k: k.plural)
            legacy = [entry for kind in members for entry in legacy_entries(from_kind(kind))]
            legacy.sort(key=lambda e: str(e["name"]))
            extra.append(
                ExtraGroupVersion(
                    group,
                    version,
                    resources=tuple(legacy),
                    discovery_resources=tuple(
                        discovery_resource(from_kind(kind)) for kind in members
                    ),
                    # Served by the server itself: listed before the aggregated metrics APIs,
                    # as the CRD APIServices' priority puts them upstream.
                    built_in=True,
                )
            )
    return extra
