"""``podscale describe``: fetch an object, its events (and pods) and describe it like kubectl.

HPAs are read as autoscaling/v2 and described by ``podscale.cli.describe_hpa``, PHPAs
(podscale's shipped PredictiveHorizontalPodAutoscaler) by ``describe_phpa``, Crane's
EffectiveHorizontalPodAutoscalers by ``describe_ehpa``, Kapacity's
IntelligentHorizontalPodAutoscalers (with their ReplicaProfile of the same name) by
``describe_ihpa`` and ReplicaProfiles by ``describe_rp``; ReplicaSets,
StatefulSets and Deployments, with the pods or ReplicaSets their controller owns, by
``describe_workload``. Events are listed with the field selector kubectl uses
(``involvedObject.name/namespace/kind/uid``). Other kinds are refused for now. The click
layer (``podscale.cli.resources``) calls ``describe_objects``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from podscale.api.kinds import KindInfo, kind_for
from podscale.api.selectors import SelectorError, label_selector_to_string
from podscale.cli.describe_hpa import describe_hpa
from podscale.cli.describe_workload import describe_workload
from podscale.cli.resources_core import (
    CommandError,
    Report,
    Target,
    describe_missing,
    resolve_kind,
)
from podscale.client.http import ApiError, HttpApi
from podscale.history.paths import state_path

__all__ = ["describe_objects"]

JSON = dict[str, Any]

_WORKLOADS = frozenset({"ReplicaSet", "Deployment", "StatefulSet"})
_PHPA_KIND = "PredictiveHorizontalPodAutoscaler"
_EHPA_KIND = "EffectiveHorizontalPodAutoscaler"
_IHPA_KIND = "IntelligentHorizontalPodAutoscaler"
_RP_KIND = "ReplicaProfile"
_CUSTOM = frozenset({_PHPA_KIND, _EHPA_KIND, _IHPA_KIND, _RP_KIND})


async def _events(api: HttpApi, obj: JSON, kind: str) -> list[JSON]:
    metadata = obj.get("metadata") or {}
    fields = [
        f"involvedObject.name={metadata.get('name', '')}",
        f"involvedObject.namespace={metadata.get('namespace', '')}",
        f"involvedObject.kind={kind}",
        f"involvedObject.uid={metadata.get('uid', '')}",
    ]
    listed = await api.list(
        kind_for("v1", "Event"), metadata.get("namespace") or None, field_selector=",".join(fields)
    )
    return [e for e in listed.get("items") or [] if isinstance(e, dict)]


async def _state_documents(api: HttpApi, obj: JSON) -> JSON:
    """The object's documents in the plane's history store (none: the server keeps none
    for it, serves no history at all, or refuses: the describe goes on without them)."""
    metadata = obj.get("metadata") or {}
    uid = str(metadata.get("uid") or "")
    if not uid:
        return {}
    try:
        found = await api.request("GET", state_path(str(metadata.get("namespace") or ""), uid))
    except ApiError:
        return {}
    documents = found.get("documents")
    return documents if isinstance(documents, dict) else {}


def _selector_query(selector: Any) -> str | None:
    try:
        return label_selector_to_string(selector) or None if isinstance(selector, dict) else None
    except SelectorError:  # validation keeps these out; describe still shows the object
        return None


async def _owned(api: HttpApi, obj: JSON, owned: KindInfo) -> list[JSON]:
    """The ``owned`` objects matching ``obj``'s selector whose controller is ``obj``."""
    metadata = obj.get("metadata") or {}
    selector = _selector_query((obj.get("spec") or {}).get("selector"))
    listed = await api.list(owned, metadata.get("namespace"), label_selector=selector)
    uid = metadata.get("uid")
    return [
        pod
        for pod in listed.get("items") or []
        if any(
            ref.get("controller") and ref.get("uid") == uid
            for ref in (pod.get("metadata") or {}).get("ownerReferences") or []
        )
    ]


