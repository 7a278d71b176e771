"""StatefulSet validation (apps/v1): spec, update strategy, update and status update.

``__init__.validate`` reaches these through ``apps``, which re-exports them. Shared workload
rules come from ``apps_workload``; template labels and annotations from ``names`` and
``pod_spec`` (upstream leaves the StatefulSet pod spec itself unvalidated). Spec:
``pkg/apis/apps/validation/validation.go`` (``ValidateStatefulSet*``,
``ValidateStatefulSetSpec``, ``validateStatefulSetUpdateStrategy``).

Contract: fields upstream always defaults read as their default when absent (replicas 1,
podManagementPolicy OrderedReady, updateStrategy RollingUpdate).
"""

from __future__ import annotations

from typing import Final

from podscale.api.field_errors import FieldError, FieldPath, forbidden, invalid, not_supported
from podscale.api.validation.apps_workload import (
    JSON,
    SPEC,
    read_int,
    read_int_or_percent,
    validate_collision_count,
    validate_int_or_percent,
    validate_percent_at_most_100,
    validate_replica_status,
    validate_selector_and_template,
    validate_strategy,
    validate_workload_template,
)
from podscale.api.validation.names import (
    validate_annotations,
    validate_dns1123_label_name,
    validate_labels,
)
from podscale.api.validation.objectmeta import (
    validate_nonnegative,
    validate_object_meta,
    validate_object_meta_update,
)
from podscale.api.validation.pod_spec import validate_pod_specific_annotations

__all__ = [
    "validate_stateful_set",
    "validate_stateful_set_status_update",
    "validate_stateful_set_update",
]


def _stateful_set_template_metadata(template: JSON, path: FieldPath) -> list[FieldError]:
    meta = template.get("metadata") or {}
    errors = validate_labels(meta.get("labels"), path.child("labels"))
    errors.extend(validate_annotations(meta.get("annotations"), path.child("annotations")))
    errors.extend(
        validate_pod_specific_annotations(
            meta.get("annotations"), template.get("spec") or {}, path.child("annotations")
        )
    )
    return errors


def _validate_stateful_set_rolling(rolling: JSON | None, path: FieldPath) -> list[FieldError]:
    if rolling is None:
        return []
    errors = validate_nonnegative(read_int(rolling, "partition"), path.child("partition"))
    if "maxUnavailable" in rolling and rolling["maxUnavailable"] is not None:
        value = rolling["maxUnavailable"]
        max_path = path.child("maxUnavailable")
        errors.extend(validate_int_or_percent(value, max_path))
        if read_int_or_percent(value) == 0:
            errors.append(invalid(max_path, value, "cannot be 0"))
        errors.extend(validate_percent_at_most_100(value, max_path))
    return errors


def _validate_stateful_set_strategy(strategy: JSON) -> list[FieldError]:
    def with_on_delete(path: FieldPath, rolling: object) -> FieldError:
        return invalid(path, rolling, "only allowed for updateStrategy 'RollingUpdate'")

    def unknown(path: FieldPath, value: JSON) -> FieldError:
        return invalid(path, value, "must be 'RollingUpdate' or 'OnDelete'")

    path = SPEC.child("updateStrategy")
    return validate_strategy(
        strategy, path, ("OnDelete", with_on_delete), unknown, _validate_stateful_set_rolling
    )


def _validate_stateful_set_spec(spec: JSON) -> list[FieldError]:
    errors: list[FieldError] = []
    policy = spec.get("podManagementPolicy")
    if policy and policy not in ("OrderedReady", "Parallel"):
        errors.append(
            invalid(
                SPEC.child("podManagementPolicy"), policy, "must be 'OrderedReady' or 'Parallel'"
            )
        )
    errors.extend(_validate_stateful_set_strategy(spec.get("updateStrategy") or {}))
    retention = spec.get("persistentVolumeClaimRetentionPolicy") or {}
    for key in ("whenDeleted", "whenScaled"):
        value = retention.get(key)
        if value and value not in ("Retain", "Delete"):
            path = SPEC.child("persistentVolumeClaimRetentionPolicy", key)
            errors.append(not_supported(path, value, ("Retain", "Delete")))
    errors.extend(validate_nonnegative(read_int(spec, "replicas", 1), SPEC.child("replicas")))
    errors.extend(
        validate_nonnegative(read_int(spec, "minReadySeconds"), SPEC.child("minReadySeconds"))
    )
    ordinals = spec.get("ordinals")
    if ordinals is not None:
        errors.extend(
            validate_nonnegative(read_int(ordinals, "start"), SPEC.child("ordinals.start"))
        )
    # Upstream leaves the StatefulSet pod spec itself unvalidated (see its TODO on volumes).
    errors.extend(
        validate_selector_and_template(spec, "statefulset", _stateful_set_template_metadata)
    )
    errors.extend(
        validate_workload_template(
            spec.get("template") or {}, SPEC.child("template"), "StatefulSet"
        )
    )
    return errors


def validate_stateful_set(obj: JSON) -> list[FieldError]:
    # StatefulSet names become pod hostnames, so they must be DNS labels.
    errors = validate_object_meta(
        obj.get("metadata") or {}, namespaced=True, name_validator=validate_dns1123_label_name
    )
    errors.extend(_validate_stateful_set_spec(obj.get("spec") or {}))
    return errors


_STATEFUL_SET_MUTABLE: Final = (
    "replicas",
    "ordinals",
    "template",
    "updateStrategy",
    "persistentVolumeClaimRetentionPolicy",
    "minReadySeconds",
)


def validate_stateful_set_update(new: JSON, old: JSON) -> list[FieldError]:
    errors = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    new_spec = new.get("spec") or {}
    errors.extend(_validate_stateful_set_spec(new_spec))
    old_spec = old.get("spec") or {}
    frozen_new = {k: v for k, v in new_spec.items() if k not in _STATEFUL_SET_MUTABLE}
    frozen_old = {k: v for k, v in old_spec.items() if k not in _STATEFUL_SET_MUTABLE}
    if frozen_new != frozen_old:
        errors.append(
            forbidden(
                SPEC,
                "updates to statefulset spec for fields other than 'replicas', 'ordinals', "
                "'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and "
                "'minReadySeconds' are forbidden",
            )
        )
    return errors


def validate_stateful_set_status_update(new: JSON, old: JSON) -> list[FieldError]:
    status = new.get("status") or {}
    counts = ["replicas", "readyReplicas", "currentReplicas", "updatedReplicas"]
    counts.append("availableReplicas")
    for optional in ("observedGeneration", "collisionCount"):
        if status.get(optional) is not None:
            counts.append(optional)
    bounded = ("readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas")
    ready = "cannot be greater than status.readyReplicas"
    errors = validate_replica_status(status, counts, bounded, ready)
    errors.extend(validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {}))
    errors.extend(validate_collision_count(new, old))
    return errors
