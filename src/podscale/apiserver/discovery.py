"""Discovery documents generated from the kind registry (``podscale.api.kinds``).

Legacy discovery (``/api``, ``/apis``, ``/api/v1``, ``/apis/<g>/<v>``) and aggregated discovery
(apidiscovery.k8s.io v2 / v2beta1), negotiated on the Accept header: kubectl picks its parser
from the Content-Type alone, so the aggregated form goes out only to a client that asked for it
and with the exact media type (kubectl-wire.md §1). ``routes`` serves these; the optional
metrics.k8s.io group appears only when the app has a metrics provider (``metrics``). Groups
served outside the kind registry (the custom and external metrics APIs, ``metricsapis.apis``) come
in ready-made as ``ExtraGroupVersion`` values through the ``extra`` keyword.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from podscale.api.kind_discovery import served_group_versions
from podscale.api.kinds import KindInfo, all_kinds
from podscale.api.version import KUBERNETES_VERSION

__all__ = [
    "METRICS_GROUP",
    "METRICS_RESOURCES",
    "ExtraGroupVersion",
    "Resource",
    "aggregated_content_type",
    "api_group_list",
    "api_resource_list",
    "api_versions",
    "discovery_list",
    "discovery_resource",
    "from_kind",
    "legacy_entries",
    "negotiate_aggregated",
    "served_resources",
    "version_info",
]

JSON = dict[str, Any]

METRICS_GROUP: Final = ("metrics.k8s.io", "v1beta1")
_AGGREGATED_VERSIONS: Final = ("v2", "v2beta1")


@dataclass(frozen=True)
class Resource:
    """What discovery says about one top-level resource (a registry kind or a metrics one)."""

    group: str
    version: str
    plural: str
    singular: str
    kind: str
    namespaced: bool
    verbs: tuple[str, ...]
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    subresources: tuple[tuple[str, str, str, str, tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class ExtraGroupVersion:
    """A group version whose resources are not registry kinds: its legacy ``APIResource``
    entries and its aggregated ``APIResourceDiscovery`` entries, already rendered.
    ``built_in`` groups (served by the API server itself, like the self reviews) are listed
    before the aggregated metrics groups, as upstream orders them."""

    group: str
    version: str
    resources: tuple[JSON, ...] = ()
    discovery_resources: tuple[JSON, ...] = ()
    built_in: bool = False


def from_kind(info: KindInfo) -> Resource:
    """What discovery says about a kind (a registry kind or a custom resource's)."""
    subs = tuple((s.name, s.group, s.version, s.kind, s.verbs) for s in info.subresources)
    return Resource(
        info.group,
        info.version,
        info.plural,
        info.singular,
        info.kind,
        info.namespaced,
        info.verbs,
        info.short_names,
        info.categories,
        subs,
    )


METRICS_RESOURCES: Final = (
    Resource("metrics.k8s.io", "v1beta1", "nodes", "", "NodeMetrics", False, ("get", "list")),
    Resource("metrics.k8s.io", "v1beta1", "pods", "", "PodMetrics", True, ("get", "list")),
)


def served_resources(with_metrics: bool) -> list[Resource]:
    resources = [from_kind(info) for info in all_kinds() if info.top_level]
    return resources + list(METRICS_RESOURCES) if with_metrics else resources


def _group_versions(
    with_metrics: bool, extra: Sequence[ExtraGroupVersion] = ()
) -> list[tuple[str, str]]:
    pairs = served_group_versions() + [(e.group, e.version) for e in extra if e.built_in]
    pairs = [*pairs, METRICS_GROUP] if with_metrics else pairs
    return pairs + [(e.group, e.version) for e in extra if not e.built_in]


def version_info(git_version: str = KUBERNETES_VERSION) -> JSON:
    """``/version``: minor 32 makes the kubectl dispatcher use its built-in 1.32.4 (§0)."""
    major, minor = git_version.lstrip("v").split(".")[:2]
    return {
        "major": major,
        "minor": minor,
        "gitVersion": git_version,
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2025-01-01T00:00:00Z",
        "goVersion": "go1.23.0",
        "compiler": "gc",
        "platform": "linux/amd64",
    }


def api_versions(server_address: str) -> JSON:
    return {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [
            {"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}
        ],
    }


def _gv(group: str, version: str) -> JSON:
    return {"groupVersion": f"{group}/{version}", "version": version}


def api_group_list(with_metrics: bool, extra: Sequence[ExtraGroupVersion] = ()) -> JSON:
    groups: dict[str, list[str]] = {}
    for group, version in _group_versions(with_metrics, extra):
        if group:
            groups.setdefault(group, []).append(version)
    return {
        "kind": "APIGroupList",
        "apiVersion": "v1",
        "groups": [
            {
                "name": group,
                "versions": [_gv(group, v) for v in versions],
                "preferredVersion": _gv(group, versions[0]),
            }
            for group, versions in groups.items()
        ],
    }


def legacy_entries(res: Resource) -> list[JSON]:
    """The ``APIResource`` entries of ``res`` in its group version's list: the resource,
    then each subresource (named ``<plural>/<sub>``, with its group and version when they
    are not the list's)."""
    entry: JSON = {
        "name": res.plural,
        "singularName": res.singular,
        "namespaced": res.namespaced,
        "kind": res.kind,
        "verbs": list(res.verbs),
    }
    if res.short_names:
        entry["shortNames"] = list(res.short_names)
    if res.categories:
        entry["categories"] = list(res.categories)
    entries = [entry]
    for name, sub_group, sub_version, kind, verbs in res.subresources:
        sub: JSON = {
            "name": f"{res.plural}/{name}",
            "singularName": "",
            "namespaced": res.namespaced,
        }
        if (sub_group, sub_version) != (res.group, res.version):
            sub["group"] = sub_group
            sub["version"] = sub_version
        sub.update({"kind": kind, "verbs": list(verbs)})
        entries.append(sub)
    return entries


def api_resource_list(
    group: str, version: str, with_metrics: bool, extra: Sequence[ExtraGroupVersion] = ()
) -> JSON | None:
    """``/api/v1`` or ``/apis/<g>/<v>``; None for a group version that is not served."""
    if (group, version) not in _group_versions(with_metrics, extra):
        return None
    for ready in extra:
        if (ready.group, ready.version) == (group, version):
            return {
                "kind": "APIResourceList",
                "apiVersion": "v1",
                "groupVersion": f"{group}/{version}",
                "resources": list(ready.resources),
            }
    entries: list[JSON] = []
    for res in served_resources(with_metrics):
        if (res.group, res.version) != (group, version):
            continue
        entries += legacy_entries(res)
    entries.sort(key=lambda e: str(e["name"]))
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": version if not group else f"{group}/{version}",
        "resources": entries,
    }


def negotiate_aggregated(accept: str | None) -> str | None:
    """The aggregated discovery version the client asked for first ("v2"/"v2beta1"), if any.

    Plain ``application/json`` (or ``*/*``) before any aggregated entry means legacy.
    """
    for entry in (accept or "").split(","):
        parts = [p.strip() for p in entry.split(";")]
        params = dict(p.partition("=")[::2] for p in parts[1:])
        if parts[0] in ("application/json", "*/*", "application/*") and not params:
            return None
        if (
            params.get("g") == "apidiscovery.k8s.io"
            and params.get("as") == "APIGroupDiscoveryList"
            and params.get("v") in _AGGREGATED_VERSIONS
        ):
            return params["v"]
    return None


def aggregated_content_type(version: str) -> str:
    return f"application/json;g=apidiscovery.k8s.io;v={version};as=APIGroupDiscoveryList"


def discovery_resource(res: Resource) -> JSON:
    """The aggregated-discovery ``APIResourceDiscovery`` entry of ``res``."""
    entry: JSON = {
        "resource": res.plural,
        "responseKind": {"group": res.group, "version": res.version, "kind": res.kind},
        "scope": "Namespaced" if res.namespaced else "Cluster",
        "singularResource": res.singular,
        "verbs": list(res.verbs),
    }
    if res.short_names:
        entry["shortNames"] = list(res.short_names)
    if res.categories:
        entry["categories"] = list(res.categories)
    subs = [
        {
            "subresource": name,
            "responseKind": {"group": g, "version": v, "kind": kind},
            "verbs": list(verbs),
        }
        for name, g, v, kind, verbs in sorted(res.subresources)
    ]
    if subs:
        entry["subresources"] = subs
    return entry


def _sorted_resources(resources: list[Resource], group: str, version: str) -> list[JSON]:
    entries = [discovery_resource(r) for r in resources if (r.group, r.version) == (group, version)]
    return sorted(entries, key=lambda e: str(e["resource"]))


def discovery_list(
    core: bool, version: str, with_metrics: bool, extra: Sequence[ExtraGroupVersion] = ()
) -> JSON:
    """The aggregated ``APIGroupDiscoveryList`` for ``/api`` (core) or ``/apis``."""
    groups: dict[str, list[str]] = {}
    for group, gv_version in _group_versions(with_metrics, extra):
        if (group == "") == core:
            groups.setdefault(group, []).append(gv_version)
    resources = served_resources(with_metrics)
    ready = {(e.group, e.version): list(e.discovery_resources) for e in extra}
    items = [
        {
            "metadata": {"name": group, "creationTimestamp": None},
            "versions": [
                {
                    "version": v,
                    "resources": ready[(group, v)]
                    if (group, v) in ready
                    else _sorted_resources(resources, group, v),
                    "freshness": "Current",
                }
                for v in versions
            ],
        }
        for group, versions in groups.items()
    ]
    return {
        "kind": "APIGroupDiscoveryList",
        "apiVersion": f"apidiscovery.k8s.io/{version}",
        "metadata": {},
        "items": items,
    }
