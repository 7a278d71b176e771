"""Deployment validation (apps/v1): spec, rollout strategy, update and status update.

``__init__.validate`` reaches these through ``apps``, which re-exports them. The selector,
template, status-counter and int-or-percent rules shared with the other workloads come from
``apps_workload``; metadata goes through ``objectmeta``. Spec: ``pkg/apis/apps/validation/
validation.go`` (``ValidateDeployment*``, ``ValidateDeploymentStrategy``,
``ValidateRollingUpdateDeployment``) plus the selector immutability of
``pkg/registry/apps/deployment/strategy.go``.

Contract: fields upstream always defaults read as their default when absent (replicas 1,
strategy RollingUpdate with 25%/25%, progressDeadlineSeconds 600).
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
    validate_replica_set_template,
    validate_replica_status_update,
    validate_selector_and_template,
    validate_strategy,
    validate_workload,
    validate_workload_update,
)
from podscale.api.validation.objectmeta import (
    validate_nonnegative,
)

__all__ = [
    "validate_deployment",
    "validate_deployment_status_update",
    "validate_deployment_update",
]

_DEFAULT_ROLLING: Final = "25%"
_DEFAULT_PROGRESS_DEADLINE: Final = 600


def _validate_rolling_update(rolling: JSON, path: FieldPath) -> list[FieldError]:
    unavailable = rolling.get("maxUnavailable", _DEFAULT_ROLLING)
    surge = rolling.get("maxSurge", _DEFAULT_ROLLING)
    errors = validate_int_or_percent(unavailable, path.child("maxUnavailable"))
    errors.extend(validate_int_or_percent(surge, path.child("maxSurge")))
    if read_int_or_percent(unavailable) == 0 and read_int_or_percent(surge) == 0:
        errors.append(
            invalid(path.child("maxUnavailable"), unavailable, "may not be 0 when `maxSurge` is 0")
        )
    errors.extend(validate_percent_at_most_100(unavailable, path.child("maxUnavailable")))
    return errors


def _validate_strategy(strategy: JSON) -> list[FieldError]:
    def with_recreate(path: FieldPath, _: object) -> FieldError:
        return forbidden(path, "may not be specified when strategy `type` is 'Recreate'")

    def unknown(path: FieldPath, value: JSON) -> FieldError:
        return not_supported(path, value, ("Recreate", "RollingUpdate"))

    def rolling_rules(rolling: JSON | None, path: FieldPath) -> list[FieldError]:
        return _validate_rolling_update(rolling or {}, path)

    path = SPEC.child("strategy")
    return validate_strategy(strategy, path, ("Recreate", with_recreate), unknown, rolling_rules)


def _validate_deployment_spec(spec: JSON) -> list[FieldError]:
    errors = validate_nonnegative(read_int(spec, "replicas", 1), SPEC.child("replicas"))
    errors.extend(validate_selector_and_template(spec, "deployment", validate_replica_set_template))
    errors.extend(_validate_strategy(spec.get("strategy") or {}))
    min_ready = read_int(spec, "minReadySeconds")
    errors.extend(validate_nonnegative(min_ready, SPEC.child("minReadySeconds")))
    if spec.get("revisionHistoryLimit") is not None:
        errors.extend(
            validate_nonnegative(
                read_int(spec, "revisionHistoryLimit"), SPEC.child("revisionHistoryLimit")
            )
        )
    deadline = read_int(spec, "progressDeadlineSeconds", _DEFAULT_PROGRESS_DEADLINE)
    deadline_path = SPEC.child("progressDeadlineSeconds")
    errors.extend(validate_nonnegative(deadline, deadline_path))
    if deadline <= min_ready:
        errors.append(invalid(deadline_path, deadline, "must be greater than minReadySeconds"))
    return errors


def validate_deployment(obj: JSON) -> list[FieldError]:
    return validate_workload(obj, _validate_deployment_spec)


def validate_deployment_update(new: JSON, old: JSON) -> list[FieldError]:
    return validate_workload_update(new, old, _validate_deployment_spec)


def validate_deployment_status_update(new: JSON, old: JSON) -> list[FieldError]:
    counts = ["observedGeneration", "replicas", "updatedReplicas", "readyReplicas"]
    counts += ["availableReplicas", "unavailableReplicas"]
    if (new.get("status") or {}).get("collisionCount") is not None:
        counts.append("collisionCount")
    bounded = ("updatedReplicas", "readyReplicas", "availableReplicas")
    ready = "cannot be greater than readyReplicas"
    errors = validate_replica_status_update(new, old, counts, bounded, ready)
    errors.extend(validate_collision_count(new, old))
    return errors
