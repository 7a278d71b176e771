"""Cluster IPs, IP families and node ports of Services, as upstream's Service REST storage.

``allocate_service`` is the pure part (upstream's ``initIPFamilyFields``, ``allocClusterIPs``,
``initNodePorts``/``updateNodePorts`` for a single-stack cluster): it fills ``ipFamilyPolicy``
(SingleStack; RequireDualStack for a headless Service without selector, whose families are
then listed as upstream lists them) and ``ipFamilies``, gives a Service without a cluster IP
one from the ``ServiceNetwork`` (``service_ranges``), honours a requested address or refuses
it with upstream's 422, and gives every port of a NodePort or LoadBalancer Service a node
port (ports with the same number share one). A full range is upstream's 500.

``write_service`` is the shell the write operations (``operations``) call in place of a plain
store write: under one lock it reads which addresses and ports the *stored* Services hold,
allocates, and writes. Nothing else is remembered, so an allocation lives exactly as long as
its Service does (deleting it by any path frees it) and survives restarts with the store.
"""

from __future__ import annotations

import copy
import random
import threading
from collections.abc import Callable, Mapping, Set
from typing import Any, Final

from podscale.api import invalid_status
from podscale.api.field_errors import FieldError, FieldPath, invalid
from podscale.api.kinds import KindInfo
from podscale.apiserver.errors import ApiError, status_body
from podscale.apiserver.registry.service_ranges import ServiceNetwork
from podscale.store.interface import Store

__all__ = ["allocate_service", "in_use", "write_service"]

JSON = dict[str, Any]

_OTHER_FAMILY: Final = {"IPv4": "IPv6", "IPv6": "IPv4"}
# One process-wide lock: reading what is in use and writing the Service must not interleave
# with another Service write (the HTTP server and the in-process client share the store).
_LOCK: Final = threading.Lock()
_RNG: Final = random.SystemRandom()


def _internal(text: str) -> ApiError:
    return ApiError(
        status_body(
            500,
            f"Internal error occurred: {text}",
            "InternalError",
            {"causes": [{"message": text}]},
        )
    )


def _invalid(obj: Mapping[str, Any], errors: list[FieldError]) -> ApiError:
    name = str((obj.get("metadata") or {}).get("name", ""))
    return ApiError(invalid_status("Service", "", name, errors))


def _family_of(ip: str) -> str:
    return "IPv6" if ":" in ip else "IPv4"


def _init_families(
    spec: JSON, old_spec: Mapping[str, Any] | None, network: ServiceNetwork
) -> list[FieldError]:
    """Fill ipFamilyPolicy and ipFamilies; errors for families this cluster does not serve."""
    headless_selectorless = spec.get("clusterIP") == "None" and not spec.get("selector")
    if spec.get("ipFamilyPolicy") is None:
        if old_spec is not None and old_spec.get("ipFamilyPolicy") is not None:
            spec["ipFamilyPolicy"] = old_spec["ipFamilyPolicy"]
        elif headless_selectorless:
            spec["ipFamilyPolicy"] = "RequireDualStack"
        else:
            spec["ipFamilyPolicy"] = "SingleStack"
    families: list[Any] = list(spec.get("ipFamilies") or [])
    cluster_ips = [str(ip) for ip in spec.get("clusterIPs") or []]
    errors: list[FieldError] = []
    for i, ip in enumerate(cluster_ips):
        if ip == "None":
            break
        if i >= len(families):
            family = _family_of(ip)
            if family != network.family:
                errors.append(
                    invalid(
                        FieldPath("spec", "clusterIPs").index(i),
                        cluster_ips,
                        f"{family} is not configured on this cluster",
                    )
                )
            else:
                families.append(family)
    if errors:
        return errors
    if headless_selectorless:
        families = families or [network.family]
        if len(families) < 2 and spec["ipFamilyPolicy"] != "SingleStack":
            families.append(_OTHER_FAMILY.get(str(families[0]), "IPv6"))
        spec["ipFamilies"] = families
        return []
    if spec["ipFamilyPolicy"] == "RequireDualStack":
        errors.append(
            invalid(
                FieldPath("spec", "ipFamilyPolicy"),
                "RequireDualStack",
                "this cluster is not configured for dual-stack services",
            )
        )
    for i, family in enumerate(families):
        if family != network.family:
            errors.append(
                invalid(
                    FieldPath("spec", "ipFamilies").index(i),
                    family,
                    "not configured on this cluster",
                )
            )
    spec["ipFamilies"] = families or [network.family]
    return errors


def _allocate_cluster_ip(
    spec: JSON, obj: Mapping[str, Any], network: ServiceNetwork, ips: Set[str], rng: random.Random
) -> None:
    cluster_ips = [str(ip) for ip in spec.get("clusterIPs") or []]
    if cluster_ips[:1] == ["None"]:
        return
    if not cluster_ips:
        chosen = network.next_ip(ips, rng)
        if chosen is None:
            raise _internal("failed to allocate a serviceIP: range is full")
    else:
        chosen = cluster_ips[0]
        problem = network.ip_problem(chosen, ips)
        if problem is not None:
            detail = f"failed to allocate IP {chosen}: {problem}"
            raise _invalid(obj, [invalid(FieldPath("spec", "clusterIPs"), cluster_ips, detail)])
    spec["clusterIP"] = chosen
    spec["clusterIPs"] = [chosen, *cluster_ips[1:]]


