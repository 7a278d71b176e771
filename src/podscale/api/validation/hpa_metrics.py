"""HPA validation, part 2: ``spec.metrics`` and the object references inside an HPA.

``hpa`` (the entry point) calls ``validate_metrics`` for ``spec.metrics`` and
``validate_cross_version_object_reference`` for ``spec.scaleTargetRef``; ``hpa_behavior``
covers ``spec.behavior``. Each metric source's target, identifier and resource name are checked
by ``hpa_metric_target`` (``read_quantity`` is re-exported from there); name rules come from
``names``.

Spec: upstream ``pkg/apis/autoscaling/validation/validation.go`` (``validateMetrics``,
``validateMetricSpec``, the per-source validators, ``ValidateCrossVersionObjectReference``,
``ValidateAPIVersion``).
Objects are the v2-shaped JSON dicts; a missing non-pointer field reads as Go's zero value
(``""``, ``0``, ``{}``) because that is what upstream's typed struct would hold.

Deliberate fidelity notes:
- ``metric.selector`` is *not* validated: upstream's ``validateMetricIdentifier`` checks the
  name only, so a bad selector is accepted there and here.
- Upstream iterates a Go map for the "populate the given metric source only" errors, so their
  order is random there; here they come in sorted field order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from podscale.api.field_errors import (
    FieldError,
    FieldPath,
    forbidden,
    invalid,
    not_supported,
    required,
)
from podscale.api.validation.hpa_metric_target import (
    is_set,
    read_mapping,
    read_quantity,
    read_text,
    validate_metric_identifier,
    validate_metric_target,
    validate_utilization_or_value,
)
from podscale.api.validation.names import is_dns1123_label, validate_path_segment_name
from podscale.api.validation.pod_resources import validate_container_resource_name

__all__ = [
    "METRIC_SOURCE_TYPES",
    "ReferenceOptions",
    "check_api_version",
    "parse_group_version",
    "read_quantity",
    "validate_cross_version_object_reference",
    "validate_metrics",
]

#: ``type`` value -> the field that must carry the source.
_SOURCE_FIELDS: Final = {
    "Object": "object",
    "External": "external",
    "Pods": "pods",
    "Resource": "resource",
    "ContainerResource": "containerResource",
}
METRIC_SOURCE_TYPES: Final = frozenset(_SOURCE_FIELDS)


@dataclass(frozen=True, slots=True)
class ReferenceOptions:
    """Upstream ``CrossVersionObjectReferenceValidationOptions`` (ratcheting of apiVersion)."""

    allow_empty_api_group: bool = False
    allow_invalid_api_version: bool = False


def parse_group_version(text: str) -> tuple[str, str]:
    """``apps/v1`` -> ``("apps", "v1")``; ``v1`` -> ``("", "v1")``; ``""`` -> ``("", "")``.

    Raises ``ValueError`` with upstream's ``ParseGroupVersion`` text for more than one ``/``.
    """
    if text in ("", "/"):
        return "", ""
    if text.count("/") > 1:
        raise ValueError(f"unexpected GroupVersion string: {text}")
    group, _, version = text.rpartition("/")
    return group, version


def check_api_version(api_version: str, options: ReferenceOptions) -> str | None:
    """Upstream ``ValidateAPIVersion``: the detail of the problem, or ``None`` when fine."""
    if options.allow_invalid_api_version:
        return None
    try:
        group, _ = parse_group_version(api_version)
    except ValueError as err:
        return str(err)
    if not group and not options.allow_empty_api_group:
        return "apiVersion must specify API group"
    return None


def validate_cross_version_object_reference(
    ref: Any, path: FieldPath, options: ReferenceOptions
) -> list[FieldError]:
    """``kind`` and ``name`` required and URL-safe, then the ``apiVersion`` group rule."""
    ref = read_mapping(ref)
    errors: list[FieldError] = []
    for key in ("kind", "name"):
        value = read_text(ref.get(key))
        if not value:
            errors.append(required(path.child(key)))
        else:
            errors.extend(
                invalid(path.child(key), value, msg)
                for msg in validate_path_segment_name(value, False)
            )
    api_version = read_text(ref.get("apiVersion"))
    problem = check_api_version(api_version, options)
    if problem is not None:
        errors.append(invalid(path.child("apiVersion"), api_version, problem))
    return errors


def _validate_object_source(
    source: Mapping[str, Any], path: FieldPath, options: ReferenceOptions
) -> list[FieldError]:
    target = read_mapping(source.get("target"))
    errors = validate_cross_version_object_reference(
        source.get("describedObject"), path.child("describedObject"), options
    )
    errors += validate_metric_identifier(source.get("metric"), path.child("metric"))
    errors += validate_metric_target(target, path.child("target"))
    if not is_set(target, "value") and not is_set(target, "averageValue"):
        errors.append(
            required(
                path.child("target", "averageValue"),
                "must set either a target value or averageValue",
            )
        )
    return errors


def _validate_external_source(source: Mapping[str, Any], path: FieldPath) -> list[FieldError]:
    target = read_mapping(source.get("target"))
    errors = validate_metric_identifier(source.get("metric"), path.child("metric"))
    errors += validate_metric_target(target, path.child("target"))
    has_value, has_average = is_set(target, "value"), is_set(target, "averageValue")
    if not has_value and not has_average:
        errors.append(
            required(
                path.child("target", "averageValue"),
                "must set either a target value for metric or a per-pod target",
            )
        )
    if has_value and has_average:
        errors.append(
            forbidden(
                path.child("target", "value"),
                "may not set both a target value for metric and a per-pod target",
            )
        )
    return errors


def _validate_pods_source(source: Mapping[str, Any], path: FieldPath) -> list[FieldError]:
    target = read_mapping(source.get("target"))
    errors = validate_metric_identifier(source.get("metric"), path.child("metric"))
    errors += validate_metric_target(target, path.child("target"))
    if not is_set(target, "averageValue"):
        errors.append(
            required(
                path.child("target", "averageValue"), "must specify a positive target averageValue"
            )
        )
    return errors


def _validate_resource_source(source: Mapping[str, Any], path: FieldPath) -> list[FieldError]:
    target = read_mapping(source.get("target"))
    errors: list[FieldError] = []
    if not read_text(source.get("name")):
        errors.append(required(path.child("name"), "must specify a resource name"))
    errors += validate_metric_target(target, path.child("target"))
    return errors + validate_utilization_or_value(target, path.child("target"))


def _validate_container_resource_source(
    source: Mapping[str, Any], path: FieldPath
) -> list[FieldError]:
    target = read_mapping(source.get("target"))
    errors: list[FieldError] = []
    name = read_text(source.get("name"))
    if not name:
        errors.append(required(path.child("name"), "must specify a resource name"))
    else:
        errors += validate_container_resource_name(name, path.child("name"))
    container = read_text(source.get("container"))
    if not container:
        errors.append(required(path.child("container"), "must specify a container"))
    else:
        errors += [
            invalid(path.child("container"), container, m) for m in is_dns1123_label(container)
        ]
    errors += validate_metric_target(target, path.child("target"))
    return errors + validate_utilization_or_value(target, path.child("target"))


def _validate_source(
    field: str, source: Mapping[str, Any], path: FieldPath, options: ReferenceOptions
) -> list[FieldError]:
    if field == "object":
        return _validate_object_source(source, path, options)
    if field == "external":
        return _validate_external_source(source, path)
    if field == "pods":
        return _validate_pods_source(source, path)
    if field == "resource":
        return _validate_resource_source(source, path)
    return _validate_container_resource_source(source, path)


def _validate_metric_spec(
    spec: Mapping[str, Any], path: FieldPath, options: ReferenceOptions
) -> list[FieldError]:
    errors: list[FieldError] = []
    kind = read_text(spec.get("type"))
    if not kind:
        errors.append(required(path.child("type"), "must specify a metric source type"))
    if kind not in METRIC_SOURCE_TYPES:
        errors.append(not_supported(path.child("type"), kind, METRIC_SOURCE_TYPES))
    present = [field for field in _SOURCE_FIELDS.values() if spec.get(field) is not None]
    if present:
        # Upstream validates only the first populated source (in this fixed field order).
        first = present[0]
        errors += _validate_source(first, read_mapping(spec[first]), path.child(first), options)
    expected = _SOURCE_FIELDS.get(kind)
    if expected is None:
        # Upstream reports an unknown type a second time from its switch's default branch;
        # matched on purpose (the aggregated Status message de-duplicates it anyway).
        errors.append(not_supported(path.child("type"), kind, METRIC_SOURCE_TYPES))
    elif expected not in present:
        errors.append(
            required(path.child(expected), "must populate information for the given metric source")
        )
    if len(present) != 1:
        errors += [
            forbidden(path.child(field), "must populate the given metric source only")
            for field in sorted(present)
            if field != expected
        ]
    return errors


def validate_metrics(
    metrics: Any,
    path: FieldPath,
    *,
    min_replicas: int | None,
    object_options: ReferenceOptions,
) -> list[FieldError]:
    """Every entry of ``spec.metrics``, then the scale-to-zero rule.

    ``min_replicas == 0`` (only reachable under ``HPAScaleToZero`` or ratcheting) needs at
    least one Object or External metric, because only those can be read with zero pods.
    """
    entries: Sequence[Any] = metrics if isinstance(metrics, list) else []
    errors: list[FieldError] = []
    has_object_or_external = False
    for i, entry in enumerate(entries):
        spec = read_mapping(entry)
        errors += _validate_metric_spec(spec, path.index(i), object_options)
        has_object_or_external |= spec.get("type") in ("Object", "External")
    if min_replicas == 0 and not has_object_or_external:
        errors.append(
            forbidden(
                path,
                "must specify at least one Object or External metric to support scaling to "
                "zero replicas",
            )
        )
    return errors
