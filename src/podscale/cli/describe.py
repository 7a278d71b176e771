"""``podscale describe``: fetch an object, its events (and pods) and describe it like kubectl.

HPAs are read as autoscaling/v2 and described by ``podscale.cli.describe_hpa``, PHPAs
(podscale's shipped PredictiveHorizontalPodAutoscaler) by ``describe_phpa``, Crane's
EffectiveHorizontalPodAutoscalers by ``describe_ehpa``, Kapacity's
IntelligentHorizontalPodAutoscalers (with their ReplicaProfile of the same name) by
``describe_ihpa`` and ReplicaProfiles by ``describe_rp``; ReplicaSets,
StatefulSets and Deployments get kubectl's header (name, selector, labels, replicas, pods
status from the pods their controller owns) and events. Events are listed with the field
selector kubectl uses (``involvedObject.name/namespace/kind/uid``). Beyond kubectl, a
workload with a load annotation gets a ``Load:`` line saying what the simulated cluster
makes of it (``podscale.runtime.load.annotation``). Other kinds are refused
for now. The click layer (``podscale.cli.resources``) calls ``describe_objects``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from podscale.api.kinds import KindInfo, kind_for
from podscale.api.selectors import SelectorError, format_label_selector, label_selector_to_string
from podscale.cli.describe_annotations import write_annotations
from podscale.cli.describe_hpa import describe_hpa
from podscale.cli.describe_template import write_pod_template
from podscale.cli.describe_text import SKIPPED_ANNOTATIONS, DescribeWriter, format_timestamp
from podscale.cli.resources_core import (
    CommandError,
    Report,
    Target,
    describe_missing,
    resolve_kind,
)
from podscale.client.http import ApiError, HttpApi
from podscale.history.paths import state_path

__all__ = ["describe_objects", "describe_workload"]

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


def _pods_status(pods: list[JSON]) -> str:
    phases = [str((p.get("status") or {}).get("phase") or "") for p in pods]
    counts = {phase: phases.count(phase) for phase in ("Running", "Pending", "Succeeded", "Failed")}
    return (
        f"{counts['Running']} Running / {counts['Pending']} Waiting / "
        f"{counts['Succeeded']} Succeeded / {counts['Failed']} Failed"
    )


def _controller(metadata: JSON) -> str:
    for ref in metadata.get("ownerReferences") or []:
        if isinstance(ref, dict) and ref.get("controller"):
            return f"{ref.get('kind', '')}/{ref.get('name', '')}"
    return ""


def _rolling_update(strategy: JSON) -> str:
    rolling = strategy.get("rollingUpdate") or {}
    unavailable = rolling.get("maxUnavailable", "25%")
    surge = rolling.get("maxSurge", "25%")
    return f"{unavailable} max unavailable, {surge} max surge"


def _replica_sets_text(replica_sets: list[JSON]) -> str:
    if not replica_sets:
        return "<none>"
    return ", ".join(
        f"{(rs.get('metadata') or {}).get('name', '')} "
        f"({(rs.get('status') or {}).get('replicas', 0)}/"
        f"{(rs.get('spec') or {}).get('replicas', 1)} replicas created)"
        for rs in replica_sets
    )


def _write_conditions(out: DescribeWriter, status: JSON) -> None:
    conditions = [c for c in status.get("conditions") or [] if isinstance(c, dict)]
    if conditions:
        out.write(0, "Conditions:\n  Type\tStatus\tReason\n")
        out.write(1, "----\t------\t------\n")
        for cond in conditions:
            out.write(
                1, f"{cond.get('type', '')} \t{cond.get('status', '')}\t{cond.get('reason', '')}\n"
            )


def _write_load(out: DescribeWriter, kind: str, metadata: JSON) -> None:
    """podscale's ``Load:`` line: what the workload's load annotation declares, as the plane
    reads it (a Deployment's ReplicaSets carry a copy the plane ignores: no line for them)."""
    # The key is podscale.runtime.load.annotation.LOAD_ANNOTATION, spelled out so that
    # describing a workload without one imports nothing of the load model (tests compare).
    value = (metadata.get("annotations") or {}).get("load.podscale.dev/v1alpha1")
    if not isinstance(value, str) or (kind == "ReplicaSet" and _controller(metadata)):
        return
    # Imported only here: describing a workload without a load stays as fast as before.
    from podscale.runtime.load.annotation import (
        LoadSpecError,
        load_summary,
        parse_load_annotation,
    )

    try:
        text = load_summary(parse_load_annotation(value).spec)
    except LoadSpecError as err:
        text = f"<invalid: {', '.join(err.problems)}>"
    out.write(0, f"Load:\t{text}\n")


def describe_workload(
    kind: str,
    obj: JSON,
    related: list[JSON],
    events: list[JSON],
    now: datetime,
) -> str:
    """ReplicaSet/StatefulSet/Deployment as kubectl describes them. ``related`` is the pods a
    ReplicaSet/StatefulSet controls, or the ReplicaSets a Deployment controls."""
    metadata = obj.get("metadata") or {}
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    out = DescribeWriter()
    out.write(0, f"Name:\t{metadata.get('name', '')}\n")
    out.write(0, f"Namespace:\t{metadata.get('namespace', '')}\n")
    if kind == "Deployment":
        out.write(0, f"CreationTimestamp:\t{format_timestamp(metadata.get('creationTimestamp'))}\n")
        out.write_map("Labels", metadata.get("labels"))
        write_annotations(out, metadata.get("annotations"), SKIPPED_ANNOTATIONS)
        _write_load(out, kind, metadata)
        out.write(0, f"Selector:\t{format_label_selector(spec.get('selector'))}\n")
        out.write(
            0,
            f"Replicas:\t{spec.get('replicas', 1)} desired | {status.get('updatedReplicas', 0)}"
            f" updated | {status.get('replicas', 0)} total | {status.get('availableReplicas', 0)}"
            f" available | {status.get('unavailableReplicas', 0)} unavailable\n",
        )
        strategy = spec.get("strategy") or {}
        out.write(0, f"StrategyType:\t{strategy.get('type', '')}\n")
        out.write(0, f"MinReadySeconds:\t{spec.get('minReadySeconds', 0)}\n")
        if strategy.get("type") == "RollingUpdate":
            out.write(0, f"RollingUpdateStrategy:\t{_rolling_update(strategy)}\n")
        write_pod_template(out, spec.get("template"))
        _write_conditions(out, status)
        new, old = _split_replica_sets(obj, related)
        if new or old:  # kubectl skips both lines until the controller made a ReplicaSet
            out.write(0, f"OldReplicaSets:\t{_replica_sets_text(old)}\n")
            out.write(0, f"NewReplicaSet:\t{_replica_sets_text(new)}\n")
    else:
        if kind == "StatefulSet":
            out.write(
                0, f"CreationTimestamp:\t{format_timestamp(metadata.get('creationTimestamp'))}\n"
            )
        out.write(0, f"Selector:\t{format_label_selector(spec.get('selector'))}\n")
        out.write_map("Labels", metadata.get("labels"))
        write_annotations(out, metadata.get("annotations"), SKIPPED_ANNOTATIONS)
        _write_load(out, kind, metadata)
        controller = _controller(metadata)
        if controller:
            out.write(0, f"Controlled By:\t{controller}\n")
        current, desired = status.get("replicas", 0), spec.get("replicas", 1)
        if kind == "StatefulSet":
            out.write(0, f"Replicas:\t{desired} desired | {current} total\n")
        else:
            out.write(0, f"Replicas:\t{current} current / {desired} desired\n")
        out.write(0, f"Pods Status:\t{_pods_status(related)}\n")
        write_pod_template(out, spec.get("template"))
        _write_conditions(out, status)
    out.write_events(events, now)
    return out.render()


def _template_without_hash(template: Any) -> Any:
    if not isinstance(template, dict):
        return template
    metadata = dict(template.get("metadata") or {})
    labels = dict(metadata.get("labels") or {})
    labels.pop("pod-template-hash", None)
    metadata["labels"] = labels
    return {**template, "metadata": metadata}


def _split_replica_sets(
    deployment: JSON, replica_sets: list[JSON]
) -> tuple[list[JSON], list[JSON]]:
    """(new, old): the new ReplicaSet has the Deployment's pod template (hash label aside)."""
    wanted = _template_without_hash((deployment.get("spec") or {}).get("template"))
    new = [
        rs
        for rs in replica_sets
        if _template_without_hash((rs.get("spec") or {}).get("template")) == wanted
    ][:1]
    return new, [rs for rs in replica_sets if rs not in new]


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
