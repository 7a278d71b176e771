"""HPA validation, part 3: ``spec.behavior`` (scaling rules, policies, tolerance).

Called by ``hpa`` (the entry point); quantity checks are shared with ``hpa_metrics``.
Spec: upstream ``pkg/apis/autoscaling/validation/validation.go`` (``validateBehavior``,
``validateScalingRules``, ``validateScalingPolicy``) and, for the ``tolerance`` gate,
``pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go`` (``dropDisabledFields``).

Optional fields (``stabilizationWindowSeconds``, ``selectPolicy``, ``policies``,
``tolerance``) are checked only when present: validation never applies defaults, and the
defaulter fills a missing ``policies`` list. An explicitly empty ``policies: []`` is an error.

Tolerance and ``HPAConfigurableTolerance``: upstream never *rejects* a tolerance because of
the gate. With the gate off, the registry silently drops ``tolerance`` on create, and on
update unless the old object already used one (so stored values survive a gate flip).
``drop_disabled_fields`` does that drop for the API server; ``validate_behavior`` skips the
tolerance check whenever that drop would have removed the field.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Final

from podscale.api.feature_gates import HPA_CONFIGURABLE_TOLERANCE
from podscale.api.field_errors import FieldError, FieldPath, invalid, not_supported, required
from podscale.api.validation.hpa_metrics import read_quantity

__all__ = [
    "MAX_PERIOD_SECONDS",
    "MAX_STABILIZATION_WINDOW_SECONDS",
    "drop_disabled_fields",
    "keeps_tolerance",
    "tolerance_in_use",
    "validate_behavior",
]

MAX_PERIOD_SECONDS: Final = 1800
MAX_STABILIZATION_WINDOW_SECONDS: Final = 3600

_SELECT_POLICIES: Final = frozenset({"Max", "Min", "Disabled"})
_POLICY_TYPES: Final = frozenset({"Pods", "Percent"})
_DIRECTIONS: Final = ("scaleUp", "scaleDown")


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _int(value: Any) -> int | None:
    # Booleans are ints in Python but never int32 in a decoded object.
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _rules_of(hpa: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    behavior = _mapping(_mapping(_mapping(hpa).get("spec")).get("behavior"))
    return [_mapping(behavior.get(direction)) for direction in _DIRECTIONS]


def tolerance_in_use(hpa: Mapping[str, Any] | None) -> bool:
    """True when either direction of ``spec.behavior`` sets a ``tolerance``."""
    return any(rules.get("tolerance") is not None for rules in _rules_of(hpa))


def keeps_tolerance(old: Mapping[str, Any] | None, feature_gates: frozenset[str]) -> bool:
    """Whether a new object's ``tolerance`` survives (gate on, or the old object used one)."""
    return HPA_CONFIGURABLE_TOLERANCE in feature_gates or tolerance_in_use(old)


def drop_disabled_fields(
    obj: Mapping[str, Any], old: Mapping[str, Any] | None, feature_gates: frozenset[str]
) -> dict[str, Any]:
    """A copy of ``obj`` without ``tolerance`` when the gate is off and ``old`` had none.

    Upstream does this in the registry's PrepareForCreate/PrepareForUpdate, before
    validation; every other field is kept untouched.
    """
    result = copy.deepcopy(dict(obj))
    if keeps_tolerance(old, feature_gates):
        return result
    behavior = _mapping(_mapping(result.get("spec")).get("behavior"))
    for direction in _DIRECTIONS:
        rules = behavior.get(direction)
        if isinstance(rules, dict):
            rules.pop("tolerance", None)
    return result


def _validate_policy(policy: Mapping[str, Any], path: FieldPath) -> list[FieldError]:
    errors: list[FieldError] = []
    kind = policy.get("type") or ""
    if not isinstance(kind, str) or kind not in _POLICY_TYPES:
        errors.append(not_supported(path.child("type"), kind, _POLICY_TYPES))
    # Non-pointer int32 fields upstream: absent reads as 0.
    value = _int(policy.get("value")) or 0
    if value <= 0:
        errors.append(invalid(path.child("value"), value, "must be greater than zero"))
    period = _int(policy.get("periodSeconds")) or 0
    if period <= 0:
        errors.append(invalid(path.child("periodSeconds"), period, "must be greater than zero"))
    if period > MAX_PERIOD_SECONDS:
        errors.append(
            invalid(
                path.child("periodSeconds"),
                period,
                f"must be less than or equal to {MAX_PERIOD_SECONDS}",
            )
        )
    return errors


def _validate_tolerance(raw: Any, path: FieldPath) -> list[FieldError]:
    # Upstream ValidateNonnegativeQuantity: the bad value is printed as value.String().
    value = read_quantity(raw)
    if isinstance(value, str):
        return [invalid(path, raw, value)]
    if value.sign() < 0:
        return [invalid(path, str(value), "must be greater than or equal to 0")]
    return []


def _validate_rules(
    rules: Mapping[str, Any], path: FieldPath, *, check_tolerance: bool
) -> list[FieldError]:
    errors: list[FieldError] = []
    window = _int(rules.get("stabilizationWindowSeconds"))
    if window is not None and window < 0:
        errors.append(
            invalid(
                path.child("stabilizationWindowSeconds"),
                window,
                "must be greater than or equal to zero",
            )
        )
    if window is not None and window > MAX_STABILIZATION_WINDOW_SECONDS:
        errors.append(
            invalid(
                path.child("stabilizationWindowSeconds"),
                window,
                f"must be less than or equal to {MAX_STABILIZATION_WINDOW_SECONDS}",
            )
        )
    select = rules.get("selectPolicy")
    if select is not None and (not isinstance(select, str) or select not in _SELECT_POLICIES):
        errors.append(not_supported(path.child("selectPolicy"), select, _SELECT_POLICIES))
    policies = rules.get("policies")
    if policies is not None:
        policies_path = path.child("policies")
        entries = policies if isinstance(policies, list) else []
        if not entries:
            errors.append(required(policies_path, "must specify at least one Policy"))
        for i, policy in enumerate(entries):
            errors += _validate_policy(_mapping(policy), policies_path.index(i))
    if check_tolerance and rules.get("tolerance") is not None:
        errors += _validate_tolerance(rules["tolerance"], path.child("tolerance"))
    return errors


def validate_behavior(behavior: Any, path: FieldPath, *, check_tolerance: bool) -> list[FieldError]:
    """``scaleUp`` then ``scaleDown``; ``check_tolerance`` is ``keeps_tolerance(old, gates)``."""
    behavior = _mapping(behavior)
    errors: list[FieldError] = []
    for direction in _DIRECTIONS:
        rules = behavior.get(direction)
        if rules is not None:
            errors += _validate_rules(
                _mapping(rules), path.child(direction), check_tolerance=check_tolerance
            )
    return errors
