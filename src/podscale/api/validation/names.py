"""Field-path validation of names, labels, annotations and ``LabelSelector`` shapes.

The ``validate_*`` functions here wrap the pure string checks of ``podscale.api.names``
into ``FieldError`` lists at a field path; those checks (``is_*``, ``validate_*_name``,
``NameValidator``, the length constants) are re-exported so existing importers keep one
place to look. Callers: ``objectmeta`` (metadata), ``pod`` and ``apps`` (template labels,
selectors) and ``hpa`` (scale target names, metric selectors). Spec: apimachinery
``pkg/api/validation/generic.go``, ``pkg/apis/meta/v1/validation/validation.go`` and, via
``podscale.api.names``, ``pkg/api/validate/content`` and ``pkg/util/validation``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from podscale.api.field_errors import FieldError, FieldPath, forbidden, invalid, required, too_long
from podscale.api.names import (
    DNS1123_LABEL_MAX_LENGTH,
    DNS1123_SUBDOMAIN_MAX_LENGTH,
    LABEL_VALUE_MAX_LENGTH,
    TOTAL_ANNOTATION_SIZE_LIMIT_BYTES,
    NameValidator,
    annotations_size,
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
    max_len_error,
    regex_error,
    validate_dns1035_label_name,
    validate_dns1123_label_name,
    validate_dns1123_subdomain_name,
    validate_namespace_name,
    validate_path_segment_name,
)

__all__ = [
    "DNS1123_LABEL_MAX_LENGTH",
    "DNS1123_SUBDOMAIN_MAX_LENGTH",
    "LABEL_VALUE_MAX_LENGTH",
    "TOTAL_ANNOTATION_SIZE_LIMIT_BYTES",
    "NameValidator",
    "annotations_size",
    "is_dns1035_label",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_qualified_name",
    "is_valid_label_value",
    "max_len_error",
    "regex_error",
    "validate_annotations",
    "validate_dns1035_label_name",
    "validate_dns1123_label_name",
    "validate_dns1123_subdomain_name",
    "validate_label_name",
    "validate_label_selector",
    "validate_labels",
    "validate_namespace_name",
    "validate_path_segment_name",
]

_OPERATORS_WITH_VALUES: Final = frozenset({"In", "NotIn"})
_OPERATORS_WITHOUT_VALUES: Final = frozenset({"Exists", "DoesNotExist"})


def validate_label_name(name: str, path: FieldPath) -> list[FieldError]:
    return [invalid(path, name, msg) for msg in is_qualified_name(name)]


# Label maps found valid, as their (key, value) pairs: every update of a labelled object
# validates its labels again, mostly the very labels it had (a node's heartbeat, a pod's
# status). Validity is a function of the pairs alone (the path only words an error), and
# only maps of plain strings are filed, whose pairs fix every check's input.
_VALID_LABELS: dict[tuple[tuple[str, str], ...], None] = {}
_VALID_LABELS_LIMIT: Final = 4096


def validate_labels(labels: Mapping[str, Any] | None, path: FieldPath) -> list[FieldError]:
    """Every key a qualified name, every value a label value; errors sit on the map's path."""
    if not labels:
        return []
    pairs = tuple(labels.items())
    try:
        if pairs in _VALID_LABELS:
            return []
    except TypeError:  # an unhashable value (bad input): checked below, never filed
        pass
    errors: list[FieldError] = []
    for key, value in pairs:
        errors.extend(validate_label_name(key, path))
        errors.extend(invalid(path, value, msg) for msg in is_valid_label_value(str(value)))
    if not errors and all(type(k) is str and type(v) is str for k, v in pairs):
        if len(_VALID_LABELS) >= _VALID_LABELS_LIMIT:
            _VALID_LABELS.clear()
        _VALID_LABELS[pairs] = None
    return errors


def validate_annotations(
    annotations: Mapping[str, Any] | None, path: FieldPath
) -> list[FieldError]:
    """Keys are qualified names compared case-insensitively; 256 KiB for keys plus values."""
    errors: list[FieldError] = []
    annotations = annotations or {}
    for key in annotations:
        errors.extend(invalid(path, key, msg) for msg in is_qualified_name(key.lower()))
    if annotations_size(annotations) > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES:
        # Upstream passes an empty bad value: the Too long body never prints it anyway.
        errors.append(too_long(path, "", TOTAL_ANNOTATION_SIZE_LIMIT_BYTES))
    return errors


def _validate_selector_requirement(
    requirement: Mapping[str, Any], path: FieldPath, *, allow_invalid_label_value: bool
) -> list[FieldError]:
    errors: list[FieldError] = []
    operator = requirement.get("operator", "")
    values: list[Any] = list(requirement.get("values") or [])
    if operator in _OPERATORS_WITH_VALUES:
        if not values:
            errors.append(
                required(
                    path.child("values"), "must be specified when `operator` is 'In' or 'NotIn'"
                )
            )
    elif operator in _OPERATORS_WITHOUT_VALUES:
        if values:
            errors.append(
                forbidden(
                    path.child("values"),
                    "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                )
            )
    else:
        errors.append(invalid(path.child("operator"), operator, "not a valid selector operator"))
    if not allow_invalid_label_value:
        for i, value in enumerate(values):
            errors.extend(
                invalid(path.child("values").index(i), value, msg)
                for msg in is_valid_label_value(str(value))
            )
    errors.extend(validate_label_name(str(requirement.get("key", "")), path.child("key")))
    return errors


def validate_label_selector(
    selector: Mapping[str, Any] | None,
    path: FieldPath,
    *,
    allow_invalid_label_value: bool = False,
) -> list[FieldError]:
    """A ``metav1.LabelSelector``: ``matchLabels`` as labels, then each ``matchExpressions``.

    ``allow_invalid_label_value`` mirrors upstream's ``AllowInvalidLabelValueInSelector``
    option (set on updates whose old object already held such a value).
    """
    if selector is None:
        return []
    errors = validate_labels(selector.get("matchLabels"), path.child("matchLabels"))
    for i, requirement in enumerate(selector.get("matchExpressions") or []):
        errors.extend(
            _validate_selector_requirement(
                requirement,
                path.child("matchExpressions").index(i),
                allow_invalid_label_value=allow_invalid_label_value,
            )
        )
    return errors
