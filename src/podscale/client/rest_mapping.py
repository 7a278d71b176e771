"""A kind's REST mappings read from an API server's discovery documents.

Upstream's controllers map a ``GroupKind`` to resources with a RESTMapper fed by discovery
(``restmapper.NewDeferredDiscoveryRESTMapper``): every version of the group that serves the
kind, the group's preferred version first. ``HttpApi.rest_mappings`` answers that question
for a remote server with the legacy discovery documents: ``/api`` or ``/apis/<group>`` for the
group's versions and preferred version (``versions_to_try``), then ``/api/v1`` or
``/apis/<group>/<version>`` for the resources of each, read by ``mappings_in`` as ``KindInfo``
values (subresources from its ``<plural>/<sub>`` entries, so a kind knows whether
it serves ``scale``). ``InProcessApi.rest_mappings`` answers the same from the server's own
registries without documents.
"""

from __future__ import annotations

from typing import Any

from podscale.api.kinds import KindInfo, Subresource

__all__ = ["group_root", "mappings_in", "versions_to_try"]

JSON = dict[str, Any]


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(item) for item in value) if isinstance(value, list) else ()


def _subresources(group: str, version: str, plural: str, entries: list[JSON]) -> list[Subresource]:
    """The ``<plural>/<name>`` entries; ``group``/``version`` are omitted when they are the
    parent's (discovery writes them only for scale, which is autoscaling/v1)."""
    found: list[Subresource] = []
    for entry in entries:
        parent, _, name = str(entry.get("name") or "").partition("/")
        if parent != plural or not name or "/" in name:
            continue
        found.append(
            Subresource(
                name,
                str(entry.get("group", group)),
                str(entry.get("version", version)),
                str(entry.get("kind") or ""),
                _strings(entry.get("verbs")),
            )
        )
    return found


def mappings_in(
    group: str, version: str, kind: str, resource_list: JSON, *, preferred: bool
) -> list[KindInfo]:
    """The top-level resources of ``resource_list`` (one version's ``APIResourceList``) whose
    kind is ``kind``."""
    raw = resource_list.get("resources")
    entries = [entry for entry in raw if isinstance(entry, dict)] if isinstance(raw, list) else []
    mappings: list[KindInfo] = []
    for entry in entries:
        plural = str(entry.get("name") or "")
        if not plural or "/" in plural or entry.get("kind") != kind:
            continue
        mappings.append(
            KindInfo(
                group=group,
                version=version,
                kind=kind,
                plural=plural,
                singular=str(entry.get("singularName") or kind.lower()),
                short_names=_strings(entry.get("shortNames")),
                namespaced=bool(entry.get("namespaced")),
                verbs=_strings(entry.get("verbs")),
                subresources=tuple(_subresources(group, version, plural, entries)),
                categories=_strings(entry.get("categories")),
                list_kind=f"{kind}List",
                preferred=preferred,
            )
        )
    return mappings


def group_root(group: str) -> str:
    """The discovery path of ``group``: ``/api`` for the core group."""
    return "/api" if not group else f"/apis/{group}"


def _group_versions(group: str, document: JSON) -> tuple[list[str], str]:
    """The versions a group document lists, and its preferred one."""
    if not group:  # /api answers an APIVersions: plain version strings, v1 first
        versions = [str(v) for v in _strings(document.get("versions"))]
        return versions, versions[0] if versions else ""
    raw = document.get("versions")
    items = [v for v in raw if isinstance(v, dict)] if isinstance(raw, list) else []
    versions = [str(v.get("version") or "") for v in items]
    preferred = document.get("preferredVersion")
    chosen = str(preferred.get("version") or "") if isinstance(preferred, dict) else ""
    return [v for v in versions if v], chosen or (versions[0] if versions else "")


def versions_to_try(group: str, document: JSON) -> tuple[list[str], str]:
    """The versions of ``group``'s discovery document (``/api`` or ``/apis/<group>``), the
    preferred one first, and the preferred one."""
    versions, preferred = _group_versions(group, document)
    return sorted(versions, key=lambda version: version != preferred), preferred