def _owned_ports(spec: Mapping[str, Any] | None) -> set[int]:
    if spec is None or spec.get("type") not in ("NodePort", "LoadBalancer"):
        return set()
    owned = {p.get("nodePort") for p in spec.get("ports") or [] if isinstance(p, dict)}
    owned.add(spec.get("healthCheckNodePort"))
    return {p for p in owned if isinstance(p, int) and p}


def _allocate_node_ports(
    spec: JSON,
    obj: Mapping[str, Any],
    old_spec: Mapping[str, Any] | None,
    network: ServiceNetwork,
    ports: Set[int],
    rng: random.Random,
) -> None:
    taken = set(ports)
    owned = _owned_ports(old_spec)  # already this Service's: keeping one is no new request
    allocate_new = (
        spec.get("type") == "NodePort" or spec.get("allocateLoadBalancerNodePorts") is not False
    )
    by_number: dict[Any, int] = {}
    for i, port in enumerate(p for p in spec.get("ports") or [] if isinstance(p, dict)):
        requested = port.get("nodePort") or 0
        if not requested and not allocate_new:
            continue
        if not requested and port.get("port") in by_number:
            port["nodePort"] = by_number[port.get("port")]
            continue
        if requested:
            problem = None if requested in owned else network.port_problem(requested, taken)
            if problem is not None:
                path = FieldPath("spec", "ports").index(i).child("nodePort")
                raise _invalid(obj, [invalid(path, requested, problem)])
        else:
            requested = network.next_port(taken, rng)
            if requested is None:
                raise _internal("failed to allocate a nodePort: range is full")
            port["nodePort"] = requested
        taken.add(requested)
        by_number[port.get("port")] = requested
    if spec.get("type") == "LoadBalancer" and spec.get("externalTrafficPolicy") == "Local":
        health = spec.get("healthCheckNodePort") or 0
        if not health:
            health = network.next_port(taken, rng)
            if health is None:
                raise _internal("failed to allocate a HealthCheck NodePort: range is full")
            spec["healthCheckNodePort"] = health
        elif health not in owned:
            problem = network.port_problem(health, taken)
            if problem is not None:
                raise _internal(
                    f"failed to allocate requested HealthCheck NodePort {health}: {problem}"
                )


def allocate_service(
    obj: JSON,
    old: Mapping[str, Any] | None,
    network: ServiceNetwork,
    ips: Set[str],
    ports: Set[int],
    rng: random.Random,
) -> JSON:
    """``obj`` (a defaulted, validated Service) with its families, cluster IP and node ports.

    ``old`` is the stored Service on an update (None on create); ``ips``/``ports`` are what
    the *other* Services hold. Raises ``ApiError`` (422 for a request that cannot be met,
    500 for a full range). Returns a copy; ``obj`` is not changed.
    """
    result = copy.deepcopy(obj)
    spec = result.setdefault("spec", {})
    old_spec = (old or {}).get("spec") if old is not None else None
    if spec.get("type") == "ExternalName":
        return result
    previous = old_spec if old_spec is not None and old_spec.get("type") != "ExternalName" else None
    errors = _init_families(spec, previous, network)
    if errors:
        raise _invalid(result, errors)
    if previous is None:
        # A create, or an ExternalName Service becoming one that needs a cluster IP.
        _allocate_cluster_ip(spec, result, network, ips, rng)
    if spec.get("type") in ("NodePort", "LoadBalancer"):
        _allocate_node_ports(spec, result, old_spec, network, ports, rng)
    return result


def in_use(store: Store, skip: tuple[str, str] | None) -> tuple[set[str], set[int]]:
    """Cluster IPs and node ports held by the stored Services, but for ``skip`` (ns, name)."""
    ips: set[str] = set()
    ports: set[int] = set()
    for service in store.list("services", None).items:
        metadata = service.get("metadata") or {}
        if (metadata.get("namespace"), metadata.get("name")) == skip:
            continue
        spec = service.get("spec") or {}
        ips.update(str(ip) for ip in spec.get("clusterIPs") or [] if ip and ip != "None")
        if spec.get("clusterIP") and spec.get("clusterIP") != "None":
            ips.add(str(spec["clusterIP"]))
        ports.update(_owned_ports(spec))
    return ips, ports


def write_service(
    store: Store,
    network: ServiceNetwork,
    info: KindInfo,
    obj: JSON,
    old: Mapping[str, Any] | None,
    write: Callable[[JSON], JSON] | None,
) -> JSON:
    """Allocate for a Service and ``write`` it under the lock; other kinds go straight to
    ``write``. ``write`` None is a dry run: the allocated object comes back unwritten."""
    if (info.group, info.kind) != ("", "Service"):
        return write(obj) if write is not None else obj
    metadata = obj.get("metadata") or {}
    with _LOCK:
        ips, ports = in_use(store, (str(metadata.get("namespace")), str(metadata.get("name"))))
        allocated = allocate_service(obj, old, network, ips, ports, _RNG)
        return write(allocated) if write is not None else allocated
