"""HPA validation, part 2: ``spec.metrics`` and the object references inside an HPA.

``hpa`` (the entry point) calls ``validate_metrics`` for ``spec.metrics`` and
``validate_cross_version_object_reference`` for ``spec.scaleTargetRef``; ``hpa_behavior``
covers ``spec.behavior``. Name rules come from ``names``, quantities from ``podscale.api.quantity``.

Spec: upstream ``pkg/apis/autoscaling/validation/validation.go`` (``validateMetrics``,
``validateMetricSpec``, the per-source validators, ``validateMetricTarget``,
``validateMetricIdentifier``, ``ValidateCrossVersionObjectReference``, ``ValidateAPIVersion``).
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
from podscale.api.quantity import Quantity, QuantityError, parse_quantity
from podscale.api.validation.names import (
    is_dns1123_label,
    is_qualified_name,
    validate_path_segment_name,
)

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
_TARGET_TYPES: Final = frozenset({"Utilization", "Value", "AverageValue"})

# Resource-name tables used by upstream's validateContainerResourceName (core helpers).
_STANDARD_CONTAINER_RESOURCES: Final = frozenset({"cpu", "memory", "ephemeral-storage"})
_STANDARD_RESOURCES: Final = frozenset(
    [
        "cpu",
        "memory",
        "ephemeral-storage",
        "storage",
        "pods",
        "services",
        "replicationcontrollers",
        "resourcequotas",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "services.nodeports",
        "services.loadbalancers",
        "requests.cpu",
        "requests.memory",
        "requests.storage",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
    ]
)


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


def _text(value: Any) -> str:
    # Wrongly typed values are the decoder's business (a 400 upstream); validation only has
    # to stay total, so anything that is not a string reads as its string form.
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def validate_cross_version_object_reference(
    ref: Any, path: FieldPath, options: ReferenceOptions
) -> list[FieldError]:
    """``kind`` and ``name`` required and URL-safe, then the ``apiVersion`` group rule."""
    ref = _mapping(ref)
    errors: list[FieldError] = []
    for key in ("kind", "name"):
        value = _text(ref.get(key))
        if not value:
            errors.append(required(path.child(key)))
        else:
            errors.extend(
                invalid(path.child(key), value, msg)
                for msg in validate_path_segment_name(value, False)
            )
    api_version = _text(ref.get("apiVersion"))
    problem = check_api_version(api_version, options)
    if problem is not None:
        errors.append(invalid(path.child("apiVersion"), api_version, problem))
    return errors


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


def _validate_metric_target(target: Mapping[str, Any], path: FieldPath) -> list[FieldError]:
    errors: list[FieldError] = []
    kind = _text(target.get("type"))
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


def _validate_metric_identifier(metric: Any, path: FieldPath) -> list[FieldError]:
    name = _text(_mapping(metric).get("name"))
    if not name:
        return [required(path.child("name"), "must specify a metric name")]
    return [
        invalid(path.child("name"), name, msg) for msg in validate_path_segment_name(name, False)
    ]


def _has(target: Mapping[str, Any], key: str) -> bool:
    return target.get(key) is not None


def _validate_object_source(
    source: Mapping[str, Any], path: FieldPath, options: ReferenceOptions
) -> list[FieldError]:
    target = _mapping(source.get("target"))
    errors = validate_cross_version_object_reference(
        source.get("describedObject"), path.child("describedObject"), options
    )
    errors += _validate_metric_identifier(source.get("metric"), path.child("metric"))
    errors += _validate_metric_target(target, path.child("target"))
    if not _has(target, "value") and not _has(target, "averageValue"):
        errors.append(
            required(
                path.child("target", "averageValue"),
                "must set either a target value or averageValue",
            )
        )
    return errors


def _validate_external_source(source: Mapping[str, Any], path: FieldPath) -> list[FieldError]:
    target = _mapping(source.get("target"))
    errors = _validate_metric_identifier(source.get("metric"), path.child("metric"))
    errors += _validate_metric_target(target, path.child("target"))
    has_value, has_average = _has(target, "value"), _has(target, "averageValue")
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
    target = _mapping(source.get("target"))
    errors = _validate_metric_identifier(source.get("metric"), path.child("metric"))
    errors += _validate_metric_target(target, path.child("target"))
    if not _has(target, "averageValue"):
        errors.append(
            required(
                path.child("target", "averageValue"), "must specify a positive target averageValue"
            )
        )
    return errors


def _validate_utilization_or_value(target: Mapping[str, Any], path: FieldPath) -> list[FieldError]:
    """The shared rule of Resource and ContainerResource: exactly one of the two targets."""
    has_utilization, has_average = _has(target, "averageUtilization"), _has(target, "averageValue")
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


def _validate_resource_source(source: Mapping[str, Any], path: FieldPath) -> list[FieldError]:
    target = _mapping(source.get("target"))
    errors: list[FieldError] = []
    if not _text(source.get("name")):
        errors.append(required(path.child("name"), "must specify a resource name"))
    errors += _validate_metric_target(target, path.child("target"))
    return errors + _validate_utilization_or_value(target, path.child("target"))


def _is_extended_resource_name(name: str) -> bool:
    # Not native (no kubernetes.io domain), not "requests."-prefixed, and usable as a quota key.
    if "kubernetes.io/" in name or name.startswith("requests."):
        return False
    return not is_qualified_name("requests." + name)


def _validate_container_resource_name(name: str, path: FieldPath) -> list[FieldError]:
    """Upstream core ``validateContainerResourceName``: a standard or extended resource."""
    errors = [invalid(path, name, msg) for msg in is_qualified_name(name)]
    if "/" not in name:
        # The generic resource-name rule stops at a malformed name; the container rule
        # below is appended regardless, as upstream does.
        if not errors and (
            name not in _STANDARD_RESOURCES
            and not name.startswith(("hugepages-", "requests.hugepages-"))
        ):
            errors.append(
                invalid(path, name, "must be a standard resource type or fully qualified")
            )
        if name not in _STANDARD_CONTAINER_RESOURCES and not name.startswith("hugepages-"):
            errors.append(invalid(path, name, "must be a standard resource for containers"))
    elif "kubernetes.io/" not in name and not _is_extended_resource_name(name):
        errors.append(invalid(path, name, "doesn't follow extended resource name standard"))
    return errors


def _validate_container_resource_source(
    source: Mapping[str, Any], path: FieldPath
) -> list[FieldError]:
    target = _mapping(source.get("target"))
    errors: list[FieldError] = []
    name = _text(source.get("name"))
    if not name:
        errors.append(required(path.child("name"), "must specify a resource name"))
    else:
        errors += _validate_container_resource_name(name, path.child("name"))
    container = _text(source.get("container"))
    if not container:
        errors.append(required(path.child("container"), "must specify a container"))
    else:
        errors += [
            invalid(path.child("container"), container, m) for m in is_dns1123_label(container)
        ]
    errors += _validate_metric_target(target, path.child("target"))
    return errors + _validate_utilization_or_value(target, path.child("target"))


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
    kind = _text(spec.get("type"))
    if not kind:
        errors.append(required(path.child("type"), "must specify a metric source type"))
    if kind not in METRIC_SOURCE_TYPES:
        errors.append(not_supported(path.child("type"), kind, METRIC_SOURCE_TYPES))
    present = [field for field in _SOURCE_FIELDS.values() if spec.get(field) is not None]
    if present:
        # Upstream validates only the first populated source (in this fixed field order).
        first = present[0]
        errors += _validate_source(first, _mapping(spec[first]), path.child(first), options)
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
        spec = _mapping(entry)
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
