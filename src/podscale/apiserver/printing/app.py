"""Table columns and rows of the application kinds, as upstream's printers make them.

After ``printService``, ``printConfigMap``, ``printSecret``, ``printServiceAccount``,
``printPodDisruptionBudget`` and ``printLease`` of pkg/printers/internalversion/printers.go,
always wide (the API server sends every column; kubectl shows priority-1 ones with
``-o wide``): ``kubectl get svc`` prints NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE and,
wide, SELECTOR; ``get pdb`` NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE;
``get lease`` NAME HOLDER AGE. A Secret's row counts its keys and never shows a value.
``printing`` pairs each kind with its columns and printer here.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

from podscale.apiserver.printing.columns import AGE, NAME, ColumnDefinition
from podscale.apiserver.printing.format import age_since, as_int, as_str, dicts_at, value_at

__all__ = [
    "CONFIG_MAP_COLUMNS",
    "LEASE_COLUMNS",
    "PDB_COLUMNS",
    "SECRET_COLUMNS",
    "SERVICE_ACCOUNT_COLUMNS",
    "SERVICE_COLUMNS",
    "print_config_map",
    "print_lease",
    "print_pdb",
    "print_secret",
    "print_service",
    "print_service_account",
]

JSON = dict[str, Any]

_NONE: Final = "<none>"


def _column(
    name: str, description: str, kind: str = "string", priority: int = 0
) -> ColumnDefinition:
    return {
        "name": name,
        "type": kind,
        "format": "",
        "description": description,
        "priority": priority,
    }


SERVICE_COLUMNS: Final[tuple[ColumnDefinition, ...]] = (
    NAME,
    _column(
        "Type", "How the Service is exposed: ClusterIP, NodePort, LoadBalancer or ExternalName."
    ),
    _column("Cluster-IP", "The virtual IP of the Service, None for a headless one."),
    _column("External-IP", "Addresses outside the cluster that reach the Service."),
    _column("Port(s)", "The ports of the Service, with node ports."),
    AGE,
    _column("Selector", "The labels of the pods the Service routes to.", priority=1),
)
CONFIG_MAP_COLUMNS: Final[tuple[ColumnDefinition, ...]] = (
    NAME,
    _column("Data", "Number of keys in data and binaryData.", kind="integer"),
    AGE,
)
SECRET_COLUMNS: Final[tuple[ColumnDefinition, ...]] = (
    NAME,
    _column("Type", "The type of the secret."),
    _column("Data", "Number of keys in the secret.", kind="integer"),
    AGE,
)
SERVICE_ACCOUNT_COLUMNS: Final[tuple[ColumnDefinition, ...]] = (
    NAME,
    _column("Secrets", "Number of secrets the service account lists.", kind="integer"),
    AGE,
)
PDB_COLUMNS: Final[tuple[ColumnDefinition, ...]] = (
    NAME,
    _column("Min Available", "Pods that must stay available, if set."),
    _column("Max Unavailable", "Pods that may be unavailable, if set."),
    _column("Allowed Disruptions", "How many pods may be disrupted now.", kind="integer"),
    AGE,
)
LEASE_COLUMNS: Final[tuple[ColumnDefinition, ...]] = (
    NAME,
    _column("Holder", "Who holds the lease."),
    AGE,
)


def _head(obj: JSON) -> str:
    return as_str(value_at(obj, "metadata", "name"))


def _age(obj: JSON, now: datetime) -> str:
    return age_since(value_at(obj, "metadata", "creationTimestamp"), now)


def _count(value: Any) -> int:
    return len(value) if isinstance(value, (dict, list)) else 0


def _external_ip(spec: JSON, status: Any) -> str:
    """Upstream ``getServiceExternalIP`` (wide: load balancer addresses not shortened)."""
    service_type = as_str(spec.get("type"))
    external = [as_str(ip) for ip in spec.get("externalIPs") or []]
    if service_type in ("ClusterIP", "NodePort"):
        return ",".join(external) if external else _NONE
    if service_type == "LoadBalancer":
        ingress = dicts_at(status, "loadBalancer", "ingress")
        addresses = [as_str(i.get("ip") or i.get("hostname")) for i in ingress]
        addresses = [a for a in addresses if a] + external
        return ",".join(addresses) if addresses else "<pending>"
    if service_type == "ExternalName":
        return as_str(spec.get("externalName"))
    return "<unknown>"


def _ports(spec: JSON) -> str:
    """Upstream ``makePortString``: ``80/TCP``, with a node port ``80:30080/TCP``."""
    shown = []
    for port in dicts_at(spec, "ports"):
        protocol = as_str(port.get("protocol"))
        node_port = as_int(port.get("nodePort"))
        number = as_int(port.get("port"))
        shown.append(f"{number}:{node_port}/{protocol}" if node_port else f"{number}/{protocol}")
    return ",".join(shown) if shown else _NONE


def _selector(spec: JSON) -> str:
    selector = spec.get("selector")
    if not isinstance(selector, dict) or not selector:
        return _NONE
    return ",".join(f"{key}={as_str(selector[key])}" for key in sorted(selector))


def print_service(service: JSON, now: datetime) -> JSON:
    spec = value_at(service, "spec")
    spec = spec if isinstance(spec, dict) else {}
    cluster_ip = as_str(spec.get("clusterIP")) or _NONE
    cells = [
        _head(service),
        as_str(spec.get("type")),
        cluster_ip,
        _external_ip(spec, value_at(service, "status")),
        _ports(spec),
        _age(service, now),
        _selector(spec),
    ]
    return {"cells": cells}


def print_config_map(config_map: JSON, now: datetime) -> JSON:
    data = _count(config_map.get("data")) + _count(config_map.get("binaryData"))
    return {"cells": [_head(config_map), data, _age(config_map, now)]}


def print_secret(secret: JSON, now: datetime) -> JSON:
    cells = [
        _head(secret),
        as_str(secret.get("type")),
        _count(secret.get("data")),
        _age(secret, now),
    ]
    return {"cells": cells}


def print_service_account(account: JSON, now: datetime) -> JSON:
    return {"cells": [_head(account), _count(account.get("secrets")), _age(account, now)]}


def _int_or_string(value: Any) -> str:
    if value is None:
        return "N/A"
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else as_str(value)


def print_pdb(pdb: JSON, now: datetime) -> JSON:
    spec = value_at(pdb, "spec")
    spec = spec if isinstance(spec, dict) else {}
    allowed = as_int(value_at(pdb, "status", "disruptionsAllowed"))
    cells = [
        _head(pdb),
        _int_or_string(spec.get("minAvailable")),
        _int_or_string(spec.get("maxUnavailable")),
        allowed,
        _age(pdb, now),
    ]
    return {"cells": cells}


def print_lease(lease: JSON, now: datetime) -> JSON:
    return {
        "cells": [_head(lease), as_str(value_at(lease, "spec", "holderIdentity")), _age(lease, now)]
    }
