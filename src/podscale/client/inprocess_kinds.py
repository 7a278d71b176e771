"""The kinds an in-process API server serves, as ``InProcessApi`` answers for them.

``client.inprocess`` and ``client.inprocess_writes`` delegate here: ``resolve_kind`` (a
resource path's kind), ``rest_mappings`` (every version serving a kind, preferred first, as
``HttpApi`` reads them from discovery), ``served_kinds`` (what discovery lists, one object
per CRD snapshot) and ``served`` (a kind as served now, custom kinds looked up afresh);
``object_scope`` and ``subresource_verb`` refuse the paths the HTTP router would (a
namespaced object without a namespace, a subresource not served or without the verb).
Built-in kinds come from ``api.kinds``, custom ones from the server's CRD snapshot
(``customresources.lifecycle``); a kind nothing serves is the server's 404 as ``ApiError``.
"""

from __future__ import annotations

from typing import Final

from podscale.api.kinds import KindInfo, all_kinds, resource_for
from podscale.apiserver import errors as server_errors
from podscale.apiserver.customresources.definitions import CustomKind, condition_true
from podscale.apiserver.customresources.lifecycle import custom_kinds
from podscale.apiserver.customresources.serving import missing_subresource
from podscale.apiserver.state import ServerState
from podscale.client.discovery import ServedKinds
from podscale.client.http import ApiError

__all__ = [
    "object_scope",
    "resolve_kind",
    "rest_mappings",
    "served",
    "served_kinds",
    "subresource_verb",
]


def _built_in_mappings() -> dict[tuple[str, str], tuple[KindInfo, ...]]:
    by_kind: dict[tuple[str, str], list[KindInfo]] = {}
    for info in all_kinds():
        if info.top_level:
            by_kind.setdefault((info.group, info.kind), []).append(info)
    return {
        key: tuple(sorted(infos, key=lambda info: not info.preferred))
        for key, infos in by_kind.items()
    }


# The built-in kinds serving each (group, kind), in ``all_kinds`` order sorted (stably) by
# preference, as ``rest_mappings`` orders them: the built-in kinds are fixed at import, and
# a stable sort of these ahead of custom kinds gives what sorting the unsorted ones gives.
_BUILT_IN_MAPPINGS: Final = _built_in_mappings()


def resolve_kind(state: ServerState, group: str, version: str, plural: str) -> KindInfo:
    """The kind serving ``plural`` in ``group``/``version`` (built in or custom); the
    server's 404 when nothing serves it."""
    try:
        return resource_for(group, version, plural)
    except KeyError:
        found = custom_kinds(state).lookup(group, version, plural)
    if found is None:
        raise ApiError(404, server_errors.path_not_found().status)
    return found


def rest_mappings(state: ServerState, group: str, kind: str) -> list[KindInfo]:
    """Every version of ``group`` serving ``kind`` (built in or custom), preferred first:
    what ``HttpApi.rest_mappings`` reads from discovery."""
    kinds = custom_kinds(state)

    def build() -> tuple[KindInfo, ...]:
        built_in = _BUILT_IN_MAPPINGS.get((group, kind), ())
        custom = [info for info in kinds.kinds if info.group == group and info.kind == kind]
        if not custom:
            return built_in
        return tuple(sorted([*built_in, *custom], key=lambda info: not info.preferred))

    # A function of the CRD snapshot alone (the built-in kinds are fixed), kept with it: an
    # HPA resolves its target at every sync and the usage history every minute.
    mappings: tuple[KindInfo, ...] = kinds.memo(("rest-mappings", group, kind), build)
    return list(mappings)


def served_kinds(state: ServerState) -> ServedKinds:
    """Every resource the server serves: the built-in kinds and the kinds of every
    established CustomResourceDefinition (what its discovery lists, but for the
    create-only self reviews, which hold no objects)."""
    kinds = custom_kinds(state)

    def build() -> ServedKinds:
        custom = [
            kind
            for crd in kinds.definitions
            if condition_true(crd, "Established")
            for kind in kinds.kinds_of(str((crd.get("metadata") or {}).get("name", "")))
        ]
        return ServedKinds((*(k for k in all_kinds() if k.top_level), *custom))

    # A function of the CRD snapshot alone (the built-in kinds are fixed): kept with it,
    # so that the same snapshot answers the same object (the garbage collector asks
    # every 30 s and skips its resync when the answer is the one it last mapped).
    answer: ServedKinds = kinds.memo(("served-kinds",), build)
    return answer


def served(state: ServerState, kind: KindInfo) -> KindInfo:
    """``kind`` as served now: a kind no built-in serves is looked up among the custom
    kinds afresh (its CRD may have changed since the caller got it, or gone: 404)."""
    if not isinstance(kind, CustomKind):
        try:
            resource_for(kind.group, kind.version, kind.plural)
        except KeyError:
            pass
        else:
            return kind
    found = custom_kinds(state).lookup(kind.group, kind.version, kind.plural)
    if found is None:
        raise ApiError(404, server_errors.path_not_found().status)
    return found


# -- scope checks: the shapes the HTTP router would refuse ----------------------------------
def object_scope(kind: KindInfo, namespace: str | None) -> str | None:
    """The namespace of an object path: none for cluster kinds (as ``resource_path``
    drops it); a namespaced object without one is a path the server does not have."""
    if not kind.namespaced:
        return None
    if not namespace:
        raise ApiError(404, server_errors.path_not_found().status)
    return namespace


def subresource_verb(kind: KindInfo, subresource: str, verb: str, name: str) -> None:
    """The checks of a subresource path: 404 when ``kind`` serves no ``subresource``,
    405 when it does without ``verb``."""
    sub = kind.subresource(subresource)
    if sub is None:
        missing = missing_subresource(kind, name)
        raise ApiError(missing.code, missing.status)
    if verb not in sub.verbs:
        raise ApiError(405, server_errors.method_not_allowed().status)
