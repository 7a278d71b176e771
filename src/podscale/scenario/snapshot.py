"""What a running scenario looks like at one instant: workloads, HPAs and new Events.

``read_snapshot`` reads it from an ``EmbeddedControlPlane`` the way an onlooker with kubectl
would: through the API (workloads, pods, HPAs, Events) and the metrics server's PodMetrics
(``kubectl top``), never from the controllers' memory; the Events, after a first LIST, as
``kubectl get events -w`` follows them (``scenario.event_feed``). The values it returns and the
``EventCursor`` that keeps each snapshot to new Events are in ``scenario.snapshot_values``
(re-exported here). ``podscale.scenario.play`` takes a snapshot every tick; the demo driver
(``podscale demo``) renders them.

A Deployment, ReplicaSet or StatefulSet is read from its spec (``spec.replicas``, its pods
by ``spec.selector``); any other target (a custom kind with a scale subresource) through its
Scale, as an HPA reads it (``read_target_scale``): ``spec.replicas``, and its pods by
``status.selector``.

Utilization is computed as the HPA does for a Resource target: the summed CPU usage of the
ready pods that have metrics over the sum of their CPU requests, as a percentage (None when
no ready pod has both).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Final

from podscale.api.kinds import KindInfo, kind_for
from podscale.api.quantity import parse_quantity
from podscale.api.selectors import Selector, SelectorError, selector_from_label_selector
from podscale.apiserver.operations.shared_list import SharedItems
from podscale.apiserver.resources import storage_resource
from podscale.client.http import ApiError
from podscale.controllers.hpa.metrics_values import pod_usage_values
from podscale.controllers.hpa.scale_target import ScaleTargetError, read_scale, resolve_target
from podscale.controllers.runtime_api import ControllerApi
from podscale.plane.embedded import EmbeddedControlPlane
from podscale.runtime.simulated.scale_follower import scale_selector
from podscale.runtime.simulated.usage_loads import built_in_workload
from podscale.scenario.event_feed import EventFeed
from podscale.scenario.hpa_metrics import read_metrics, targets_cell
from podscale.scenario.pod_facts import PodFacts, pod_facts, pod_name
from podscale.scenario.pod_index import KeptReads, PodIndex
from podscale.scenario.snapshot_values import (
    DEFAULT_DOWNSCALE_WINDOW,
    EventCursor,
    HpaSnapshot,
    ScenarioSnapshot,
    SeenEvent,
    TargetRef,
    WorkloadSnapshot,
)

__all__ = [
    "EventCursor",
    "HpaSnapshot",
    "ScenarioSnapshot",
    "SeenEvent",
    "TargetRef",
    "WorkloadSnapshot",
    "read_snapshot",
    "read_target_scale",
]

JSON = dict[str, Any]
POD: Final = kind_for("v1", "Pod")
EVENT: Final = kind_for("v1", "Event")
HPA: Final = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")


def _milli(value: Any) -> int:
    return parse_quantity(value).milli_value() if value is not None else 0


def _utilization(ready: Sequence[tuple[str, int]], usage: Mapping[str, int]) -> float | None:
    """Over the ready pods (by name), each with its CPU request in millicores."""
    used = requested = 0
    for name, request in ready:
        if name in usage and request > 0:
            used += usage[name]
            requested += request
    return 100.0 * used / requested if requested else None


def _pod_cpu(
    plane: EmbeddedControlPlane, namespace: str, selector: Selector | None
) -> dict[str, int]:
    """Each pod's CPU in millicores as metrics.k8s.io serves it. The selected pods' values
    are read unrendered when the server can narrow to them (as the HPA reads them): a
    PodMetrics item per pod of the namespace, for each workload, made snapshots of a
    fleet quadratic in pods."""
    server = plane.metrics_server
    if server is None:
        return {}
    records = server.pod_usage_selected(namespace, selector) if selector is not None else None
    if records is not None:
        if not records:
            return {}
        samples, _ = pod_usage_values(records, "cpu", None)
        return {name: sample.value for name, sample in samples.items()}
    return {
        str(item["metadata"]["name"]): sum(
            _milli((c.get("usage") or {}).get("cpu")) for c in item.get("containers") or []
        )
        for item in server.pod_metrics(namespace)
    }


async def read_target_scale(api: ControllerApi, target: TargetRef) -> JSON | None:
    """The target's Scale, read as an HPA reads its ``scaleTargetRef`` (the kind's group
    through every version serving it); None when there is none (deleted meanwhile)."""
    ref = {"apiVersion": target.api_version, "kind": target.kind}
    try:
        mappings = await resolve_target(api, ref)
        scale, _ = await read_scale(api, mappings, target.namespace, target.name)
    except ScaleTargetError:
        return None
    return scale


async def _replicas_and_selector(
    plane: EmbeddedControlPlane, target: TargetRef, kept: KeptReads | None
) -> tuple[int, Selector | None]:
    """``spec.replicas`` and the pods' selector: from the spec of a built-in workload (read
    again only once its resource was written, with ``kept``), from the Scale of any other
    kind."""
    kind = built_in_workload(target.api_version, target.kind)
    if kind is None:
        scale = await read_target_scale(plane.api, target)
        return int(((scale or {}).get("spec") or {}).get("replicas") or 0), scale_selector(scale)
    if kept is None:
        return await _workload_spec(plane, kind, target)
    key = ("get", kind.group, kind.version, kind.plural, target.namespace, target.name)
    revision = plane.store.resource_revision(storage_resource(kind))
    return await kept.read(key, revision, lambda: _workload_spec(plane, kind, target))


async def _workload_spec(
    plane: EmbeddedControlPlane, kind: KindInfo, target: TargetRef
) -> tuple[int, Selector | None]:
    """A built-in workload's ``spec.replicas`` and pod selector, read with a GET."""
    try:
        obj = await plane.api.get(kind, target.namespace, target.name)
    except ApiError as err:
        if err.status != 404:
            raise
        obj = {"spec": {"replicas": 0}}  # deleted meanwhile: nothing runs
    spec = obj.get("spec") or {}
    try:
        selector: Selector | None = selector_from_label_selector(spec.get("selector"))
    except SelectorError:
        selector = None
    return int(spec.get("replicas", 1)), selector


