"""Container resource validation: ``resources.limits`` / ``resources.requests`` of a container.

``validate_resource_requirements`` checks resource names (standard, hugepages, extended),
quantities (parsable, non-negative, whole for counted resources) and that every request stays
within its limit. ``pod_containers`` calls it for each container; quantities come from
``podscale.api.quantity`` and qualified-name rules from ``names``. Spec: ``pkg/apis/core/
validation/validation.go`` (``ValidateResourceRequirements``, ``validateContainerResourceName``,
``ValidateResourceQuantityValue``) and the core ``helper`` resource-name predicates.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from podscale.api.field_errors import FieldError, FieldPath, forbidden, invalid, required
from podscale.api.quantity import Quantity, QuantityError, parse_quantity
from podscale.api.validation.names import is_qualified_name

__all__ = ["validate_container_resource_name", "validate_resource_requirements"]

# Resource names upstream knows without a domain prefix (core helper.IsStandardResourceName).
_STANDARD_RESOURCES: Final = frozenset(
    {
        "cpu",
        "memory",
        "ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.ephemeral-storage",
        "storage",
        "requests.storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
        "pods",
        "services",
        "replicationcontrollers",
        "resourcequotas",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "services.nodeports",
        "services.loadbalancers",
    }
)
_CONTAINER_RESOURCES: Final = frozenset({"cpu", "memory", "ephemeral-storage"})
# Counted resources: a fractional quantity of these is meaningless (helper.IsIntegerResourceName).
_INTEGER_RESOURCES: Final = _STANDARD_RESOURCES - {
    "cpu",
    "memory",
    "ephemeral-storage",
    "storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "requests.storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
}
_HUGEPAGES: Final = "hugepages-"


def _is_native_resource(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def _is_extended_resource(name: str) -> bool:
    if _is_native_resource(name) or name.startswith("requests."):
        return False
    return not is_qualified_name("requests." + name)


def _overcommit_allowed(name: str) -> bool:
    # Extended resources (GPUs...) and hugepages must request exactly their limit.
    return _is_native_resource(name) and not name.startswith(_HUGEPAGES)


def validate_container_resource_name(name: str, path: FieldPath) -> list[FieldError]:
    """Upstream core ``validateContainerResourceName``: a standard or extended resource.

    Shared by container resource requirements and HPA ``ContainerResource`` metrics.
    """
    errors = [invalid(path, name, msg) for msg in is_qualified_name(name)]
    if "/" not in name:
        standard = name in _STANDARD_RESOURCES or name.startswith(
            (_HUGEPAGES, "requests." + _HUGEPAGES)
        )
        if not errors and not standard:
            errors.append(
                invalid(path, name, "must be a standard resource type or fully qualified")
            )
        if name not in _CONTAINER_RESOURCES and not name.startswith(_HUGEPAGES):
            errors.append(invalid(path, name, "must be a standard resource for containers"))
    elif not _is_native_resource(name) and not _is_extended_resource(name):
        errors.append(invalid(path, name, "doesn't follow extended resource name standard"))
    return errors


def _parse_resource_list(
    resources: Mapping[str, Any], path: FieldPath
) -> tuple[dict[str, Quantity], list[FieldError]]:
    """Names and quantities of one resource list; unparsable quantities are reported here.

    Upstream rejects those while decoding (400); reporting them as 422 field errors is the
    closest a dict-based validator can get.
    """
    parsed: dict[str, Quantity] = {}
    errors: list[FieldError] = []
    for name, raw in resources.items():
        item = path.key(name)
        errors.extend(validate_container_resource_name(name, item))
        try:
            quantity = parse_quantity(raw)
        except QuantityError as err:
            errors.append(invalid(item, raw, str(err)))
            continue
        if quantity.sign() < 0:
            errors.append(invalid(item, str(quantity), "must be greater than or equal to 0"))
        elif (name in _INTEGER_RESOURCES or _is_extended_resource(name)) and (
            quantity.milli_value() % 1000
        ):
            errors.append(invalid(item, str(quantity), "must be an integer"))
        parsed[name] = quantity
    return parsed, errors


def validate_resource_requirements(
    resources: Mapping[str, Any], path: FieldPath
) -> list[FieldError]:
    """Container ``resources``: valid names and quantities, and every request within limits."""
    limits_path = path.child("limits")
    requests_path = path.child("requests")
    limits, errors = _parse_resource_list(resources.get("limits") or {}, limits_path)
    requests, request_errors = _parse_resource_list(resources.get("requests") or {}, requests_path)
    errors.extend(request_errors)
    for name, request in requests.items():
        limit = limits.get(name)
        if limit is None:
            if not _overcommit_allowed(name) and name not in (resources.get("limits") or {}):
                errors.append(
                    required(limits_path, "Limit must be set for non overcommitable resources")
                )
        elif request != limit and not _overcommit_allowed(name):
            errors.append(
                invalid(requests_path, str(request), f"must be equal to {name} limit of {limit}")
            )
        elif request > limit:
            errors.append(
                invalid(
                    requests_path,
                    str(request),
                    f"must be less than or equal to {name} limit of {limit}",
                )
            )
    hugepages = any(n.startswith(_HUGEPAGES) for n in (*limits, *requests))
    if hugepages and not any(n in ("cpu", "memory") for n in (*limits, *requests)):
        errors.append(forbidden(path, "HugePages require cpu or memory"))
    return errors
