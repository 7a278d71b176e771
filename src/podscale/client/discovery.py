"""The resources a server serves, read from its discovery documents: ``ServedKinds``.

Controllers that act on every kind (the garbage collector, the namespace controller) learn
what exists from discovery, as upstream's do (``discovery.ServerPreferredResources`` and the
deletable-resources filter over it), so custom resources that CustomResourceDefinitions add
at run time are covered. ``InProcessApi.served_kinds`` builds ``ServedKinds`` straight from
the server's registries; ``HttpApi.served_kinds`` calls ``discover_kinds`` here, which reads
legacy discovery (``/api``, ``/apis``, then each group version's resource list: every Kubernetes
server has it) and turns each ``APIResource`` into a ``KindInfo``. A group version whose list
fails is named in ``failed`` rather than failing the whole answer (upstream's
``ErrGroupDiscoveryFailed``: callers keep what they knew of it).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from podscale.api.kinds import KindInfo, Subresource, resource_for

__all__ = ["ServedKinds", "discover_kinds", "kinds_of_resource_list"]

JSON = dict[str, Any]
# Fetches one discovery document by path: None when the server could not answer it.
Fetch = Callable[[str], Awaitable[JSON | None]]


@dataclass(frozen=True)
class ServedKinds:
    """Every top-level resource served, in every served version (``preferred`` marks the
    group's preferred one), and the group versions discovery could not read."""

    kinds: tuple[KindInfo, ...]
    failed: frozenset[tuple[str, str]] = frozenset()


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(item) for item in value) if isinstance(value, list) else ()


def _subresources(entries: list[JSON], group: str, version: str) -> dict[str, list[Subresource]]:
    found: dict[str, list[Subresource]] = {}
    for entry in entries:
        parent, _, sub = str(entry.get("name", "")).partition("/")
        if not sub or "/" in sub:
            continue
        found.setdefault(parent, []).append(
            Subresource(
                sub,
                str(entry.get("group", group) or ""),
                str(entry.get("version", version) or version),
                str(entry.get("kind", "")),
                _strings(entry.get("verbs")),
            )
        )
    return found


def kinds_of_resource_list(
    resources: JSON, group: str, version: str, *, preferred: bool
) -> list[KindInfo]:
    """The kinds of one ``APIResourceList``. A resource podscale's registry knows keeps the
    registry's ``KindInfo`` (with the server's verbs and preferred flag), so clients handle it
    exactly as a built-in kind; any other one (a custom resource) is built from the entry."""
    entries = [e for e in resources.get("resources") or [] if isinstance(e, dict)]
    subresources = _subresources(entries, group, version)
    kinds: list[KindInfo] = []
    for entry in entries:
        plural = str(entry.get("name", ""))
        if not plural or "/" in plural:
            continue
        verbs = _strings(entry.get("verbs"))
        try:
            known = resource_for(group, version, plural)
        except KeyError:
            kind = str(entry.get("kind", ""))
            kinds.append(
                KindInfo(
                    group=group,
                    version=version,
                    kind=kind,
                    plural=plural,
                    singular=str(entry.get("singularName") or kind.lower()),
                    short_names=_strings(entry.get("shortNames")),
                    namespaced=entry.get("namespaced") is True,
                    verbs=verbs,
                    subresources=tuple(subresources.get(plural, ())),
                    categories=_strings(entry.get("categories")),
                    list_kind=f"{kind}List",
                    preferred=preferred,
                )
            )
        else:
            kinds.append(replace(known, verbs=verbs, preferred=preferred))
    return kinds


def _group_versions(core: JSON, groups: JSON) -> list[tuple[str, str, bool]]:
    """(group, version, preferred) for every served group version."""
    found = [("", str(v), True) for v in core.get("versions") or []]
    for group in groups.get("groups") or []:
        if not isinstance(group, dict):
            continue
        name = str(group.get("name", ""))
        preferred = (group.get("preferredVersion") or {}).get("version")
        versions = [v for v in group.get("versions") or [] if isinstance(v, dict)]
        if preferred is None and versions:
            preferred = versions[0].get("version")
        for entry in versions:
            version = str(entry.get("version", ""))
            found.append((name, version, version == preferred))
    return found


def _path(group: str, version: str) -> str:
    return f"/api/{version}" if not group else f"/apis/{group}/{version}"


async def discover_kinds(fetch: Fetch) -> ServedKinds:
    """Every resource the server behind ``fetch`` serves (see the module docstring); a
    group version whose list does not answer is ``failed``; ``LookupError`` when a root
    (``/api``, ``/apis``) does not answer, since then nothing is known."""
    core, groups = await fetch("/api"), await fetch("/apis")
    if core is None or groups is None:
        raise LookupError("unable to retrieve the complete list of server APIs")
    kinds: list[KindInfo] = []
    failed: set[tuple[str, str]] = set()
    for group, version, preferred in _group_versions(core, groups):
        resources = await fetch(_path(group, version))
        if resources is None:
            failed.add((group, version))
            continue
        kinds.extend(kinds_of_resource_list(resources, group, version, preferred=preferred))
    return ServedKinds(tuple(kinds), frozenset(failed))
