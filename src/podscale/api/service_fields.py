"""How a Service write's linked fields are read before validation, as upstream's registry does.

``clusterIP`` and ``clusterIPs`` are one value in two fields; old clients send only the first,
new ones both, and updates often send neither. ``prepare_service_create`` and
``prepare_service_update`` mirror upstream's ``normalizeClusterIPs``, its
``patchAllocatedValues`` (an update that leaves out what the server allocated, a cluster IP
or a named port's nodePort, keeps the stored value) and the strategy's
``dropTypeDependentFields`` (a type change clears the fields the new type has no use for,
unless the update set them itself). Validation (``podscale.api.validation.service``) and
allocation (``podscale.apiserver.registry.service_allocation``) then see consistent fields.

Called from ``podscale.apiserver.registry.strategy``. Pure; mutates the new object it is given.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Final

__all__ = [
    "needs_cluster_ip",
    "needs_node_ports",
    "prepare_service_create",
    "prepare_service_update",
]

JSON = dict[str, Any]

_NODE_PORT_TYPES: Final = ("NodePort", "LoadBalancer")


def _spec(obj: Mapping[str, Any]) -> JSON:
    spec = obj.get("spec")
    return spec if isinstance(spec, dict) else {}


def _type(spec: Mapping[str, Any]) -> str:
    # Defaulting has not run yet on a write: an empty type is the default ClusterIP.
    return str(spec.get("type") or "ClusterIP")


def needs_cluster_ip(spec: Mapping[str, Any]) -> bool:
    return _type(spec) != "ExternalName"


def needs_node_ports(spec: Mapping[str, Any]) -> bool:
    return _type(spec) in _NODE_PORT_TYPES


def prepare_service_create(obj: JSON) -> None:
    """An old client's lone ``clusterIP`` (a wanted address or ``None``) fills ``clusterIPs``."""
    spec = _spec(obj)
    if spec.get("clusterIP") and not spec.get("clusterIPs"):
        spec["clusterIPs"] = [spec["clusterIP"]]


def _ports(spec: Mapping[str, Any]) -> list[JSON]:
    ports = spec.get("ports")
    return [p for p in ports if isinstance(p, dict)] if isinstance(ports, list) else []


def _keep_allocations(spec: JSON, old: Mapping[str, Any]) -> None:
    """Upstream ``patchAllocatedValues``: what the update left out stays as allocated."""
    if needs_cluster_ip(old) and needs_cluster_ip(spec):
        if not spec.get("clusterIP") and old.get("clusterIP"):
            spec["clusterIP"] = old["clusterIP"]
        if not spec.get("clusterIPs") and old.get("clusterIPs"):
            spec["clusterIPs"] = copy.deepcopy(old["clusterIPs"])
    if needs_node_ports(old) and needs_node_ports(spec):
        old_by_name = {str(p.get("name") or ""): p.get("nodePort") for p in _ports(old)}
        used = {p.get("nodePort") for p in _ports(spec) if p.get("nodePort")}
        for port in _ports(spec):
            if not port.get("nodePort"):
                previous = old_by_name.get(str(port.get("name") or ""))
                if previous and previous not in used:
                    port["nodePort"] = previous
                    used.add(previous)


def _normalize_cluster_ips(spec: JSON, old: Mapping[str, Any]) -> None:
    """Upstream ``normalizeClusterIPs`` for an update."""
    old_ip, new_ip = old.get("clusterIP") or "", spec.get("clusterIP") or ""
    old_ips = old.get("clusterIPs") or []
    if old_ips and not spec.get("clusterIPs") and old_ip == new_ip:
        spec["clusterIPs"] = copy.deepcopy(old_ips)
    same_ips = (spec.get("clusterIPs") or []) == old_ips
    if old_ip != new_ip:
        if old_ip and not new_ip and same_ips:
            spec.pop("clusterIPs", None)
        if new_ip and same_ips:
            spec["clusterIPs"] = [new_ip]


def _drop_type_dependent(spec: JSON, old: Mapping[str, Any]) -> None:
    """Upstream ``dropTypeDependentFields``: only values the update did not change go."""
    if needs_cluster_ip(old) and not needs_cluster_ip(spec):
        for key in ("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"):
            if key in spec and spec.get(key) == old.get(key):
                spec.pop(key)
    if needs_node_ports(old) and not needs_node_ports(spec):
        old_ports = {(p.get("port"), p.get("protocol")): p.get("nodePort") for p in _ports(old)}
        for port in _ports(spec):
            pair = (port.get("port"), port.get("protocol"))
            if port.get("nodePort") and old_ports.get(pair) == port.get("nodePort"):
                port.pop("nodePort")
    if _type(old) == "LoadBalancer" and _type(spec) != "LoadBalancer":
        for key in ("allocateLoadBalancerNodePorts", "loadBalancerClass"):
            if key in spec and spec.get(key) == old.get(key):
                spec.pop(key)
    accessible = needs_node_ports(spec) or (
        _type(spec) == "ClusterIP" and bool(spec.get("externalIPs"))
    )
    if not accessible and spec.get("externalTrafficPolicy") == old.get("externalTrafficPolicy"):
        spec.pop("externalTrafficPolicy", None)
    if not needs_cluster_ip(spec) and spec.get("internalTrafficPolicy") == old.get(
        "internalTrafficPolicy"
    ):
        spec.pop("internalTrafficPolicy", None)


def prepare_service_update(obj: JSON, old: Mapping[str, Any]) -> None:
    """Carry allocations over, put clusterIP/clusterIPs in step and drop type leftovers."""
    spec = _spec(obj)
    old_spec = _spec(old)
    if "spec" not in obj:
        obj["spec"] = spec
    _keep_allocations(spec, old_spec)
    _normalize_cluster_ips(spec, old_spec)
    _drop_type_dependent(spec, old_spec)
