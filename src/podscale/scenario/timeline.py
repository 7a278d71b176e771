"""A scenario's timeline events, fired on the plane: ``fire_event``.

``run.ScenarioRun.fire_due`` hands each event (``protocols.EventLike``) here at its offset:
``scale`` patches the target's ``scale`` subresource (a built-in workload's kind, or any kind
with a scale subresource as an HPA finds it, ``controllers.hpa.scale_target``), ``crash``
crashes the first ``count`` running pods of the target by name (``running_pods``: a custom
target's pods are those its Scale's ``status.selector`` chooses, ``snapshot.read_target_scale``),
``loseNode`` and ``restoreNode`` go to the simulated cluster. Any other event is refused.
"""

from __future__ import annotations

from typing import Any

from podscale.api.selector_model import Selector
from podscale.api.selectors import selector_from_label_selector
from podscale.controllers.hpa.scale_target import resolve_target
from podscale.plane.embedded import EmbeddedControlPlane
from podscale.runtime.load import is_running
from podscale.runtime.simulated.scale_follower import scale_selector
from podscale.runtime.simulated.usage_loads import built_in_workload
from podscale.scenario.protocols import EventLike
from podscale.scenario.snapshot import POD, TargetRef, read_target_scale

__all__ = ["fire_event", "running_pods"]

JSON = dict[str, Any]


async def fire_event(plane: EmbeddedControlPlane, event: EventLike) -> None:
    """Fire one timeline event on ``plane`` (see the module docstring)."""
    cluster = plane.cluster
    if event.type == "scale" and event.target is not None and event.replicas is not None:
        t = event.target
        body = {"spec": {"replicas": event.replicas}}
        kind = built_in_workload(t.api_version, t.kind)
        if kind is None:  # any kind with a scale subresource, as an HPA finds it
            ref = {"apiVersion": t.api_version, "kind": t.kind}
            kind = (await resolve_target(plane.api, ref))[0]
        await plane.api.patch(kind, t.namespace, t.name, body, subresource="scale")
    elif event.type == "crash" and event.target is not None and cluster is not None:
        for name in (await running_pods(plane, event.target))[: event.count]:
            await cluster.crash_pod(event.target.namespace, name)
    elif event.type == "loseNode" and event.node is not None and cluster is not None:
        await cluster.lose_node(event.node)
    elif event.type == "restoreNode" and event.node is not None and cluster is not None:
        await cluster.restore_node(event.node)
    else:
        raise ValueError(f"cannot fire a {event.type!r} event")


async def running_pods(plane: EmbeddedControlPlane, target: TargetRef) -> list[str]:
    """The names of the target's running pods, sorted: the ones a ``crash`` takes first."""
    kind = built_in_workload(target.api_version, target.kind)
    selector: Selector | None
    if kind is None:
        selector = scale_selector(await read_target_scale(plane.api, target))
        if selector is None:
            return []  # a Scale selecting nothing: no pods to crash
    else:
        obj = await plane.api.get(kind, target.namespace, target.name)
        selector = selector_from_label_selector((obj.get("spec") or {}).get("selector"))
    listed = await plane.api.list(POD, target.namespace, label_selector=str(selector))
    pods: list[JSON] = [p for p in listed.get("items") or [] if is_running(p)]
    return sorted(str(p["metadata"]["name"]) for p in pods)
