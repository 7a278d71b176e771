"""Container validation: names, images, policies, ports, and regular vs init containers.

``validate_containers`` / ``validate_init_containers`` are what ``pod_spec`` runs on
``spec.containers`` and ``spec.initContainers``; each container's ``resources`` go to
``pod_resources``, DNS-label rules come from ``names``. Spec: ``pkg/apis/core/validation/
validation.go`` (``validateContainers``, ``validateInitContainers``, ``validateContainerCommon``,
``validateContainerPorts``, ``IsValidPortName``); ``env``/``envFrom`` go to ``pod_env``.

Contract: as in ``pod``, fields upstream always defaults (``imagePullPolicy``,
``terminationMessagePolicy``, port ``protocol``) read as their default when absent or empty.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
from podscale.api.validation.names import is_dns1123_label
from podscale.api.validation.pod_env import validate_env
from podscale.api.validation.pod_resources import validate_resource_requirements

__all__ = ["validate_containers", "validate_init_containers"]

_PULL_POLICIES: Final = ("Always", "IfNotPresent", "Never")
_TERMINATION_MESSAGE_POLICIES: Final = ("File", "FallbackToLogsOnError")
_PROTOCOLS: Final = ("TCP", "UDP", "SCTP")


def _validate_port_number(value: Any, path: FieldPath) -> list[FieldError]:
    if isinstance(value, int) and 1 <= value <= 65535:
        return []
    return [invalid(path, value, "must be between 1 and 65535, inclusive")]


def _validate_port_name(name: str) -> list[str]:
    """Upstream ``IsValidPortName`` (IANA service names, lower case only)."""
    details: list[str] = []
    if len(name) > 15:
        details.append("must be no more than 15 characters")
    if not name or any(ch not in "abcdefghijklmnopqrstuvwxyz0123456789-" for ch in name):
        details.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not any("a" <= ch <= "z" for ch in name):
        details.append("must contain at least one letter (a-z)")
    if "--" in name:
        details.append("must not contain consecutive hyphens")
    if name and (name[0] == "-" or name[-1] == "-"):
        details.append("must not begin or end with a hyphen")
    return details


def _validate_ports(ports: Sequence[Mapping[str, Any]], path: FieldPath) -> list[FieldError]:
    errors: list[FieldError] = []
    names: set[str] = set()
    for i, port in enumerate(ports):
        item = path.index(i)
        name = str(port.get("name", ""))
        if name:
            details = _validate_port_name(name)
            if details:
                errors.extend(invalid(item.child("name"), name, d) for d in details)
            elif name in names:
                errors.append(duplicate(item.child("name"), name))
            else:
                names.add(name)
        container_port = port.get("containerPort", 0)
        if container_port == 0:
            errors.append(required(item.child("containerPort")))
        else:
            errors.extend(_validate_port_number(container_port, item.child("containerPort")))
        host_port = port.get("hostPort", 0)
        if host_port != 0:
            errors.extend(_validate_port_number(host_port, item.child("hostPort")))
        protocol = port.get("protocol") or "TCP"
        if protocol not in _PROTOCOLS:
            errors.append(not_supported(item.child("protocol"), protocol, _PROTOCOLS))
    return errors


def _validate_container_common(container: Mapping[str, Any], path: FieldPath) -> list[FieldError]:
    errors: list[FieldError] = []
    name = str(container.get("name", ""))
    if not name:
        errors.append(required(path.child("name")))
    else:
        errors.extend(invalid(path.child("name"), name, msg) for msg in is_dns1123_label(name))
    if not container.get("image"):
        errors.append(required(path.child("image")))
    policy = container.get("terminationMessagePolicy")
    if policy and policy not in _TERMINATION_MESSAGE_POLICIES:
        errors.append(
            not_supported(
                path.child("terminationMessagePolicy"), policy, _TERMINATION_MESSAGE_POLICIES
            )
        )
    errors.extend(_validate_ports(container.get("ports") or [], path.child("ports")))
    errors.extend(validate_env(container, path))
    pull = container.get("imagePullPolicy")
    if pull and pull not in _PULL_POLICIES:
        errors.append(not_supported(path.child("imagePullPolicy"), pull, _PULL_POLICIES))
    errors.extend(
        validate_resource_requirements(container.get("resources") or {}, path.child("resources"))
    )
    return errors


def validate_containers(
    containers: Sequence[Mapping[str, Any]], path: FieldPath
) -> list[FieldError]:
    """``spec.containers``: required, each valid, names unique, no ``restartPolicy``."""
    if not containers:
        return [required(path)]
    errors: list[FieldError] = []
    names: set[str] = set()
    for i, container in enumerate(containers):
        item = path.index(i)
        errors.extend(_validate_container_common(container, item))
        name = str(container.get("name", ""))
        if name in names:
            errors.append(duplicate(item.child("name"), name))
        names.add(name)
        if container.get("restartPolicy") is not None:
            errors.append(
                forbidden(item.child("restartPolicy"), "may not be set for non-init containers")
            )
    return errors


def validate_init_containers(
    containers: Sequence[Mapping[str, Any]],
    regular: Sequence[Mapping[str, Any]],
    path: FieldPath,
) -> list[FieldError]:
    """``spec.initContainers``: each valid, names unique across regular and init containers."""
    errors: list[FieldError] = []
    names = {str(c.get("name", "")) for c in regular}
    for i, container in enumerate(containers):
        item = path.index(i)
        errors.extend(_validate_container_common(container, item))
        restart = container.get("restartPolicy")
        if restart is not None and restart != "Always":
            errors.append(not_supported(item.child("restartPolicy"), restart, ("Always",)))
        name = str(container.get("name", ""))
        if name in names:
            errors.append(duplicate(item.child("name"), name))
        elif name:
            names.add(name)
    return errors
