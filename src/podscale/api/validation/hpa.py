"""HorizontalPodAutoscaler validation: the entry point ``validate_hpa`` (plus ``/scale``).

Create, update and ``/status`` validation of autoscaling/v2 and autoscaling/v1 HPAs, returning
upstream's field errors. Metadata goes to ``objectmeta``; ``spec.metrics`` and the object
references to ``hpa_metrics``; ``spec.behavior`` to ``hpa_behavior``. autoscaling/v1 objects
are first converted with ``podscale.api.conversion.hpa_v1_to_v2``, exactly as upstream
validates the internal (v2-shaped) type, so v1 errors carry v2 field paths.

Spec: upstream ``pkg/apis/autoscaling/validation/validation.go`` (``ValidateScale``,
``ValidateHorizontalPodAutoscaler[Update|StatusUpdate]``, ``validateHorizontalPodAutoscalerSpec``)
and the options computed by ``validationOptionsForHorizontalPodAutoscaler`` in
``pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go``.

Contract: validation is pure and never applies defaults. Upstream validates the already
defaulted object; podscale may validate before or after defaulting, so an absent
``minReplicas`` means "not set" and its rules are skipped (the default, 1, always passes).
Non-pointer fields read as Go's zero value when absent (``maxReplicas`` -> 0, an empty
``scaleTargetRef``), since that is what upstream's decoded struct would hold.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from podscale.api.conversion import hpa_v1_to_v2
from podscale.api.feature_gates import DEFAULT_FEATURE_GATES, HPA_SCALE_TO_ZERO
from podscale.api.field_errors import FieldError, FieldPath, invalid
from podscale.api.validation.hpa_behavior import keeps_tolerance, validate_behavior
from podscale.api.validation.hpa_metrics import (
    ReferenceOptions,
    check_api_version,
    validate_cross_version_object_reference,
    validate_metrics,
)
from podscale.api.validation.names import validate_dns1123_subdomain_name
from podscale.api.validation.objectmeta import (
    validate_nonnegative,
    validate_object_meta,
    validate_object_meta_update,
)

__all__ = [
    "SpecOptions",
    "spec_options_for",
    "validate_hpa",
    "validate_hpa_name",
    "validate_hpa_spec",
    "validate_scale",
]

#: Upstream ``ValidateHorizontalPodAutoscalerName`` (the ReplicationController name rule).
validate_hpa_name: Final = validate_dns1123_subdomain_name

_V1: Final = "autoscaling/v1"
_SPEC: Final = FieldPath("spec")
_STATUS: Final = FieldPath("status")


@dataclass(frozen=True, slots=True)
class SpecOptions:
    """Upstream ``HorizontalPodAutoscalerSpecValidationOptions`` plus the tolerance gate."""

    min_replicas_lower_bound: int
    scale_target_ref: ReferenceOptions
    object_metrics: ReferenceOptions
    check_tolerance: bool


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _version_and_kind(ref: Mapping[str, Any]) -> tuple[Any, Any]:
    # Absent and "" are the same Go zero value.
    return ref.get("apiVersion") or "", ref.get("kind") or ""


def _old_object_metrics_invalid(old_spec: Mapping[str, Any], options: ReferenceOptions) -> bool:
    metrics = old_spec.get("metrics")
    for metric in metrics if isinstance(metrics, list) else []:
        metric = _mapping(metric)
        if metric.get("type") == "Object" and metric.get("object") is not None:
            ref = _mapping(_mapping(metric["object"]).get("describedObject"))
            if check_api_version(str(ref.get("apiVersion") or ""), options) is not None:
                return True
    return False


def spec_options_for(
    obj: Mapping[str, Any], old: Mapping[str, Any] | None, feature_gates: frozenset[str]
) -> SpecOptions:
    """The ratcheting options of one create (``old is None``) or update, as upstream's strategy.

    - ``minReplicas: 0`` is allowed under ``HPAScaleToZero`` or when the old object had it;
    - ``scaleTargetRef.apiVersion`` needs a group, except for ReplicationController (core v1),
      and is not re-checked on an update that keeps both apiVersion and kind;
    - Object metric ``describedObject.apiVersion`` may be group-less (Services, Pods...); a
      stored invalid one stops being checked so old objects stay updatable.
    """
    spec, old_spec = _mapping(obj.get("spec")), _mapping(_mapping(old).get("spec"))
    ref, old_ref = _mapping(spec.get("scaleTargetRef")), _mapping(old_spec.get("scaleTargetRef"))
    lower_bound = 1
    if HPA_SCALE_TO_ZERO in feature_gates or (
        old is not None and _int(old_spec.get("minReplicas")) == 0
    ):
        lower_bound = 0
    target_options = ReferenceOptions()
    if old is not None and _version_and_kind(old_ref) == _version_and_kind(ref):
        target_options = ReferenceOptions(allow_invalid_api_version=True)
    elif ref.get("kind") == "ReplicationController":
        target_options = ReferenceOptions(allow_empty_api_group=True)
    metric_options = ReferenceOptions(allow_empty_api_group=True)
    if old is not None and _old_object_metrics_invalid(old_spec, metric_options):
        metric_options = ReferenceOptions(
            allow_empty_api_group=True, allow_invalid_api_version=True
        )
    return SpecOptions(
        min_replicas_lower_bound=lower_bound,
        scale_target_ref=target_options,
        object_metrics=metric_options,
        check_tolerance=keeps_tolerance(old, feature_gates),
    )


def _validate_spec(spec: Mapping[str, Any], options: SpecOptions) -> list[FieldError]:
    errors: list[FieldError] = []
    min_replicas = _int(spec.get("minReplicas"))
    max_replicas = _int(spec.get("maxReplicas")) or 0
    bound = options.min_replicas_lower_bound
    if min_replicas is not None and min_replicas < bound:
        errors.append(
            invalid(
                _SPEC.child("minReplicas"),
                min_replicas,
                f"must be greater than or equal to {bound}",
            )
        )
    if max_replicas < 1:
        errors.append(invalid(_SPEC.child("maxReplicas"), max_replicas, "must be greater than 0"))
    if min_replicas is not None and max_replicas < min_replicas:
        errors.append(
            invalid(
                _SPEC.child("maxReplicas"),
                max_replicas,
                "must be greater than or equal to `minReplicas`",
            )
        )
    errors += validate_cross_version_object_reference(
        spec.get("scaleTargetRef"), _SPEC.child("scaleTargetRef"), options.scale_target_ref
    )
    errors += validate_metrics(
        spec.get("metrics"),
        _SPEC.child("metrics"),
        min_replicas=min_replicas,
        object_options=options.object_metrics,
    )
    errors += validate_behavior(
        spec.get("behavior"), _SPEC.child("behavior"), check_tolerance=options.check_tolerance
    )
    return errors


def _as_v2(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    if obj.get("apiVersion") != _V1:
        return obj
    source = dict(obj)
    if not isinstance(source.get("spec", {}), Mapping):
        # Undecodable upstream (a 400); converting it would fail, so read it as absent.
        source.pop("spec")
    return hpa_v1_to_v2(source)


def _validate_status_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    # The status strategy copies the old spec over the new one, so only status is checked.
    status = _mapping(new.get("status"))
    errors = validate_object_meta_update(
        _mapping(new.get("metadata")), _mapping(old.get("metadata"))
    )
    for key in ("currentReplicas", "desiredReplicas"):
        count = _int(status.get(key)) or 0
        if count < 0:  # the path only for the error (every HPA status write comes here)
            errors += validate_nonnegative(count, _STATUS.child(key))
    return errors


def validate_hpa(
    obj: Mapping[str, Any],
    *,
    old: Mapping[str, Any] | None = None,
    subresource: str | None = None,
    feature_gates: frozenset[str] = DEFAULT_FEATURE_GATES,
) -> list[FieldError]:
    """Validate an HPA create (``old is None``), update, or ``/status`` update.

    ``obj`` and ``old`` may each be autoscaling/v1 or autoscaling/v2. ``subresource`` is
    ``None`` or ``"status"``; ``"scale"`` objects are Scales and go to ``validate_scale``.
    A status update needs ``old`` (it is an update); ``ValueError`` otherwise, or for an
    unknown subresource. ``obj`` is never modified; tolerance dropping is the caller's job
    (``hpa_behavior.drop_disabled_fields``), this only mirrors its effect on validation.
    """
    if subresource == "scale":
        return validate_scale(obj)
    new = _as_v2(obj)
    previous = _as_v2(old) if old is not None else None
    if subresource == "status":
        if previous is None:
            raise ValueError("a status update needs the old object")
        return _validate_status_update(new, previous)
    if subresource is not None:
        raise ValueError(f"no validation for subresource {subresource!r}")
    meta = _mapping(new.get("metadata"))
    if previous is None:
        errors = validate_object_meta(meta, namespaced=True, name_validator=validate_hpa_name)
    else:
        errors = validate_object_meta_update(meta, _mapping(previous.get("metadata")))
    options = spec_options_for(new, previous, feature_gates)
    return errors + _validate_spec(_mapping(new.get("spec")), options)


def validate_hpa_spec(
    obj: Mapping[str, Any],
    *,
    old: Mapping[str, Any] | None = None,
    feature_gates: frozenset[str] = DEFAULT_FEATURE_GATES,
) -> list[FieldError]:
    """The ``spec`` rules alone (paths under ``spec``) of an autoscaling/v2-shaped object,
    with the create (``old is None``) or update ratcheting options: for kinds that embed an
    HPA spec (``podscale.controllers.phpa``) and validate their own metadata and fields."""
    options = spec_options_for(obj, old, feature_gates)
    return _validate_spec(_mapping(obj.get("spec")), options)


def validate_scale(scale: Mapping[str, Any]) -> list[FieldError]:
    """An autoscaling/v1 ``Scale`` written through ``/scale``: metadata and ``spec.replicas``."""
    errors = validate_object_meta(
        _mapping(scale.get("metadata")),
        namespaced=True,
        name_validator=validate_dns1123_subdomain_name,
    )
    replicas = _int(_mapping(scale.get("spec")).get("replicas")) or 0
    if replicas < 0:
        errors.append(
            invalid(_SPEC.child("replicas"), replicas, "must be greater than or equal to 0")
        )
    return errors
