"""Defaults of the application kinds: Service, Secret (core/v1) and PodDisruptionBudget.

What upstream's ``SetDefaults_*`` functions for these kinds fill in (pkg/apis/core/v1 and
pkg/apis/policy/v1 defaults): a Service gets type ClusterIP, sessionAffinity None (ClientIP
affinity a 10800 s timeout), TCP ports whose targetPort is the port, internalTrafficPolicy
Cluster (but not ExternalName), externalTrafficPolicy Cluster for NodePort and LoadBalancer,
and ``allocateLoadBalancerNodePorts: true`` for LoadBalancer; a Secret gets type Opaque.
ConfigMap, ServiceAccount, PodDisruptionBudget and Lease have no field defaults.

The Service fields upstream fills in its REST storage rather than its defaulters (clusterIP,
clusterIPs, ipFamilies, ipFamilyPolicy, nodePorts) come from the API server's allocation step
(``podscale.apiserver.registry.service_allocation``). ``podscale.api.defaults`` dispatches here.
Mutates its argument (the caller hands it a private copy).
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["default_secret", "default_service"]

JSON = dict[str, Any]

DEFAULT_CLIENT_IP_TIMEOUT: Final = (
    10800  # three hours, upstream's DefaultClientIPServiceAffinitySeconds
)
_EXTERNAL_TYPES: Final = ("NodePort", "LoadBalancer")


def _dict(parent: JSON, key: str) -> JSON:
    value = parent.get(key)
    if not isinstance(value, dict):
        value = parent[key] = {}
    return value


def default_service(obj: JSON) -> None:
    spec = _dict(obj, "spec")
    if not spec.get("sessionAffinity"):
        spec["sessionAffinity"] = "None"
    if spec["sessionAffinity"] == "ClientIP":
        client_ip = _dict(_dict(spec, "sessionAffinityConfig"), "clientIP")
        if client_ip.get("timeoutSeconds") is None:
            client_ip["timeoutSeconds"] = DEFAULT_CLIENT_IP_TIMEOUT
    if not spec.get("type"):
        spec["type"] = "ClusterIP"
    for port in spec.get("ports") or []:
        if not isinstance(port, dict):
            continue
        if not port.get("protocol"):
            port["protocol"] = "TCP"
        # An absent or zero targetPort (Go's zero IntOrString) means "the same as port".
        if port.get("targetPort") in (None, 0, ""):
            port["targetPort"] = port.get("port")
    service_type = spec["type"]
    if service_type in _EXTERNAL_TYPES and not spec.get("externalTrafficPolicy"):
        spec["externalTrafficPolicy"] = "Cluster"
    if service_type != "ExternalName" and not spec.get("internalTrafficPolicy"):
        spec["internalTrafficPolicy"] = "Cluster"
    if service_type == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts") is None:
        spec["allocateLoadBalancerNodePorts"] = True


def default_secret(obj: JSON) -> None:
    if not obj.get("type"):
        obj["type"] = "Opaque"
