"""Validation of core/v1 Services, after upstream's ``ValidateService`` and its update rules.

Covers what a user's manifest can get wrong: a DNS-1035 name; ports (required unless headless
or ExternalName, names required and unique when there are several, numbers in 1-65535, TCP/UDP/
SCTP, targetPort a number or an IANA name, no duplicate port/protocol or nodePort/protocol
pairs, no nodePort on a ClusterIP Service); the type, session affinity and its timeout, the
selector's labels; clusterIP/clusterIPs/ipFamilies/ipFamilyPolicy consistency (``None`` only
alone, at most one IP per family); ExternalName's DNS name and absent cluster IPs; traffic
policies; and on update, cluster IPs and IP families that may not change once set.

Allocation failures (an address taken or outside the service range, a node port taken) are not
validation: ``podscale.apiserver.registry.service_allocation`` reports them with upstream's texts.
Objects arrive defaulted (``podscale.api.defaults_core``) and with clusterIP and clusterIPs in step
(``podscale.api.service_fields``). The cluster IP and IP family rules are in ``service_ips``.
Dispatched from ``podscale.api.validation``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from podscale.api.field_errors import (
    FieldError,
    FieldPath,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
)
from podscale.api.names import is_dns1123_label, is_dns1123_subdomain, is_qualified_name
from podscale.api.validation.names import validate_dns1035_label_name, validate_labels
from podscale.api.validation.objectmeta import validate_object_meta, validate_object_meta_update
from podscale.api.validation.pod_containers import _validate_port_name as port_name_problems
from podscale.api.validation.service_ips import (
    IP_MESSAGE,
    SPEC,
    changed_ips,
    cluster_ip_errors,
    is_headless,
    is_ip,
    listed,
)

__all__ = ["validate_service", "validate_service_update"]

JSON = Mapping[str, Any]

SERVICE_TYPES: Final = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")
_PROTOCOLS: Final = ("SCTP", "TCP", "UDP")
_AFFINITIES: Final = ("ClientIP", "None")
_TRAFFIC_POLICIES: Final = ("Cluster", "Local")
_MAX_AFFINITY_SECONDS: Final = 86400
_KUBELET_PORT: Final = 10250


def _port_errors(
    port: JSON, path: FieldPath, require_name: bool, names: set[str]
) -> list[FieldError]:
    errors: list[FieldError] = []
    name = str(port.get("name") or "")
    if require_name and not name:
        errors.append(required(path.child("name")))
    elif name:
        errors.extend(invalid(path.child("name"), name, m) for m in is_dns1123_label(name))
        if name in names:
            errors.append(duplicate(path.child("name"), name))
        names.add(name)
    number = port.get("port", 0)
    if not (isinstance(number, int) and 1 <= number <= 65535):
        errors.append(invalid(path.child("port"), number, "must be between 1 and 65535, inclusive"))
    protocol = str(port.get("protocol") or "")
    if not protocol:
        errors.append(required(path.child("protocol")))
    elif protocol not in _PROTOCOLS:
        errors.append(not_supported(path.child("protocol"), protocol, _PROTOCOLS))
    target = port.get("targetPort")
    if isinstance(target, str):
        problems = port_name_problems(target)
        errors.extend(invalid(path.child("targetPort"), target, m) for m in problems)
    elif not (isinstance(target, int) and 1 <= target <= 65535):
        errors.append(
            invalid(path.child("targetPort"), target, "must be between 1 and 65535, inclusive")
        )
    app_protocol = port.get("appProtocol")
    if app_protocol is not None:
        problems = is_qualified_name(str(app_protocol))
        errors.extend(invalid(path.child("appProtocol"), app_protocol, m) for m in problems)
    return errors


def _ports_errors(spec: JSON, service_type: str) -> list[FieldError]:
    ports = [p for p in listed(spec, "ports") if isinstance(p, dict)]
    path = SPEC.child("ports")
    errors: list[FieldError] = []
    if not ports and not is_headless(spec) and service_type != "ExternalName":
        errors.append(required(path))
    names: set[str] = set()
    seen_ports: set[tuple[str, Any]] = set()
    seen_node_ports: set[tuple[str, Any]] = set()
    for i, port in enumerate(ports):
        item = path.index(i)
        errors.extend(_port_errors(port, item, len(ports) > 1, names))
        protocol = str(port.get("protocol") or "")
        node_port = port.get("nodePort") or 0
        if service_type == "LoadBalancer" and port.get("port") == _KUBELET_PORT:
            errors.append(
                invalid(
                    item,
                    _KUBELET_PORT,
                    f"may not expose port {_KUBELET_PORT} externally since it is used by kubelet",
                )
            )
        if service_type == "ClusterIP" and node_port:
            errors.append(
                forbidden(item.child("nodePort"), "may not be used when `type` is 'ClusterIP'")
            )
        if node_port:
            if (protocol, node_port) in seen_node_ports:
                errors.append(duplicate(item.child("nodePort"), node_port))
            seen_node_ports.add((protocol, node_port))
        key = (protocol, port.get("port"))
        if key in seen_ports:
            # Upstream reports the internal ServicePort key it compared, as Go's JSON of it.
            shown = {
                "Name": "",
                "Protocol": protocol,
                "AppProtocol": None,
                "Port": port.get("port"),
                "TargetPort": 0,
                "NodePort": 0,
            }
            errors.append(duplicate(item, shown))
        seen_ports.add(key)
    return errors


def _affinity_errors(spec: JSON) -> list[FieldError]:
    affinity = str(spec.get("sessionAffinity") or "")
    path = SPEC.child("sessionAffinity")
    config_path = SPEC.child("sessionAffinityConfig")
    config = spec.get("sessionAffinityConfig")
    if not affinity:
        return [required(path)]
    if affinity not in _AFFINITIES:
        return [not_supported(path, affinity, _AFFINITIES)]
    if affinity == "None":
        return (
            [forbidden(config_path, "must not be set when session affinity is None")]
            if config
            else []
        )
    if not isinstance(config, dict):
        return [required(config_path, "when session affinity type is ClientIP")]
    client_ip = config.get("clientIP")
    if not isinstance(client_ip, dict):
        return [required(config_path.child("clientIP"), "when session affinity type is ClientIP")]
    timeout = client_ip.get("timeoutSeconds")
    if not (isinstance(timeout, int) and 0 < timeout <= _MAX_AFFINITY_SECONDS):
        return [
            invalid(
                config_path.child("clientIP", "timeoutSeconds"),
                timeout,
                f"must be greater than 0 and less than {_MAX_AFFINITY_SECONDS}",
            )
        ]
    return []


def _type_errors(spec: JSON, service_type: str) -> list[FieldError]:
    path = SPEC.child("type")
    if not service_type:
        return [required(path)]
    if service_type not in SERVICE_TYPES:
        return [not_supported(path, service_type, SERVICE_TYPES)]
    errors: list[FieldError] = []
    if service_type in ("NodePort", "LoadBalancer") and is_headless(spec):
        errors.append(
            invalid(
                SPEC.child("clusterIPs").index(0),
                "None",
                f"may not be set to 'None' for {service_type} services",
            )
        )
    if service_type == "ExternalName":
        for key in ("clusterIPs", "ipFamilies"):
            if listed(spec, key):
                errors.append(
                    forbidden(SPEC.child(key), "may not be set for ExternalName services")
                )
        if spec.get("ipFamilyPolicy") is not None:
            errors.append(
                forbidden(SPEC.child("ipFamilyPolicy"), "may not be set for ExternalName services")
            )
        # A trailing dot marks the CNAME as fully qualified.
        name = str(spec.get("externalName") or "").removesuffix(".")
        if not name:
            errors.append(required(SPEC.child("externalName")))
        errors.extend(
            invalid(SPEC.child("externalName"), name, m)
            for m in (is_dns1123_subdomain(name) if name else [])
        )
    else:
        errors.extend(cluster_ip_errors(spec))
    return errors


def _traffic_errors(spec: JSON, service_type: str) -> list[FieldError]:
    errors: list[FieldError] = []
    internal = spec.get("internalTrafficPolicy")
    path = SPEC.child("internalTrafficPolicy")
    if service_type != "ExternalName":
        if not internal:
            errors.append(required(path))
        elif internal not in _TRAFFIC_POLICIES:
            errors.append(not_supported(path, internal, _TRAFFIC_POLICIES))
    external = spec.get("externalTrafficPolicy")
    path = SPEC.child("externalTrafficPolicy")
    accessible = service_type in ("NodePort", "LoadBalancer") or (
        service_type == "ClusterIP" and bool(listed(spec, "externalIPs"))
    )
    if not accessible and external:
        errors.append(invalid(path, external, "may only be set for externally-accessible services"))
    elif accessible and external and external not in _TRAFFIC_POLICIES:
        errors.append(not_supported(path, external, _TRAFFIC_POLICIES))
    elif service_type in ("NodePort", "LoadBalancer") and not external:
        errors.append(required(path))
    allocate = spec.get("allocateLoadBalancerNodePorts")
    path = SPEC.child("allocateLoadBalancerNodePorts")
    if service_type == "LoadBalancer" and allocate is None:
        errors.append(required(path))
    elif service_type != "LoadBalancer" and allocate is not None:
        errors.append(forbidden(path, "may only be used when `type` is 'LoadBalancer'"))
    if service_type != "LoadBalancer" and spec.get("loadBalancerClass") is not None:
        errors.append(
            forbidden(
                SPEC.child("loadBalancerClass"), "may only be used when `type` is 'LoadBalancer'"
            )
        )
    return errors


def validate_service(obj: JSON) -> list[FieldError]:
    errors = validate_object_meta(
        obj.get("metadata") or {}, namespaced=True, name_validator=validate_dns1035_label_name
    )
    spec = obj.get("spec") or {}
    service_type = str(spec.get("type") or "")
    errors.extend(_type_errors(spec, service_type))
    errors.extend(_ports_errors(spec, service_type))
    selector = spec.get("selector")
    if selector is not None:
        errors.extend(validate_labels(selector, SPEC.child("selector")))
    errors.extend(_affinity_errors(spec))
    for i, ip in enumerate(listed(spec, "externalIPs")):
        if not is_ip(ip):
            errors.append(invalid(SPEC.child("externalIPs").index(i), ip, IP_MESSAGE))
    errors.extend(_traffic_errors(spec, service_type))
    return errors


def validate_service_update(new: JSON, old: JSON) -> list[FieldError]:
    errors = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    errors.extend(changed_ips(new.get("spec") or {}, old.get("spec") or {}))
    errors.extend(validate_service(new))
    return errors