async def _workload(
    plane: EmbeddedControlPlane,
    target: TargetRef,
    now: datetime,
    pods_index: PodIndex,
    facts: PodFacts | None,
    kept: KeptReads | None,
) -> WorkloadSnapshot:
    replicas, selector = await _replicas_and_selector(plane, target, kept)
    pods: list[JSON] = []
    if selector is not None and not selector.empty():
        pods = await pods_index.select(target.namespace, selector)
    if facts is None:
        ready = [
            (pod_name(pod), request)
            for pod in pods
            for is_ready, request in [pod_facts(pod)]
            if is_ready
        ]
    else:
        ready = facts.ready(pods)
    offered = (
        plane.usage.offered_rate(target.kind, target.namespace, target.name, now)
        if plane.cluster is not None
        else 0.0
    )
    return WorkloadSnapshot(
        kind=target.kind,
        namespace=target.namespace,
        name=target.name,
        offered_load=offered,
        replicas=replicas,
        ready_pods=len(ready),
        utilization=_utilization(ready, _pod_cpu(plane, target.namespace, selector)),
    )


def _cpu_target(spec: Mapping[str, Any]) -> int | None:
    for metric in spec.get("metrics") or []:
        resource = metric.get("resource") or {}
        target = resource.get("target") or {}
        cpu = metric.get("type") == "Resource" and resource.get("name") == "cpu"
        if cpu and target.get("type") == "Utilization":
            return int(target.get("averageUtilization", 0))
    return None


