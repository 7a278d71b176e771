"""``metadata`` validation shared by every kind, on create and on update.

``validate_object_meta`` and ``validate_object_meta_update`` are what each kind's validator
(``pod``, ``apps``, ``hpa``, the entry point in ``__init__``) runs first. Name, label and
annotation rules come from ``names``. Spec: apimachinery ``pkg/api/validation/objectmeta.go``
plus the finalizer-name check that ``pkg/apis/core/validation`` layers on top (every built-in
kind validates its metadata through that core wrapper).

Contract: ``meta`` is the raw JSON dict; absent fields read as Go's zero values. Nothing is
defaulted or mutated. Update validation assumes the storage layer already did what upstream's
``rest.BeforeUpdate`` does (copy uid/creationTimestamp/deletionTimestamp from the old object
when the request left them empty), so a genuine change is reported as ``field is immutable``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from podscale.api.field_errors import (
    FieldError,
    FieldPath,
    forbidden,
    invalid,
    required,
    too_long,
)
from podscale.api.validation.names import (
    NameValidator,
    is_qualified_name,
    validate_annotations,
    validate_dns1123_subdomain_name,
    validate_labels,
    validate_namespace_name,
)

__all__ = [
    "FIELD_IMMUTABLE",
    "IS_NEGATIVE",
    "METADATA",
    "validate_finalizers",
    "validate_immutable_field",
    "validate_nonnegative",
    "validate_object_meta",
    "validate_object_meta_update",
    "validate_owner_references",
]

METADATA: Final = FieldPath("metadata")
FIELD_IMMUTABLE: Final = "field is immutable"
IS_NEGATIVE: Final = "must be greater than or equal to 0"

_ORPHAN: Final = "orphan"
_FOREGROUND: Final = "foregroundDeletion"
# Legacy finalizer names that need no domain prefix (core helper.IsStandardFinalizerName).
_STANDARD_FINALIZERS: Final = frozenset({"kubernetes", _ORPHAN, _FOREGROUND})
# Kinds that may never own anything: a GVK as (group, version, kind).
_BANNED_OWNERS: Final = frozenset({("", "v1", "Event")})
_MANAGED_FIELDS_OPERATIONS: Final = frozenset({"Apply", "Update"})
_FIELD_MANAGER_MAX_LENGTH: Final = 128


def _generation(meta: Mapping[str, Any]) -> int:
    # Field types are the decoder's job (upstream rejects them with a 400 before validation).
    value = meta.get("generation", 0)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def validate_nonnegative(value: int, path: FieldPath) -> list[FieldError]:
    return [invalid(path, value, IS_NEGATIVE)] if value < 0 else []


def validate_immutable_field(new: Any, old: Any, path: FieldPath) -> list[FieldError]:
    """``field is immutable`` with the new value, when the two differ (deep equality)."""
    return [] if new == old else [invalid(path, new, FIELD_IMMUTABLE)]


def _parse_group_version(api_version: str) -> tuple[str, str]:
    """``schema.ParseGroupVersion`` folded into ``FromAPIVersionAndKind``: bad input -> empty."""
    if api_version in ("", "/"):
        return "", ""
    parts = api_version.split("/")
    if len(parts) == 1:
        return "", api_version
    if len(parts) == 2:
        return parts[0], parts[1]
    return "", ""


def _validate_owner_reference(ref: Mapping[str, Any], path: FieldPath) -> list[FieldError]:
    # Upstream reports these on the list's path, not on the item's index.
    errors: list[FieldError] = []
    api_version = str(ref.get("apiVersion", ""))
    kind = str(ref.get("kind", ""))
    group, version = _parse_group_version(api_version)
    if not version:
        errors.append(invalid(path.child("apiVersion"), api_version, "version must not be empty"))
    if not kind:
        errors.append(invalid(path.child("kind"), kind, "must not be empty"))
    name = str(ref.get("name", ""))
    if not name:
        errors.append(invalid(path.child("name"), name, "must not be empty"))
    uid = str(ref.get("uid", ""))
    if not uid:
        errors.append(invalid(path.child("uid"), uid, "must not be empty"))
    if (group, version, kind) in _BANNED_OWNERS:
        gvk = f"{group}/{version}, Kind={kind}"
        errors.append(invalid(path, dict(ref), f"{gvk} is disallowed from being an owner"))
    return errors


def validate_owner_references(
    refs: Sequence[Mapping[str, Any]] | None, path: FieldPath
) -> list[FieldError]:
    """Each reference complete, and at most one of them the controller."""
    errors: list[FieldError] = []
    first_controller = ""
    for ref in refs or []:
        errors.extend(_validate_owner_reference(ref, path))
        if ref.get("controller") is True:
            current = f"{ref.get('kind', '')}/{ref.get('name', '')}"
            if first_controller:
                errors.append(
                    invalid(
                        path,
                        [dict(r) for r in refs or []],
                        'Only one reference can have Controller set to true. Found "true" in '
                        f"references for {first_controller} and {current}",
                    )
                )
            else:
                first_controller = current
    return errors


def _validate_kube_finalizer_names(finalizers: Sequence[str], path: FieldPath) -> list[FieldError]:
    # Unprefixed finalizers must be one of the legacy standard names.
    return [
        invalid(
            path.index(i),
            name,
            "name is neither a standard finalizer name nor is it fully qualified",
        )
        for i, name in enumerate(finalizers)
        if "/" not in name and name not in _STANDARD_FINALIZERS
    ]


def validate_finalizers(finalizers: Sequence[str] | None, path: FieldPath) -> list[FieldError]:
    """Qualified names, and never both ``orphan`` and ``foregroundDeletion``."""
    finalizers = list(finalizers or [])
    errors: list[FieldError] = []
    for name in finalizers:
        errors.extend(invalid(path, name, msg) for msg in is_qualified_name(name))
    if _ORPHAN in finalizers and _FOREGROUND in finalizers:
        errors.append(
            invalid(path, finalizers, f"finalizer {_ORPHAN} and {_FOREGROUND} cannot be both set")
        )
    return errors


def _validate_managed_fields(
    entries: Sequence[Mapping[str, Any]] | None, path: FieldPath
) -> list[FieldError]:
    errors: list[FieldError] = []
    # Every write carries its entries: the item paths are only made for an error.
    for i, entry in enumerate(entries or []):
        operation = entry.get("operation", "")
        if operation not in _MANAGED_FIELDS_OPERATIONS:
            errors.append(
                invalid(path.index(i).child("operation"), operation, "must be `Apply` or `Update`")
            )
        fields_type = entry.get("fieldsType", "")
        if fields_type and fields_type != "FieldsV1":
            errors.append(
                invalid(path.index(i).child("fieldsType"), fields_type, "must be `FieldsV1`")
            )
        manager = str(entry.get("manager", ""))
        if len(manager) > _FIELD_MANAGER_MAX_LENGTH:
            errors.append(
                too_long(path.index(i).child("manager"), manager, _FIELD_MANAGER_MAX_LENGTH)
            )
    return errors


def _validate_common(
    meta: Mapping[str, Any], namespaced: bool, path: FieldPath
) -> list[FieldError]:
    """The checks create and update share (upstream's ...WithOptsCommon, minus the name)."""
    errors: list[FieldError] = []
    namespace = str(meta.get("namespace", ""))
    if namespaced:
        if not namespace:
            errors.append(required(path.child("namespace")))
        else:
            errors.extend(
                invalid(path.child("namespace"), namespace, msg)
                for msg in validate_namespace_name(namespace, False)
            )
    elif namespace:
        errors.append(forbidden(path.child("namespace"), "not allowed on this type"))
    errors.extend(validate_nonnegative(_generation(meta), path.child("generation")))
    errors.extend(validate_labels(meta.get("labels"), path.child("labels")))
    errors.extend(validate_annotations(meta.get("annotations"), path.child("annotations")))
    errors.extend(
        validate_owner_references(meta.get("ownerReferences"), path.child("ownerReferences"))
    )
    errors.extend(validate_finalizers(meta.get("finalizers"), path.child("finalizers")))
    errors.extend(_validate_managed_fields(meta.get("managedFields"), path.child("managedFields")))
    return errors


def validate_object_meta(
    meta: Mapping[str, Any],
    *,
    namespaced: bool,
    path: FieldPath = METADATA,
    name_validator: NameValidator = validate_dns1123_subdomain_name,
    kube_finalizers: bool = True,
) -> list[FieldError]:
    """Metadata of an object being created (after name generation, as upstream expects).

    ``kube_finalizers``: the built-in kinds' extra rule that an unprefixed finalizer be one
    of the standard names (``pkg/apis/core/validation``); custom resources are validated by
    apimachinery's generic checks only, where ``finalizer.keda.sh`` is a valid name."""
    errors: list[FieldError] = []
    generate_name = str(meta.get("generateName", ""))
    if generate_name:
        errors.extend(
            invalid(path.child("generateName"), generate_name, msg)
            for msg in name_validator(generate_name, True)
        )
    name = str(meta.get("name", ""))
    if not name:
        errors.append(required(path.child("name"), "name or generateName is required"))
    else:
        errors.extend(invalid(path.child("name"), name, msg) for msg in name_validator(name, False))
    errors.extend(_validate_common(meta, namespaced, path))
    if kube_finalizers:
        errors.extend(
            _validate_kube_finalizer_names(meta.get("finalizers") or [], path.child("finalizers"))
        )
    return errors


def validate_object_meta_update(
    new: Mapping[str, Any],
    old: Mapping[str, Any],
    path: FieldPath = METADATA,
    *,
    allow_unconditional_update: bool = True,
    kube_finalizers: bool = True,
) -> list[FieldError]:
    """Metadata of an update: identity fields frozen, no finalizers added while deleting.

    ``allow_unconditional_update`` mirrors the strategy flag: every kind podscale serves allows
    a PUT without ``resourceVersion`` (the store fills in the current one), so the
    ``must be specified for an update`` error only fires when it is False.
    """
    errors: list[FieldError] = []
    if old.get("deletionTimestamp"):
        extra = sorted(set(new.get("finalizers") or []) - set(old.get("finalizers") or []))
        if extra:
            listed = ", ".join(f'"{name}"' for name in extra)
            errors.append(
                forbidden(
                    path.child("finalizers"),
                    "no new finalizers can be added if the object is being deleted, "
                    f"found new finalizers []string{{{listed}}}",
                )
            )
    resource_version = str(new.get("resourceVersion", ""))
    if not resource_version and not allow_unconditional_update:
        errors.append(
            invalid(
                path.child("resourceVersion"), resource_version, "must be specified for an update"
            )
        )
    new_generation = _generation(new)
    if new_generation < _generation(old):
        errors.append(invalid(path.child("generation"), new_generation, "must not be decremented"))
    # Every update of every kind comes here: a field's path is made only where it is
    # walked (an empty map or list yields no error, so it is not).
    for key, zero in _IMMUTABLE_FIELDS:
        value, before = new.get(key, zero), old.get(key, zero)
        if value != before:
            errors.extend(validate_immutable_field(value, before, path.child(key)))
    for key, check in _MAPS_AND_LISTS:
        value = new.get(key)
        if value:
            errors.extend(check(value, path.child(key)))
    if kube_finalizers:
        finalizers = new.get("finalizers") or []
        if finalizers:
            errors.extend(_validate_kube_finalizer_names(finalizers, path.child("finalizers")))
    return errors


_IMMUTABLE_FIELDS: Final = (
    ("name", ""),
    ("namespace", ""),
    ("uid", ""),
    ("creationTimestamp", None),
    ("deletionTimestamp", None),
    ("deletionGracePeriodSeconds", None),
)
_MAPS_AND_LISTS: Final[tuple[tuple[str, Callable[[Any, FieldPath], list[FieldError]]], ...]] = (
    ("labels", validate_labels),
    ("annotations", validate_annotations),
    ("ownerReferences", validate_owner_references),
    ("managedFields", _validate_managed_fields),
)
