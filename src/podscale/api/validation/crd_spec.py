"""The ``spec`` of an apiextensions.k8s.io/v1 CustomResourceDefinition, as upstream validates it.

``crd`` (create, update, status update) calls ``validate_spec`` for the spec and
``validate_names`` for ``status.acceptedNames``: the group (a DNS subdomain with a dot), the
scope, ``spec.names`` (set, DNS-1035 labels, kind and listKind differ), the versions (unique
names, exactly one storage version, a schema for each: ``schema_presence``, which ``crd``
also asks of the old object on update), no defaults under ``preserveUnknownFields``, then
``crd_versions`` for each version's schema, subresources and printer columns and
``crd_conversion`` for ``spec.conversion``. ``mapping_of``, ``text_of`` and ``versions_of``
are the lenient readers both modules use (a value of the wrong shape reads as empty; the
type check refused it before validation). Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from podscale.api.field_errors import (
    FieldError,
    FieldPath,
    invalid,
    not_supported,
    required,
)
from podscale.api.names import is_dns1035_label, is_dns1123_subdomain
from podscale.api.validation.crd_conversion import validate_conversion
from podscale.api.validation.crd_schema_nodes import as_list
from podscale.api.validation.crd_versions import validate_versions

__all__ = [
    "SPEC",
    "mapping_of",
    "schema_presence",
    "text_of",
    "validate_names",
    "validate_spec",
    "versions_of",
]

JSON = Mapping[str, Any]

SPEC: Final = FieldPath("spec")
_SCOPES: Final = ("Cluster", "Namespaced")


def mapping_of(value: Any) -> JSON:
    """``value`` when it is an object, else empty (the type check refused the rest)."""
    return value if isinstance(value, Mapping) else {}


def text_of(value: Any) -> str:
    """``value`` when it is a string, else empty."""
    return value if isinstance(value, str) else ""


def versions_of(spec: JSON) -> list[JSON]:
    """The objects of ``spec.versions`` (each non-object read as empty)."""
    versions = spec.get("versions")
    return [mapping_of(v) for v in versions] if isinstance(versions, list) else []


def validate_names(names: JSON, path: FieldPath) -> list[FieldError]:
    """The shared rules of ``spec.names`` and ``status.acceptedNames`` (set names only)."""
    errors: list[FieldError] = []
    for key in ("plural", "singular"):
        value = text_of(names.get(key))
        if value and (msgs := is_dns1035_label(value)):
            errors.append(invalid(path.child(key), value, ",".join(msgs)))
    for key in ("kind", "listKind"):
        value = text_of(names.get(key))
        if value and (msgs := is_dns1035_label(value.lower())):
            detail = "may have mixed case, but should otherwise match: " + ",".join(msgs)
            errors.append(invalid(path.child(key), value, detail))
    for index, short in enumerate(as_list(names.get("shortNames"))):
        if msgs := is_dns1035_label(text_of(short)):
            errors.append(invalid(path.child("shortNames").index(index), short, ",".join(msgs)))
    kind = text_of(names.get("kind"))
    if kind and kind == names.get("listKind"):
        errors.append(
            invalid(path.child("listKind"), kind, "kind and listKind may not be the same")
        )
    for index, category in enumerate(as_list(names.get("categories"))):
        if msgs := is_dns1035_label(text_of(category)):
            errors.append(invalid(path.child("categories").index(index), category, ",".join(msgs)))
    return errors


def _has_schema(version: JSON) -> bool:
    return isinstance(mapping_of(version.get("schema")).get("openAPIV3Schema"), Mapping)


def schema_presence(spec: JSON, *, require_schema: bool) -> list[FieldError]:
    versions = versions_of(spec)
    schemas = [v.get("schema") for v in versions]
    if versions and all(s == schemas[0] for s in schemas) and _has_schema(versions[0]):
        return []  # the shared (top-level) schema
    errors: list[FieldError] = []
    for index, version in enumerate(versions):
        path = SPEC.child("versions").index(index).child("schema", "openAPIV3Schema")
        if require_schema and not _has_schema(version):
            errors.append(required(path, "schemas are required"))
        elif not require_schema and version.get("served") is True and not _has_schema(version):
            errors.append(required(path, "because otherwise all fields are pruned"))
    return errors


def _has_defaults(schema: Any) -> bool:
    if isinstance(schema, Mapping):
        return ("default" in schema and schema["default"] is not None) or any(
            _has_defaults(value)
            for key, value in schema.items()
            if key not in ("default", "enum", "example")
        )
    if isinstance(schema, list):
        return any(_has_defaults(value) for value in schema)
    return False


def _validate_group_and_scope(spec: JSON) -> list[FieldError]:
    errors: list[FieldError] = []
    group = text_of(spec.get("group"))
    if not group:
        errors.append(required(SPEC.child("group")))
    elif msgs := is_dns1123_subdomain(group):
        errors.append(invalid(SPEC.child("group"), group, ",".join(msgs)))
    elif "." not in group:
        errors.append(
            invalid(SPEC.child("group"), group, "should be a domain with at least one dot")
        )
    scope = text_of(spec.get("scope"))
    if not scope:
        errors.append(required(SPEC.child("scope")))
    elif scope not in _SCOPES:
        errors.append(not_supported(SPEC.child("scope"), scope, _SCOPES))
    return errors


def validate_spec(spec: JSON, *, require_schema: bool) -> list[FieldError]:
    errors = _validate_group_and_scope(spec)
    errors.extend(schema_presence(spec, require_schema=require_schema))
    preserve = spec.get("preserveUnknownFields") is True
    if preserve and _has_defaults([v.get("schema") for v in versions_of(spec)]):
        errors.append(
            invalid(
                SPEC.child("preserveUnknownFields"),
                True,
                "must be false in order to use defaults in the schema",
            )
        )
    per_version, shared = validate_versions(spec, SPEC)
    errors.extend(per_version)
    versions = versions_of(spec)
    raw_versions = as_list(spec.get("versions"))
    names = [v.get("name") for v in versions]
    if len(set(map(str, names))) != len(names):
        errors.append(
            invalid(SPEC.child("versions"), raw_versions, "must contain unique version names")
        )
    if sum(1 for v in versions if v.get("storage") is True) != 1:
        errors.append(
            invalid(
                SPEC.child("versions"),
                raw_versions,
                "must have exactly one version marked as storage version",
            )
        )
    names_spec = mapping_of(spec.get("names"))
    for key in ("plural", "singular", "kind", "listKind"):
        if not text_of(names_spec.get(key)):
            errors.append(required(SPEC.child("names", key)))
    errors.extend(validate_names(names_spec, SPEC.child("names")))
    errors.extend(shared)
    errors.extend(validate_conversion(spec, preserve))
    return errors
