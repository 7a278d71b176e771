"""Validation of apiextensions.k8s.io/v1 CustomResourceDefinitions, as upstream's CRD strategy.

Create, update and status update, dispatched from ``podscale.api.validation.validate``:
metadata (the name must be ``<spec.names.plural>.<spec.group>``), the group, scope, names,
versions (unique, exactly one storage version, a schema for each), conversion
(``crd_conversion``), the accepted
names in status and ``status.storedVersions``; the API-approval annotation of protected
groups; and on update the fields that never change (group, plural; scope and kind once the
CRD is Established). ``crd_versions`` checks each version's schema, subresources and printer
columns (through ``crd_schema`` and ``crd_structural``). podscale does not call conversion
webhooks, so a Webhook strategy is refused with an error saying so. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import urlparse

from podscale.api.field_errors import (
    FieldError,
    FieldPath,
    invalid,
    not_supported,
    required,
)
from podscale.api.names import (
    NameValidator,
    is_dns1035_label,
    is_dns1123_subdomain,
    validate_dns1123_subdomain_name,
)
from podscale.api.validation.crd_conversion import validate_conversion
from podscale.api.validation.crd_versions import validate_versions
from podscale.api.validation.objectmeta import (
    validate_immutable_field,
    validate_object_meta,
    validate_object_meta_update,
)

__all__ = ["validate_crd", "validate_crd_status_update", "validate_crd_update"]

JSON = Mapping[str, Any]

SPEC: Final = FieldPath("spec")
_SCOPES: Final = ("Cluster", "Namespaced")
_APPROVAL: Final = "api-approved.kubernetes.io"
_APPROVAL_DOC: Final = "see https://github.com/kubernetes/enhancements/pull/1111"


def _mapping(value: Any) -> JSON:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _spec(obj: JSON) -> JSON:
    return _mapping(obj.get("spec"))


def _versions(spec: JSON) -> list[JSON]:
    versions = spec.get("versions")
    return [_mapping(v) for v in versions] if isinstance(versions, list) else []


def validate_names(names: JSON, path: FieldPath) -> list[FieldError]:
    """The shared rules of ``spec.names`` and ``status.acceptedNames`` (set names only)."""
    errors: list[FieldError] = []
    for key in ("plural", "singular"):
        value = _text(names.get(key))
        if value and (msgs := is_dns1035_label(value)):
            errors.append(invalid(path.child(key), value, ",".join(msgs)))
    for key in ("kind", "listKind"):
        value = _text(names.get(key))
        if value and (msgs := is_dns1035_label(value.lower())):
            detail = "may have mixed case, but should otherwise match: " + ",".join(msgs)
            errors.append(invalid(path.child(key), value, detail))
    for index, short in enumerate(_list(names.get("shortNames"))):
        if msgs := is_dns1035_label(_text(short)):
            errors.append(invalid(path.child("shortNames").index(index), short, ",".join(msgs)))
    kind = _text(names.get("kind"))
    if kind and kind == names.get("listKind"):
        errors.append(
            invalid(path.child("listKind"), kind, "kind and listKind may not be the same")
        )
    for index, category in enumerate(_list(names.get("categories"))):
        if msgs := is_dns1035_label(_text(category)):
            errors.append(invalid(path.child("categories").index(index), category, ",".join(msgs)))
    return errors


def _has_schema(version: JSON) -> bool:
    return isinstance(_mapping(version.get("schema")).get("openAPIV3Schema"), Mapping)


def _schema_presence(spec: JSON, *, require_schema: bool) -> list[FieldError]:
    versions = _versions(spec)
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
    group = _text(spec.get("group"))
    if not group:
        errors.append(required(SPEC.child("group")))
    elif msgs := is_dns1123_subdomain(group):
        errors.append(invalid(SPEC.child("group"), group, ",".join(msgs)))
    elif "." not in group:
        errors.append(
            invalid(SPEC.child("group"), group, "should be a domain with at least one dot")
        )
    scope = _text(spec.get("scope"))
    if not scope:
        errors.append(required(SPEC.child("scope")))
    elif scope not in _SCOPES:
        errors.append(not_supported(SPEC.child("scope"), scope, _SCOPES))
    return errors


def _validate_spec(spec: JSON, *, require_schema: bool) -> list[FieldError]:
    errors = _validate_group_and_scope(spec)
    errors.extend(_schema_presence(spec, require_schema=require_schema))
    preserve = spec.get("preserveUnknownFields") is True
    if preserve and _has_defaults([v.get("schema") for v in _versions(spec)]):
        errors.append(
            invalid(
                SPEC.child("preserveUnknownFields"),
                True,
                "must be false in order to use defaults in the schema",
            )
        )
    per_version, shared = validate_versions(spec, SPEC)
    errors.extend(per_version)
    versions = _versions(spec)
    raw_versions = _list(spec.get("versions"))
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
    names_spec = _mapping(spec.get("names"))
    for key in ("plural", "singular", "kind", "listKind"):
        if not _text(names_spec.get(key)):
            errors.append(required(SPEC.child("names", key)))
    errors.extend(validate_names(names_spec, SPEC.child("names")))
    errors.extend(shared)
    errors.extend(validate_conversion(spec, preserve))
    return errors


def _validate_status(obj: JSON) -> list[FieldError]:
    status = _mapping(obj.get("status"))
    return validate_names(
        _mapping(status.get("acceptedNames")), FieldPath("status", "acceptedNames")
    )


def _validate_stored_versions(obj: JSON) -> list[FieldError]:
    path = FieldPath("status", "storedVersions")
    raw = _list(_mapping(obj.get("status")).get("storedVersions"))
    stored = [_text(v) for v in raw]
    if not stored:
        return [invalid(path, stored, "must have at least one stored version")]
    errors: list[FieldError] = []
    spec_names = set()
    for version in _versions(_spec(obj)):
        name = _text(version.get("name"))
        spec_names.add(name)
        if version.get("storage") is True and name not in stored:
            errors.append(invalid(path, stored, f"must have the storage version {name}"))
    last_index = {name: index for index, name in enumerate(stored)}
    for name, index in last_index.items():
        if name not in spec_names:
            errors.append(
                invalid(
                    path.index(index),
                    name,
                    f"missing from spec.versions; {name} was previously a storage version, and "
                    f"must remain in spec.versions until a storage migration ensures no data "
                    f"remains persisted in {name} and removes {name} from status.storedVersions",
                )
            )
    return errors


def _protected(group: str) -> bool:
    return any(group == d or group.endswith("." + d) for d in ("k8s.io", "kubernetes.io"))


def _approval_state(obj: JSON) -> tuple[str, str]:
    annotations = _mapping(_mapping(obj.get("metadata")).get("annotations"))
    if _APPROVAL not in annotations:
        return (
            "missing",
            f'protected groups must have approval annotation "{_APPROVAL}", {_APPROVAL_DOC}',
        )
    value = _text(annotations[_APPROVAL])
    if value.startswith("unapproved"):
        return "bypassed", ""
    parsed = urlparse(value)
    if parsed.scheme and parsed.netloc:
        return "approved", ""
    return "invalid", (
        f'protected groups must have approval annotation "{_APPROVAL}" with either a URL or a '
        f'reason starting with "unapproved", {_APPROVAL_DOC}'
    )


def _validate_approval(obj: JSON, old: JSON | None) -> list[FieldError]:
    """Groups under k8s.io and kubernetes.io need the API-review annotation."""
    if not _protected(_text(_spec(obj).get("group"))):
        return []
    state, reason = _approval_state(obj)
    if old is not None and _approval_state(old)[0] == state:
        return []
    path = FieldPath("metadata", "annotations").key(_APPROVAL)
    if state == "missing":
        return [required(path, reason)]
    if state == "invalid":
        annotations = _mapping(_mapping(obj.get("metadata")).get("annotations"))
        return [invalid(path, annotations.get(_APPROVAL), reason)]
    return []


def _validate_preserve_unknown_fields(obj: JSON, old: JSON | None) -> list[FieldError]:
    if old is not None and _spec(old).get("preserveUnknownFields") is True:
        return []  # kept for objects stored before v1 forbade it
    if _spec(obj).get("preserveUnknownFields") is not True:
        return []
    return [
        invalid(
            SPEC.child("preserveUnknownFields"),
            True,
            "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in "
            "spec.versions[*].schema instead",
        )
    ]


def _name_validator(obj: JSON) -> NameValidator:
    names = _mapping(_spec(obj).get("names"))
    wanted = f"{_text(names.get('plural'))}.{_text(_spec(obj).get('group'))}"

    def validator(name: str, prefix: bool) -> list[str]:
        errors = validate_dns1123_subdomain_name(name, prefix)
        if name != wanted:
            errors.append('must be spec.names.plural+"."+spec.group')
        return errors

    return validator


def validate_crd(obj: JSON) -> list[FieldError]:
    """Field errors of a CRD being created."""
    errors = validate_object_meta(
        _mapping(obj.get("metadata")), namespaced=False, name_validator=_name_validator(obj)
    )
    errors.extend(_validate_spec(_spec(obj), require_schema=True))
    errors.extend(_validate_status(obj))
    errors.extend(_validate_stored_versions(obj))
    errors.extend(_validate_approval(obj, None))
    errors.extend(_validate_preserve_unknown_fields(obj, None))
    return errors


def _established(obj: JSON) -> bool:
    conditions = _list(_mapping(obj.get("status")).get("conditions"))
    return any(
        _mapping(c).get("type") == "Established" and _mapping(c).get("status") == "True"
        for c in conditions
    )


def validate_crd_update(new: JSON, old: JSON) -> list[FieldError]:
    """Field errors of a CRD update: the create rules (schemas stay optional for a CRD that
    was stored without them) plus the fields that never change."""
    errors = validate_object_meta_update(
        _mapping(new.get("metadata")), _mapping(old.get("metadata"))
    )
    old_spec, spec = _spec(old), _spec(new)
    old_has_schemas = not _schema_presence(old_spec, require_schema=True)
    errors.extend(_validate_spec(spec, require_schema=old_has_schemas))
    names, old_names = _mapping(spec.get("names")), _mapping(old_spec.get("names"))
    if _established(old):
        # Stored objects and their URLs depend on these once the CRD serves.
        errors.extend(
            validate_immutable_field(spec.get("scope"), old_spec.get("scope"), SPEC.child("scope"))
        )
        errors.extend(
            validate_immutable_field(
                names.get("kind"), old_names.get("kind"), SPEC.child("names", "kind")
            )
        )
    errors.extend(
        validate_immutable_field(spec.get("group"), old_spec.get("group"), SPEC.child("group"))
    )
    errors.extend(
        validate_immutable_field(
            names.get("plural"), old_names.get("plural"), SPEC.child("names", "plural")
        )
    )
    errors.extend(_validate_status(new))
    errors.extend(_validate_stored_versions(new))
    errors.extend(_validate_approval(new, old))
    errors.extend(_validate_preserve_unknown_fields(new, old))
    return errors


def validate_crd_status_update(new: JSON, old: JSON) -> list[FieldError]:
    """A status write: metadata update rules and the accepted names."""
    errors = validate_object_meta_update(
        _mapping(new.get("metadata")), _mapping(old.get("metadata"))
    )
    return errors + _validate_status(new)