async def _describe_one(
    api: HttpApi, kind: KindInfo, namespace: str | None, name: str, now: datetime
) -> str:
    obj = await api.get(kind, namespace, name)
    events = await _events(api, obj, kind.kind)
    if kind.kind == "HorizontalPodAutoscaler":
        return describe_hpa(obj, events, now, await _state_documents(api, obj))
    if kind.kind == _PHPA_KIND:
        from podscale.cli.describe_phpa import describe_phpa  # see _resolve

        return describe_phpa(obj, events, now)
    if kind.kind == _EHPA_KIND:
        from podscale.cli.describe_ehpa import describe_ehpa  # see _resolve

        return describe_ehpa(obj, events, now)
    if kind.kind in (_IHPA_KIND, _RP_KIND):
        return await _describe_kapacity(api, kind, obj, events, now)
    owned = (
        kind_for("apps/v1", "ReplicaSet") if kind.kind == "Deployment" else kind_for("v1", "Pod")
    )
    related = await _owned(api, obj, owned)
    return describe_workload(kind.kind, obj, related, events, now)


async def _describe_kapacity(
    api: HttpApi, kind: KindInfo, obj: JSON, events: list[JSON], now: datetime
) -> str:
    # Imported here, as in _resolve: only describing a Kapacity kind loads its modules.
    from podscale.controllers.kapacity.reading import KapacityError

    try:
        if kind.kind == _RP_KIND:
            from podscale.cli.describe_rp import describe_replica_profile

            return describe_replica_profile(obj, events, now)
        from podscale.cli.describe_ihpa import describe_ihpa
        from podscale.cli.describe_rp import REPLICA_PROFILE

        metadata = obj.get("metadata") or {}
        try:  # the IHPA's profile has its name; there is none in Preview or before a sync
            profile: JSON | None = await api.get(
                REPLICA_PROFILE, metadata.get("namespace"), str(metadata.get("name") or "")
            )
        except ApiError as err:
            if err.status != 404:
                raise
            profile = None
        return describe_ihpa(obj, profile, events, now)
    except KapacityError as err:  # the schema keeps these out; say so rather than crash
        raise CommandError(f"error: cannot describe {kind.plural}: {err}") from None


def _resolve(resource: str) -> KindInfo:
    """The kind a resource name means. The PHPA is a custom kind podscale ships (its CRD), not
    a built-in one ``resolve_kind`` knows; its modules (``podscale.controllers.phpa``) load
    only when it is asked for, so describing anything else stays as light as before."""
    try:
        return resolve_kind(resource)
    except CommandError:
        from podscale.cli.describe_phpa import PHPA, is_phpa

        if is_phpa(resource):
            return PHPA
        from podscale.cli.describe_ehpa import EHPA, is_ehpa

        if is_ehpa(resource):
            return EHPA
        from podscale.cli.describe_ihpa import IHPA, is_ihpa

        if is_ihpa(resource):
            return IHPA
        from podscale.cli.describe_rp import REPLICA_PROFILE, is_replica_profile

        if not is_replica_profile(resource):
            raise
        return REPLICA_PROFILE


async def describe_objects(
    api: HttpApi, target: Target, resource: str, names: tuple[str, ...], now: datetime
) -> Report:
    """Describe each named object, or all of the type (separated by a blank line, as kubectl)."""
    kind = _resolve(resource)
    if kind.kind == "HorizontalPodAutoscaler":
        kind = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")
    elif kind.kind not in _WORKLOADS and kind.kind not in _CUSTOM:
        raise CommandError(f'error: describe is not supported for "{kind.plural}" yet')
    namespace = target.namespace if kind.namespaced else None
    report = Report()
    if not names:  # kubectl describes every object of the type
        listed = await api.list(kind, namespace)
        names = tuple(str(o["metadata"]["name"]) for o in listed.get("items") or [])
        if not names:
            where = f" in {namespace} namespace." if namespace else ""
            report.notes.append(f"No resources found{where}")
            return report
    texts = []
    for name in names:
        try:
            texts.append(await _describe_one(api, kind, namespace, name, now))
        except ApiError as err:
            report.errors.append(await describe_missing(api, kind, namespace, err))
    if texts:
        report.out.append("\n\n\n".join(t.rstrip("\n") for t in texts))
    return report