def _hpa(obj: JSON) -> HpaSnapshot:
    metadata, spec = obj.get("metadata") or {}, obj.get("spec") or {}
    status = obj.get("status") or {}
    ref = spec.get("scaleTargetRef") or {}
    return HpaSnapshot(
        namespace=str(metadata.get("namespace") or ""),
        name=str(metadata.get("name") or ""),
        target_kind=str(ref.get("kind") or ""),
        target_name=str(ref.get("name") or ""),
        current_replicas=int(status.get("currentReplicas") or 0),
        desired_replicas=int(status.get("desiredReplicas") or 0),
        target_utilization=_cpu_target(spec),
        min_replicas=int(spec.get("minReplicas") or 1),
        max_replicas=int(spec.get("maxReplicas") or 0),
        targets=targets_cell(spec, status),
        metrics=read_metrics(spec, status),
        scale_up_window=_window(spec, "scaleUp", timedelta(0)),
        scale_down_window=_window(spec, "scaleDown", DEFAULT_DOWNSCALE_WINDOW),
    )


def _window(spec: Mapping[str, Any], direction: str, default: timedelta) -> timedelta:
    rules = (spec.get("behavior") or {}).get(direction) or {}
    seconds = rules.get("stabilizationWindowSeconds")
    return default if seconds is None else timedelta(seconds=int(seconds))


async def read_snapshot(
    plane: EmbeddedControlPlane,
    targets: Sequence[TargetRef],
    offset: timedelta,
    cursor: EventCursor,
    shared: SharedItems | None = None,
    facts: PodFacts | None = None,
    kept: KeptReads | None = None,
    feed: EventFeed | None = None,
) -> ScenarioSnapshot:
    """The workloads of ``targets``, every HPA, and the Events ``cursor`` has not seen.

    With ``shared`` (kept from one snapshot to the next) the LISTs of pods, HPAs and Events
    are the same lists, but an object unchanged since the previous snapshot is not decoded
    again (``InProcessApi.list_shared``); nothing here mutates a listed item. With
    ``facts`` (kept likewise) a pod's readiness and CPU request are read again only when
    its resourceVersion moved (``scenario.pod_facts``), and with ``kept`` the pods and Events
    are listed and a workload read again only once their resource was written
    (``pod_index.KeptReads``), and a workload's pods found again only in a new LIST. With
    ``feed`` (kept likewise) only the Events written since the previous snapshot are read,
    the only ones ``cursor`` can find new (``scenario.event_feed``)."""
    now = plane.clock.now()
    if facts is not None:
        facts.begin()

    async def list_all(kind: KindInfo, namespace: str | None = None) -> list[JSON]:
        if shared is None:
            listed = await plane.api.list(kind, namespace)
        else:
            listed = await plane.api.list_shared(kind, namespace, shared)
        return list(listed.get("items") or [])

    async def list_kept(kind: KindInfo, namespace: str | None = None) -> list[JSON]:
        """``list_all``, kept while nothing of ``kind`` is written (with ``kept``)."""
        if kept is None:
            return await list_all(kind, namespace)
        revision = plane.store.resource_revision(storage_resource(kind))
        key = ("list", kind.group, kind.version, kind.plural, namespace)
        return await kept.read(key, revision, lambda: list_all(kind, namespace))

    pods_index = PodIndex(
        lambda namespace: list_kept(POD, namespace), None if kept is None else kept.selections
    )
    workloads = [await _workload(plane, target, now, pods_index, facts, kept) for target in targets]
    hpas = await list_all(HPA)
    if feed is None:
        # The same Events as the last snapshot's are none new to ``cursor``.
        events = await list_kept(EVENT)
    elif shared is None:
        events = await feed.changed(lambda: plane.api.list(EVENT))
    else:
        events = await feed.changed(lambda: plane.api.list_shared(EVENT, None, shared))
    return ScenarioSnapshot(
        offset=offset,
        workloads=tuple(workloads),
        hpas=tuple(_hpa(item) for item in hpas),
        events=tuple(cursor.new_events(events, offset)),
    )
