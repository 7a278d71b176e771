"""The write pipeline of custom resources: upstream's customresource strategy and validator.

``registry.admission.default_and_validate`` hands a ``CustomKind``'s objects here instead of
the built-in defaulting and validation, in upstream's order:

1. the strategy's status rules: with the status subresource a create starts without status
   and an update of the main resource keeps the stored status; a ``/status`` write keeps
   everything but ``status`` from the stored object (labels and annotations included);
2. the schema (``_apply_schema``: prune unknown fields, default, validate against the
   version's ``openAPIV3Schema``) and the ``x-kubernetes-validations`` rules;
3. ObjectMeta validation (names as DNS subdomains) and the scale subresource's paths
   (``.spec.replicas: Invalid value: -1: should be a non-negative integer``);
4. ``metadata.generation``: 1 on create, +1 whenever anything but metadata changed.

``unknown_fields`` lists the fields pruning drops, for ``fieldValidation`` Strict/Warn
(``registry.admission.check_unknown_fields``). Creates while the CRD is being deleted are
upstream's 405. ``serving`` converts between versions; ``scale`` serves ``/scale``.
"""

from __future__ import annotations

from typing import Any, Final

from podscale.api.cel.validation import validate as validate_rules
from podscale.api.field_errors import FieldError, invalid, invalid_status
from podscale.api.json_copy import copy_json
from podscale.api.schema.pipeline import admit_custom_object
from podscale.api.schema.pruning import prune
from podscale.api.validation.objectmeta import validate_object_meta, validate_object_meta_update
from podscale.apiserver.customresources.definitions import CustomKind, ScalePaths
from podscale.apiserver.errors import ApiError, status_body

__all__ = ["admit_custom", "generation_for", "unknown_fields"]

JSON = dict[str, Any]

_MAX_INT32: Final = 2**31 - 1


def _apply_schema(
    obj: JSON, info: CustomKind, old: JSON | None
) -> tuple[JSON, tuple[str, ...], tuple[FieldError, ...]]:
    """The one schema step (``podscale.api.schema``): the pruned and defaulted object, the
    pruned field paths and the schema's field errors. A version without a schema accepts
    the object as it is."""
    del old  # ratcheting of unchanged invalid values is not modelled yet
    if info.schema is None:
        return obj, (), ()
    outcome = admit_custom_object(obj, info.schema)
    return outcome.object, outcome.unknown_fields, outcome.errors


def unknown_fields(obj: JSON, info: CustomKind) -> list[str]:
    """The paths (``spec.foo``) of the fields the schema would prune from ``obj``: pruning
    alone, on a copy (defaults and validation cannot add or remove unknown fields)."""
    if info.schema is None:
        return []
    return prune(copy_json(obj), info.schema, is_resource_root=True)


def _terminating(info: CustomKind) -> ApiError:
    status = status_body(
        405,
        "create not allowed while custom resource definition is terminating",
        "MethodNotAllowed",
        {"group": info.group, "kind": info.plural},
    )
    return ApiError(status)


def _nested(obj: JSON, path: str) -> tuple[Any, bool]:
    current: Any = obj
    for part in path.lstrip(".").split("."):
        if not isinstance(current, dict) or part not in current:
            return None, False
        current = current[part]
    return current, True


def _go_type(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, str):
        return "string"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, list):
        return "[]interface {}"
    if isinstance(value, dict):
        return "map[string]interface {}"
    return "int64"


def _replicas_errors(obj: JSON, path: str) -> list[FieldError]:
    value, found = _nested(obj, path)
    if not found or value is None:
        return []
    if isinstance(value, bool) or not isinstance(value, int):
        detail = f"{path} accessor error: {value} is of the type {_go_type(value)}, expected int64"
        return [invalid(path, 0, detail)]
    if value < 0:
        return [invalid(path, value, "should be a non-negative integer")]
    if value > _MAX_INT32:
        return [invalid(path, value, f"should be less than or equal to {_MAX_INT32}")]
    return []


def _scale_errors(obj: JSON, scale: ScalePaths | None, *, spec: bool) -> list[FieldError]:
    """Upstream's ValidateScaleSpec / ValidateScaleStatus over the subresource's paths."""
    if scale is None:
        return []
    errors = _replicas_errors(obj, scale.spec_replicas) if spec else []
    errors += _replicas_errors(obj, scale.status_replicas)
    if scale.label_selector:
        value, found = _nested(obj, scale.label_selector)
        if found and value is not None and not isinstance(value, str):
            detail = (
                f"{scale.label_selector} accessor error: {value} is of the type "
                f"{_go_type(value)}, expected string"
            )
            errors.append(invalid(scale.label_selector, "", detail))
    return errors


def _prepare(obj: JSON, info: CustomKind, old: JSON | None, subresource: str | None) -> JSON:
    """The strategy's status rules (step 1)."""
    if subresource == "status" and old is not None:
        kept = copy_json(old)
        if "status" in obj:
            kept["status"] = obj["status"]
        else:
            kept.pop("status", None)
        return kept
    if info.status_enabled:
        if old is None:
            obj.pop("status", None)
        elif "status" in old:
            obj["status"] = copy_json(old["status"])
        else:
            obj.pop("status", None)
    return obj


def generation_for(obj: JSON, old: JSON | None) -> int:
    """1 for a new object; the old generation, +1 when anything but metadata changed."""
    if old is None:
        return 1
    generation = (old.get("metadata") or {}).get("generation")
    current = generation if isinstance(generation, int) else 0
    changed = {k: v for k, v in obj.items() if k != "metadata"} != {
        k: v for k, v in old.items() if k != "metadata"
    }
    return current + 1 if changed else current


def admit_custom(
    obj: JSON, info: CustomKind, *, old: JSON | None = None, subresource: str | None = None
) -> JSON:
    """The admitted object (pruned, defaulted, with its generation), or the 422 ``Invalid``
    Status with every field error; a create while the CRD terminates is a 405."""
    if old is None and info.terminating:
        raise _terminating(info)
    obj = _prepare(obj, info, old, subresource)
    obj, _, schema_errors = _apply_schema(obj, info, old)
    errors = list(schema_errors)
    if info.schema is not None:
        errors += validate_rules(obj, old, info.schema)
    meta = obj.get("metadata") or {}
    if old is None:
        errors = (
            validate_object_meta(meta, namespaced=info.namespaced, kube_finalizers=False) + errors
        )
    else:
        errors = (
            validate_object_meta_update(meta, old.get("metadata") or {}, kube_finalizers=False)
            + errors
        )
    errors += _scale_errors(obj, info.scale, spec=subresource != "status")
    if errors:
        name = str(meta.get("name", ""))
        raise ApiError(invalid_status(info.kind, info.group, name, errors))
    if subresource != "status":
        meta["generation"] = generation_for(obj, old)
    return obj
