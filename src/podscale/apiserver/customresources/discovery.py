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
from podscale.apiserver.discovery import ExtraGroupVersion

__all__ = ["custom_group_versions"]

JSON = dict[str, Any]


def _legacy_entries(kind: CustomKind) -> list[JSON]:
    entry: JSON = {
        "name": kind.plural,
        "singularName": kind.singular,
        "namespaced": kind.namespaced,
        "kind": kind.kind,
        "verbs": list(kind.verbs),
    }
    if kind.short_names:
        entry["shortNames"] = list(kind.short_names)
    if kind.categories:
        entry["categories"] = list(kind.categories)
    entries = [entry]
    for sub in kind.subresources:
        sub_entry: JSON = {
            "name": f"{kind.plural}/{sub.name}",
            "singularName": "",
            "namespaced": kind.namespaced,
        }
        if (sub.group, sub.version) != (kind.group, kind.version):
            sub_entry["group"] = sub.group
            sub_entry["version"] = sub.version
        sub_entry.update({"kind": sub.kind, "verbs": list(sub.verbs)})
        entries.append(sub_entry)
    return entries


def _aggregated_entry(kind: CustomKind) -> JSON:
    entry: JSON = {
        "resource": kind.plural,
        "responseKind": {"group": kind.group, "version": kind.version, "kind": kind.kind},
        "scope": "Namespaced" if kind.namespaced else "Cluster",
        "singularResource": kind.singular,
        "verbs": list(kind.verbs),
    }
    if kind.short_names:
        entry["shortNames"] = list(kind.short_names)
    if kind.categories:
        entry["categories"] = list(kind.categories)
    subs = [
        {
            "subresource": sub.name,
            "responseKind": {"group": sub.group, "version": sub.version, "kind": sub.kind},
            "verbs": list(sub.verbs),
        }
        for sub in sorted(kind.subresources, key=lambda s: s.name)
    ]
    if subs:
        entry["subresources"] = subs
    return entry


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
            legacy = [entry for kind in members for entry in _legacy_entries(kind)]
            legacy.sort(key=lambda e: str(e["name"]))
            extra.append(
                ExtraGroupVersion(
                    group,
                    version,
                    resources=tuple(legacy),
                    discovery_resources=tuple(_aggregated_entry(kind) for kind in members),
                    # Served by the server itself: listed before the aggregated metrics APIs,
                    # as the CRD APIServices' priority puts them upstream.
                    built_in=True,
                )
            )
    return extra
