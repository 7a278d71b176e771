"""Reading pod objects into the load model's ``PodLoad`` (``podscale.runtime.load.usage``).

The simulated kubelet (``podscale.runtime.simulated.kubelet_state``) writes the pod status this
reads; the resource parsing is ``podscale.runtime.simulated.resources``'s. A pod takes part in the
load model when it runs on a node (``is_running``); it receives traffic only when its ``Ready``
condition is ``True``, which is what a Service's endpoints would route to.

Containers are the regular ones plus restartable init containers (sidecars), which run
alongside them and can have their own costs; one-shot init containers have finished by
the time a pod runs and use nothing.
"""

from __future__ import annotations

from typing import Any

from podscale.api.quantity import parse_quantity
from podscale.runtime.load.usage import ContainerResources, PodLoad
from podscale.runtime.simulated.resources import read_resource_list

__all__ = ["is_pod_ready", "is_running", "pod_load"]


def is_pod_ready(pod: dict[str, Any]) -> bool:
    """The pod's ``Ready`` condition is ``True`` and it is not being deleted."""
    if (pod.get("metadata") or {}).get("deletionTimestamp"):
        return False
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def is_running(pod: dict[str, Any]) -> bool:
    """Bound to a node and in phase ``Running``: its containers consume resources."""
    return bool((pod.get("spec") or {}).get("nodeName")) and (
        (pod.get("status") or {}).get("phase") == "Running"
    )


def _limit(limits: dict[str, Any], name: str, *, milli: bool) -> int | None:
    value = limits.get(name)
    if value is None:
        return None
    quantity = parse_quantity(value)
    return quantity.milli_value() if milli else quantity.value()


def _container(container: dict[str, Any]) -> ContainerResources:
    resources = container.get("resources") or {}
    limits = resources.get("limits") or {}
    requests = read_resource_list(resources.get("requests"))
    return ContainerResources(
        name=str(container.get("name", "")),
        request=requests,
        cpu_limit_milli=_limit(limits, "cpu", milli=True),
        memory_limit=_limit(limits, "memory", milli=False),
    )


def pod_load(pod: dict[str, Any]) -> PodLoad:
    """The load model's view of a pod object (readiness, node, per-container resources)."""
    metadata = pod.get("metadata") or {}
    spec = pod.get("spec") or {}
    sidecars = [c for c in spec.get("initContainers") or [] if c.get("restartPolicy") == "Always"]
    return PodLoad(
        name=str(metadata.get("name", "")),
        namespace=str(metadata.get("namespace") or "default"),
        node=spec.get("nodeName") or None,
        ready=is_pod_ready(pod),
        containers=tuple(_container(c) for c in [*sidecars, *(spec.get("containers") or [])]),
    )
