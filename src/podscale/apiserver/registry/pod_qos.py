"""A Pod's QoS class (``status.qosClass``), upstream's ``GetPodQOS``.

``strategy.prepare_for_create`` sets it on a new Pod (``status: {phase: Pending,
qosClass}``); the status strategy keeps it when a write leaves it out. From the cpu and
memory requests and limits of the Pod's containers and init containers.
"""

from __future__ import annotations

from typing import Any, Final

from podscale.api import QuantityError, parse_quantity

__all__ = ["pod_qos_class"]

JSON = dict[str, Any]

_QOS_RESOURCES: Final = ("cpu", "memory")


def _nonzero(resources: Any) -> dict[str, Any]:
    """The cpu/memory entries of a requests/limits map that parse and are not zero."""
    out: dict[str, Any] = {}
    if not isinstance(resources, dict):
        return out
    for name in _QOS_RESOURCES:
        try:
            quantity = parse_quantity(resources[name]) if name in resources else None
        except (QuantityError, TypeError, ValueError):
            quantity = None
        if quantity is not None and not quantity.is_zero():
            out[name] = quantity
    return out


def pod_qos_class(spec: Any) -> str:
    """Upstream ``GetPodQOS``: BestEffort without any cpu/memory request or limit,
    Guaranteed when every container limits both and requests equal limits, else Burstable."""
    containers: list[JSON] = []
    if isinstance(spec, dict):
        for key in ("containers", "initContainers"):
            containers.extend(c for c in spec.get(key) or [] if isinstance(c, dict))
    requests: dict[str, Any] = {}
    limits: dict[str, Any] = {}
    guaranteed = True
    for container in containers:
        resources = container.get("resources") or {}
        container_requests = _nonzero(
            resources.get("requests") if isinstance(resources, dict) else None
        )
        container_limits = _nonzero(
            resources.get("limits") if isinstance(resources, dict) else None
        )
        for name, quantity in container_requests.items():
            requests[name] = requests[name] + quantity if name in requests else quantity
        for name, quantity in container_limits.items():
            limits[name] = limits[name] + quantity if name in limits else quantity
        if set(container_limits) != set(_QOS_RESOURCES):
            guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    if (
        guaranteed
        and set(requests) == set(limits)
        and all(requests[n] == limits[n] for n in limits)
    ):
        return "Guaranteed"
    return "Burstable"
