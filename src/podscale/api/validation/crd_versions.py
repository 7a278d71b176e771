"""The per-version parts of a CRD: schema, subresources, printer columns, deprecation.

apiextensions-apiserver validates its internal CRD type, into which v1 converts: when every
version carries the same schema (or subresources, or printer columns), the value moves to
the top level, so errors in it are reported at ``spec.validation.openAPIV3Schema...``
(``spec.subresources...``, ``spec.additionalPrinterColumns[i]...``) rather than under
``spec.versions[i]``. ``validate_versions`` reproduces that and checks each part:
``crd_schema`` the schemas, this module the subresources, columns and deprecation warnings.
``crd_spec`` calls it for the rest of the spec. Pure.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any, Final

from podscale.api.field_errors import FieldError, FieldPath, invalid, required
from podscale.api.names import is_dns1035_label
from podscale.api.validation.crd_schema import validate_crd_schema
from podscale.api.validation.crd_schema_nodes import as_list

__all__ = ["validate_simple_json_path", "validate_versions"]

JSON = Mapping[str, Any]

_COLUMN_TYPES: Final = ("boolean", "date", "integer", "number", "string")
_COLUMN_FORMATS: Final = (
    "byte",
    "date",
    "date-time",
    "double",
    "float",
    "int32",
    "int64",
    "password",
)


def _versions(spec: JSON) -> list[JSON]:
    versions = spec.get("versions")
    return (
        [v if isinstance(v, Mapping) else {} for v in versions]
        if isinstance(versions, list)
        else []
    )


def _identical(values: Sequence[Any]) -> bool:
    return bool(values) and all(value == values[0] for value in values)


def validate_simple_json_path(text: str, path: FieldPath) -> list[FieldError]:
    """A dot-notation path from the object's root (``.spec.replicas``)."""
    if not text:
        return [invalid(path, text, "must not be empty")]
    if not text.startswith("."):
        return [invalid(path, text, "must be a simple json path starting with .")]
    return []


def _scale_path(
    scale: JSON, key: str, prefixes: tuple[str, ...], detail: str, path: FieldPath
) -> list[FieldError]:
    text = scale.get(key)
    child = path.child("scale." + key)
    if not isinstance(text, str) or not text:
        return [] if key == "labelSelectorPath" else [required(child)]
    errors = validate_simple_json_path(text, child)
    if not errors and not text.startswith(prefixes):
        errors.append(invalid(child, text, detail))
    return errors


def validate_subresources(subresources: Any, path: FieldPath) -> list[FieldError]:
    """The scale subresource's paths: replicas under .spec and .status, the selector under
    either; status takes no settings."""
    if not isinstance(subresources, Mapping):
        return []
    scale = subresources.get("scale")
    if not isinstance(scale, Mapping):
        return []
    return (
        _scale_path(
            scale, "specReplicasPath", (".spec.",), "should be a json path under .spec", path
        )
        + _scale_path(
            scale, "statusReplicasPath", (".status.",), "should be a json path under .status", path
        )
        + _scale_path(
            scale,
            "labelSelectorPath",
            (".spec.", ".status."),
            "should be a json path under either .spec or .status",
            path,
        )
    )


def validate_column(column: JSON, path: FieldPath) -> list[FieldError]:
    """One additional printer column (upstream names the path child ``JSONPath``)."""
    errors: list[FieldError] = []
    if not column.get("name"):
        errors.append(required(path.child("name")))
    kind = column.get("type") or ""
    detail = "must be one of " + ",".join(_COLUMN_TYPES)
    if not kind:
        errors.append(required(path.child("type"), detail))
    elif kind not in _COLUMN_TYPES:
        errors.append(invalid(path.child("type"), kind, detail))
    fmt = column.get("format") or ""
    if fmt and fmt not in _COLUMN_FORMATS:
        errors.append(
            invalid(path.child("format"), fmt, "must be one of " + ",".join(_COLUMN_FORMATS))
        )
    json_path = column.get("jsonPath") or ""
    if not json_path:
        errors.append(required(path.child("JSONPath")))
    else:
        errors.extend(validate_simple_json_path(str(json_path), path.child("JSONPath")))
    return errors


def _deprecation_warning(version: JSON, path: FieldPath) -> list[FieldError]:
    warning = version.get("deprecationWarning")
    if warning is None:
        return []
    child = path.child("deprecationWarning")
    if version.get("deprecated") is not True:
        return [invalid(child, warning, "can only be set for deprecated versions")]
    text = str(warning)
    errors: list[FieldError] = []
    if len(text.encode()) > 256:
        errors.append(invalid(child, text, "must be <= 256 characters long"))
    if not text:
        errors.append(invalid(child, text, "must not be an empty string"))
    for index, char in enumerate(text):
        # Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and ASCII space.
        if char != " " and unicodedata.category(char)[0] not in "LMNPS":
            at = len(text[:index].encode())
            what = "control" if unicodedata.category(char) == "Cc" else "non-printable"
            errors.append(
                invalid(
                    child,
                    text,
                    f"must only contain printable UTF-8 characters; {what} character found at "
                    f"index {at}",
                )
            )
            break
    return errors


def _status_enabled(subresources: Any) -> bool:
    return isinstance(subresources, Mapping) and subresources.get("status") is not None


def validate_versions(spec: JSON, path: FieldPath) -> tuple[list[FieldError], list[FieldError]]:
    """Errors of each version (name, deprecation, own schema, subresources, columns) and of
    the parts every version shares, at the paths the internal (converted) CRD has them; the
    caller puts its other spec checks between the two, as upstream orders them."""
    versions = _versions(spec)
    errors: list[FieldError] = []
    shared: list[FieldError] = []
    schemas = [v.get("schema") for v in versions]
    subresources = [v.get("subresources") for v in versions]
    columns = [as_list(v.get("additionalPrinterColumns")) for v in versions]
    shared_schema, shared_subresources, shared_columns = (
        _identical(schemas),
        _identical(subresources),
        _identical(columns),
    )
    for index, version in enumerate(versions):
        version_path = path.child("versions").index(index)
        name = str(version.get("name") or "")
        name_errors = is_dns1035_label(name)
        if name_errors:
            errors.append(invalid(version_path.child("name"), name, ",".join(name_errors)))
        errors.extend(_deprecation_warning(version, version_path))
        own_subresources = None if shared_subresources else subresources[index]
        if not shared_schema:
            status = _status_enabled(subresources[0] if shared_subresources else own_subresources)
            errors.extend(validate_crd_schema(schemas[index], status, version_path.child("schema")))
        errors.extend(validate_subresources(own_subresources, version_path.child("subresources")))
        if not shared_columns:
            for col_index, column in enumerate(columns[index]):
                if isinstance(column, Mapping):
                    col_path = version_path.child("additionalPrinterColumns").index(col_index)
                    errors.extend(validate_column(column, col_path))
    if shared_schema:
        any_status = any(_status_enabled(s) for s in subresources)
        shared.extend(validate_crd_schema(schemas[0], any_status, path.child("validation")))
    if shared_subresources:
        shared.extend(validate_subresources(subresources[0], path.child("subresources")))
    if shared_columns:
        for col_index, column in enumerate(columns[0]):
            if isinstance(column, Mapping):
                col_path = path.child("additionalPrinterColumns").index(col_index)
                shared.extend(validate_column(column, col_path))
    return errors, shared
