"""Validation of policy/v1 PodDisruptionBudgets and coordination.k8s.io/v1 Leases.

PodDisruptionBudget (upstream ``ValidatePodDisruptionBudget``): ``minAvailable`` xor
``maxUnavailable``, each a non-negative integer or a percentage of at most 100%; the selector
as a label selector; ``unhealthyPodEvictionPolicy`` one of its two values; the status counters
non-negative. Specs may change on update (since v1.15). Lease (``ValidateLease``): a positive
``leaseDurationSeconds``, non-negative ``leaseTransitions``, a ``strategy`` that is either a
Kubernetes-defined name or a prefixed (``example.com/name``) qualified name, and a
``preferredHolder`` only with a strategy. ``holderIdentity`` is free text. Both have
DNS-subdomain names.

Dispatched from ``podscale.api.validation``; the int-or-percent rule is the workloads' one
(``apps_workload``), metadata rules from ``objectmeta``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from podscale.api.field_errors import FieldError, FieldPath, forbidden, invalid, not_supported
from podscale.api.names import is_qualified_name
from podscale.api.validation.apps_workload import is_percent, validate_int_or_percent
from podscale.api.validation.names import validate_label_selector
from podscale.api.validation.objectmeta import (
    validate_nonnegative,
    validate_object_meta,
    validate_object_meta_update,
)

__all__ = [
    "validate_lease",
    "validate_lease_update",
    "validate_pdb",
    "validate_pdb_status_update",
    "validate_pdb_update",
]

JSON = Mapping[str, Any]

_EVICTION_POLICIES: Final = ("AlwaysAllow", "IfHealthyBudget")
_LEASE_STRATEGIES: Final = ("OldestEmulationVersion",)
_STATUS_COUNTERS: Final = ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods")


def _int_or_percent(value: Any, path: FieldPath) -> list[FieldError]:
    errors = validate_int_or_percent(value, path)
    if not errors and isinstance(value, str) and is_percent(value) and int(value[:-1]) > 100:
        errors.append(invalid(path, value, "must not be greater than 100%"))
    return errors


def _pdb_spec_errors(spec: JSON, *, allow_invalid_label_value: bool) -> list[FieldError]:
    path = FieldPath("spec")
    errors: list[FieldError] = []
    if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
        errors.append(
            invalid(path, dict(spec), "minAvailable and maxUnavailable cannot be both set")
        )
    for key in ("minAvailable", "maxUnavailable"):
        if spec.get(key) is not None:
            errors.extend(_int_or_percent(spec[key], path.child(key)))
    selector = spec.get("selector")
    errors.extend(
        validate_label_selector(
            selector if isinstance(selector, dict) else None,
            path.child("selector"),
            allow_invalid_label_value=allow_invalid_label_value,
        )
    )
    policy = spec.get("unhealthyPodEvictionPolicy")
    if policy is not None and policy not in _EVICTION_POLICIES:
        errors.append(
            not_supported(path.child("unhealthyPodEvictionPolicy"), policy, _EVICTION_POLICIES)
        )
    return errors


def _pdb_status_errors(obj: JSON) -> list[FieldError]:
    status = obj.get("status") or {}
    path = FieldPath("status")
    errors: list[FieldError] = []
    for key in _STATUS_COUNTERS:
        value = status.get(key)
        if isinstance(value, int):
            errors.extend(validate_nonnegative(value, path.child(key)))
    return errors


def validate_pdb(obj: JSON) -> list[FieldError]:
    errors = validate_object_meta(obj.get("metadata") or {}, namespaced=True)
    errors.extend(_pdb_spec_errors(obj.get("spec") or {}, allow_invalid_label_value=False))
    errors.extend(_pdb_status_errors(obj))
    return errors


def _had_invalid_label_values(old: JSON) -> bool:
    # Upstream keeps accepting a selector value the old object already got away with.
    return bool(validate_label_selector((old.get("spec") or {}).get("selector"), FieldPath("x")))


def validate_pdb_update(new: JSON, old: JSON) -> list[FieldError]:
    errors = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    errors.extend(
        _pdb_spec_errors(
            new.get("spec") or {}, allow_invalid_label_value=_had_invalid_label_values(old)
        )
    )
    errors.extend(_pdb_status_errors(new))
    return errors


def validate_pdb_status_update(new: JSON, old: JSON) -> list[FieldError]:
    errors = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    errors.extend(_pdb_status_errors(new))
    return errors


def _lease_spec_errors(spec: JSON) -> list[FieldError]:
    path = FieldPath("spec")
    errors: list[FieldError] = []
    duration = spec.get("leaseDurationSeconds")
    if isinstance(duration, int) and duration <= 0:
        errors.append(
            invalid(path.child("leaseDurationSeconds"), duration, "must be greater than 0")
        )
    transitions = spec.get("leaseTransitions")
    if isinstance(transitions, int) and transitions < 0:
        errors.append(
            invalid(
                path.child("leaseTransitions"), transitions, "must be greater than or equal to 0"
            )
        )
    strategy = spec.get("strategy")
    if isinstance(strategy, str):
        errors.extend(_lease_strategy_errors(strategy, path.child("strategy")))
    if spec.get("preferredHolder") and not strategy:
        errors.append(
            forbidden(
                path.child("preferredHolder"), "may only be specified if `strategy` is defined"
            )
        )
    return errors


def _lease_strategy_errors(strategy: str, path: FieldPath) -> list[FieldError]:
    # Upstream's ValidateCoordinatedLeaseStrategy appends "strategy" to the path it is given
    # (already ``spec.strategy``), so its errors read ``spec.strategy.strategy``; kept as is.
    path = path.child("strategy")
    if "/" not in strategy:
        # An unprefixed name is reserved for the strategies Kubernetes defines.
        if strategy in _LEASE_STRATEGIES:
            return []
        return [not_supported(path, strategy, _LEASE_STRATEGIES)]
    return [invalid(path, strategy, message) for message in is_qualified_name(strategy)]


def validate_lease(obj: JSON) -> list[FieldError]:
    errors = validate_object_meta(obj.get("metadata") or {}, namespaced=True)
    errors.extend(_lease_spec_errors(obj.get("spec") or {}))
    return errors


def validate_lease_update(new: JSON, old: JSON) -> list[FieldError]:
    errors = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    errors.extend(_lease_spec_errors(new.get("spec") or {}))
    return errors
