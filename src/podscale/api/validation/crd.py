"""Validation of apiextensions.k8s.io/v1 CustomResourceDefinitions, as upstream's CRD strategy.

Create, update and status update, dispatched from ``podscale.api.validation.validate``:
metadata (the name must be ``<spec.names.plural>.<spec.group>``), the spec (``crd_spec``:
group, scope, names, versions, conversion), the accepted names in status and
``status.storedVersions``; the API-approval annotation of protected groups; and on update
the fields that never change (group, plural; scope and kind once the CRD is Established).
``crd_spec`` hands each version's schema, subresources and printer columns to
``crd_versions`` (through ``crd_schema`` and ``crd_structural``) and ``spec.conversion`` to
``crd_conversion``. podscale does not call conversion webhooks, so a Webhook strategy is
refused with an error saying so. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import urlparse

from podscale.api.field_errors import FieldError, FieldPath, invalid, required
from podscale.api.names import NameValidator, validate_dns1123_subdomain_name
from podscale.api.validation.crd_schema_nodes import as_list
from podscale.api.validation.crd_spec import (
    SPEC,
    mapping_of,
    schema_presence,
    text_of,
    validate_names,
    validate_spec,
    versions_of,
)
from podscale.api.validation.objectmeta import (
    validate_immutable_field,
    validate_object_meta,
    validate_object_meta_update,
)

__all__ = ["validate_crd", "validate_crd_status_update", "validate_crd_update"]

JSON = Mapping[str, Any]

_APPROVAL: Final = "api-approved.kubernetes.io"
_APPROVAL_DOC: Final = "see https://github.com/kubernetes/enhancements/pull/1111"


def _spec(obj: JSON) -> JSON:
    return mapping_of(obj.get("spec"))


def _validate_status(obj: JSON) -> list[FieldError]:
    status = mapping_of(obj.get("status"))
    return validate_names(
        mapping_of(status.get("acceptedNames")), FieldPath("status", "acceptedNames")
    )


def _validate_stored_versions(obj: JSON) -> list[FieldError]:
    path = FieldPath("status", "storedVersions")
    raw = as_list(mapping_of(obj.get("status")).get("storedVersions"))
    stored = [text_of(v) for v in raw]
    if not stored:
        return [invalid(path, stored, "must have at least one stored version")]
    errors: list[FieldError] = []
    spec_names = set()
    for version in versions_of(_spec(obj)):
        name = text_of(version.get("name"))
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
    annotations = mapping_of(mapping_of(obj.get("metadata")).get("annotations"))
    if _APPROVAL not in annotations:
        return (
            "missing",
            f'protected groups must have approval annotation "{_APPROVAL}", {_APPROVAL_DOC}',
        )
    value = text_of(annotations[_APPROVAL])
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
    if not _protected(text_of(_spec(obj).get("group"))):
        return []
    state, reason = _approval_state(obj)
    if old is not None and _approval_state(old)[0] == state:
        return []
    path = FieldPath("metadata", "annotations").key(_APPROVAL)
    if state == "missing":
        return [required(path, reason)]
    if state == "invalid":
        annotations = mapping_of(mapping_of(obj.get("metadata")).get("annotations"))
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
    names = mapping_of(_spec(obj).get("names"))
    wanted = f"{text_of(names.get('plural'))}.{text_of(_spec(obj).get('group'))}"

    def validator(name: str, prefix: bool) -> list[str]:
        errors = validate_dns1123_subdomain_name(name, prefix)
        if name != wanted:
            errors.append('must be spec.names.plural+"."+spec.group')
        return errors

    return validator


def validate_crd(obj: JSON) -> list[FieldError]:
    """Field errors of a CRD being created."""
    errors = validate_object_meta(
        mapping_of(obj.get("metadata")), namespaced=False, name_validator=_name_validator(obj)
    )
    errors.extend(validate_spec(_spec(obj), require_schema=True))
    errors.extend(_validate_status(obj))
    errors.extend(_validate_stored_versions(obj))
    errors.extend(_validate_approval(obj, None))
    errors.extend(_validate_preserve_unknown_fields(obj, None))
    return errors


def _established(obj: JSON) -> bool:
    conditions = as_list(mapping_of(obj.get("status")).get("conditions"))
    return any(
        mapping_of(c).get("type") == "Established" and mapping_of(c).get("status") == "True"
        for c in conditions
    )


def validate_crd_update(new: JSON, old: JSON) -> list[FieldError]:
    """Field errors of a CRD update: the create rules (schemas stay optional for a CRD that
    was stored without them) plus the fields that never change."""
    errors = validate_object_meta_update(
        mapping_of(new.get("metadata")), mapping_of(old.get("metadata"))
    )
    old_spec, spec = _spec(old), _spec(new)
    old_has_schemas = not schema_presence(old_spec, require_schema=True)
    errors.extend(validate_spec(spec, require_schema=old_has_schemas))
    names, old_names = mapping_of(spec.get("names")), mapping_of(old_spec.get("names"))
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
        mapping_of(new.get("metadata")), mapping_of(old.get("metadata"))
    )
    return errors + _validate_status(new)
