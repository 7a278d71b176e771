"""HPA metric validation, the leaf rules: metric targets, metric identifiers, resource names.

``hpa_metrics`` runs these inside each metric source (Object, External, Pods, Resource,
ContainerResource); ``hpa_behavior`` borrows ``read_quantity``. Also home of the tolerant JSON
readers (``read_text``, ``read_mapping``) the HPA validators share. Quantities come from
``podscale.api.quantity``, name rules from ``names``. Spec: upstream
``pkg/apis/autoscaling/validation/validation.go`` (``validateMetricTarget``,
``validateMetricIdentifier``) and core ``validateContainerResourceName``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from podscale.api.field_errors import FieldError, FieldPath, forbidden, invalid, required
from podscale.api.quantity import Quantity, QuantityError, parse_quantity
from podscale.api.validation.names import validate_path_segment_name

__all__ = [
    "is_set",
    "read_mapping",
    "read_quantity",
    "read_text",
    "validate_metric_identifier",
    "validate_metric_target",
    "validate_utilization_or_value",
]

_TARGET_TYPES: Final = frozenset({"Utilization", "Value", "AverageValue"})


def read_text(value: Any) -> str:
    """A string field as Go's typed struct would hold it (``None`` reads as ``""``)."""
    # Wrongly typed values are the decoder's business (a 400 upstream); validation only has
    # to stay total, so anything that is not a string reads as its string form.
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


def read_mapping(value: Any) -> Mapping[str, Any]:
    """``value`` when it is an object, else ``{}`` (Go's zero struct)."""
    return value if isinstance(value, Mapping) else {}


def is_set(target: Mapping[str, Any], key: str) -> bool:
    """Whether the pointer field ``key`` is set (JSON null counts as unset, as in Go)."""
    return target.get(key) is not None


def read_quantity(raw: Any) -> Quantity | str:
    """The quantity ``raw`` holds (JSON string or number), or the parse error's text."""
    if not isinstance(raw, str | int | float) or isinstance(raw, bool):
        raw = str(raw)
    try:
        return parse_quantity(raw)
    except QuantityError as err:
        return str(err)


def _validate_positive_quantity(raw: Any, path: FieldPath) -> list[FieldError]:
    value = read_quantity(raw)
    if isinstance(value, str):
        return [invalid(path, raw, value)]
    # Upstream prints the Quantity itself, i.e. its String() form.
    return [] if value.sign() == 1 else [invalid(path, str(value), "must be positive")]


def validate_metric_target(target: Mapping[str, Any], path: FieldPath) -> list[FieldError]:
    """A MetricTarget: a known ``type``, positive quantities, utilization above 0."""
    errors: list[FieldError] = []
    kind = read_text(target.get("type"))
    if not kind:
        errors.append(required(path.child("type"), "must specify a metric target type"))
    if kind not in _TARGET_TYPES:
        errors.append(
            invalid(path.child("type"), kind, "must be either Utilization, Value, or AverageValue")
        )
    for key in ("value", "averageValue"):
        if target.get(key) is not None:
            errors.extend(_validate_positive_quantity(target[key], path.child(key)))
    utilization = target.get("averageUtilization")
    if isinstance(utilization, int) and not isinstance(utilization, bool) and utilization < 1:
        errors.append(
            invalid(path.child("averageUtilization"), utilization, "must be greater than 0")
        )
    return errors


def validate_metric_identifier(metric: Any, path: FieldPath) -> list[FieldError]:
    """A MetricIdentifier: the name only (see ``hpa_metrics`` on selectors)."""
    name = read_text(read_mapping(metric).get("name"))
    if not name:
        return [required(path.child("name"), "must specify a metric name")]
    return [
        invalid(path.child("name"), name, msg) for msg in validate_path_segment_name(name, False)
    ]


def validate_utilization_or_value(target: Mapping[str, Any], path: FieldPath) -> list[FieldError]:
    """The shared rule of Resource and ContainerResource: exactly one of the two targets."""
    has_utilization, has_average = (
        is_set(target, "averageUtilization"),
        is_set(target, "averageValue"),
    )
    if not has_utilization and not has_average:
        return [
            required(
                path.child("averageUtilization"),
                "must set either a target raw value or a target utilization",
            )
        ]
    if has_utilization and has_average:
        return [
            forbidden(
                path.child("averageValue"),
                "may not set both a target raw value and a target utilization",
            )
        ]
    return []
