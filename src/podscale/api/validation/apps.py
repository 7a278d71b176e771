"""Workload validation (apps/v1): ReplicaSet here, Deployment and StatefulSet re-exported.

Each kind has a create, update and status-update validator; ``__init__.validate`` dispatches to
them through this module. Deployments live in ``apps_deployment``, StatefulSets in
``apps_stateful_set``, and the rules all three share (selector against template, status
counters, int-or-percent) in ``apps_workload``. Metadata goes through ``objectmeta``, the pod
template through ``pod_spec``, selectors through ``names`` (shape) and
``podscale.api.selectors`` (conversion and matching, like upstream's
``LabelSelectorAsSelector``). Spec: ``pkg/apis/apps/validation/validation.go`` plus the selector
immutability the registry strategies (``pkg/registry/apps/*/strategy.go``) add for apps/v1.

Contract: objects are JSON dicts after defaulting; fields upstream always defaults are treated as
their default when absent (replicas 1, strategy RollingUpdate with 25%/25%, progressDeadlineSeconds
600, podManagementPolicy OrderedReady), so undefaulted input validates the same way.
"""

from __future__ import annotations

from podscale.api.field_errors import FieldError
from podscale.api.validation.apps_deployment import (
    validate_deployment,
    validate_deployment_status_update,
    validate_deployment_update,
)
from podscale.api.validation.apps_stateful_set import (
    validate_stateful_set,
    validate_stateful_set_status_update,
    validate_stateful_set_update,
)
from podscale.api.validation.apps_workload import (
    JSON,
    SPEC,
    read_int,
    validate_replica_set_template,
    validate_replica_status_update,
    validate_selector_and_template,
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
    "validate_replica_set",
    "validate_replica_set_status_update",
    "validate_replica_set_update",
    "validate_stateful_set",
    "validate_stateful_set_status_update",
    "validate_stateful_set_update",
]


def _validate_replica_set_spec(spec: JSON) -> list[FieldError]:
    errors = validate_nonnegative(read_int(spec, "replicas", 1), SPEC.child("replicas"))
    errors.extend(
        validate_nonnegative(read_int(spec, "minReadySeconds"), SPEC.child("minReadySeconds"))
    )
    # The ReplicaSet really says "deployment" here: upstream copied the text.
    errors.extend(validate_selector_and_template(spec, "deployment", validate_replica_set_template))
    return errors


def validate_replica_set(obj: JSON) -> list[FieldError]:
    return validate_workload(obj, _validate_replica_set_spec)


def validate_replica_set_update(new: JSON, old: JSON) -> list[FieldError]:
    return validate_workload_update(new, old, _validate_replica_set_spec)


def validate_replica_set_status_update(new: JSON, old: JSON) -> list[FieldError]:
    bounded = ("fullyLabeledReplicas", "readyReplicas", "availableReplicas")
    counts = ("replicas", *bounded, "observedGeneration")
    ready = "cannot be greater than readyReplicas"
    return validate_replica_status_update(new, old, counts, bounded, ready)
