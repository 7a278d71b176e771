"""Workload validation (apps/v1): ReplicaSet, Deployment and StatefulSet basics.

Each kind has a create, update and status-update validator; ``__init__.validate`` dispatches to
them. Metadata goes through ``objectmeta``, the pod template through ``pod``, selectors through
``names`` (shape) and ``podscale.api.selectors`` (conversion and matching, like upstream's
``LabelSelectorAsSelector``). Spec: ``pkg/apis/apps/validation/validation.go`` plus the selector
immutability the registry strategies (``pkg/registry/apps/*/strategy.go``) add for apps/v1.

Contract: objects are JSON dicts after defaulting; fields upstream always defaults are treated as
their default when absent (replicas 1, strategy RollingUpdate with 25%/25%, progressDeadlineSeconds
600, podManagementPolicy OrderedReady), so undefaulted input validates the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from podscale.api.field_errors import (
    FieldError,
    FieldPath,
    forbidden,
    invalid,
    not_supported,
    required,
)
from podscale.api.selectors import SelectorError, selector_from_label_selector
from podscale.api.validation.names import (
    validate_annotations,
    validate_dns1123_label_name,
    validate_label_selector,
    validate_labels,
)
from podscale.api.validation.objectmeta import (
    validate_immutable_field,
    validate_nonnegative,
    validate_object_meta,
    validate_object_meta_update,
)
from podscale.api.validation.pod import (
    validate_pod_specific_annotations,
    validate_pod_template_spec,
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

JSON = Mapping[str, Any]
_SPEC: Final = FieldPath("spec")
_STATUS: Final = FieldPath("status")
_TOO_MANY: Final = "cannot be greater than status.replicas"
_PERCENT_MSG: Final = (
    "a valid percent string must be a numeric string followed by an ending '%' "
    "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"
)
_DEFAULT_ROLLING: Final = "25%"
_DEFAULT_PROGRESS_DEADLINE: Final = 600


def _int(obj: JSON, key: str, default: int = 0) -> int:
    value = obj.get(key)
    return value if isinstance(value, int) else default


def _template_labels_match(selector: Any, template: JSON, path: FieldPath) -> list[FieldError]:
    labels = (template.get("metadata") or {}).get("labels")
    converted = selector_from_label_selector(selector)
    if converted.empty() or converted.matches(labels or {}):
        return []
    return [
        invalid(
            path.child("metadata", "labels"), labels, "`selector` does not match template `labels`"
        )
    ]


def _validate_selector_and_template(
    spec: JSON,
    kind: str,
    template_rules: Callable[[JSON, FieldPath], list[FieldError]],
) -> list[FieldError]:
    """The selector checks every workload shares, then the template if the selector converts."""
    selector = spec.get("selector")
    path = _SPEC.child("selector")
    errors: list[FieldError] = []
    if selector is None:
        errors.append(required(path))
    else:
        errors.extend(validate_label_selector(selector, path))
        if not (selector.get("matchLabels") or selector.get("matchExpressions")):
            errors.append(invalid(path, selector, f"empty selector is invalid for {kind}"))
    template = spec.get("template") or {}
    template_path = _SPEC.child("template")
    try:
        errors.extend(_template_labels_match(selector, template, template_path))
    except SelectorError:
        # StatefulSet reports this with no detail at all, the others say why.
        detail = "" if kind == "statefulset" else "invalid label selector"
        errors.append(invalid(path, selector, detail))
        return errors
    errors.extend(template_rules(template, template_path))
    return errors


def _workload_template_rules(template: JSON, path: FieldPath, owner: str) -> list[FieldError]:
    """What a controller-managed pod template must also satisfy: restart always, no deadline."""
    spec = template.get("spec") or {}
    errors: list[FieldError] = []
    restart = spec.get("restartPolicy")
    if restart and restart != "Always":
        errors.append(not_supported(path.child("spec", "restartPolicy"), restart, ("Always",)))
    if spec.get("activeDeadlineSeconds") is not None:
        errors.append(
            forbidden(
                path.child("spec", "activeDeadlineSeconds"),
                f"activeDeadlineSeconds in {owner} is not Supported",
            )
        )
    return errors


def _replica_set_template_rules(template: JSON, path: FieldPath) -> list[FieldError]:
    # Deployments run this too, so their message also names "ReplicaSet".
    errors = validate_pod_template_spec(template, path)
    errors.extend(_workload_template_rules(template, path, "ReplicaSet"))
    return errors


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


def _validate_replica_set_spec(spec: JSON) -> list[FieldError]:
    errors = validate_nonnegative(_int(spec, "replicas", 1), _SPEC.child("replicas"))
    errors.extend(
        validate_nonnegative(_int(spec, "minReadySeconds"), _SPEC.child("minReadySeconds"))
    )
    # The ReplicaSet really says "deployment" here: upstream copied the text.
    errors.extend(_validate_selector_and_template(spec, "deployment", _replica_set_template_rules))
    return errors


def validate_replica_set(obj: JSON) -> list[FieldError]:
    errors = validate_object_meta(obj.get("metadata") or {}, namespaced=True)
    errors.extend(_validate_replica_set_spec(obj.get("spec") or {}))
    return errors


def _selector_immutable(new: JSON, old: JSON) -> list[FieldError]:
    new_selector = (new.get("spec") or {}).get("selector")
    old_selector = (old.get("spec") or {}).get("selector")
    return validate_immutable_field(new_selector, old_selector, _SPEC.child("selector"))


def validate_replica_set_update(new: JSON, old: JSON) -> list[FieldError]:
    errors = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    errors.extend(_validate_replica_set_spec(new.get("spec") or {}))
    errors.extend(_selector_immutable(new, old))
    return errors


def _status_counts(status: JSON, fields: Sequence[str]) -> list[FieldError]:
    return [
        error for f in fields for error in validate_nonnegative(_int(status, f), _STATUS.child(f))
    ]


def _not_above(status: JSON, fields: tuple[str, ...], limit: str, detail: str) -> list[FieldError]:
    return [
        invalid(_STATUS.child(f), _int(status, f), detail)
        for f in fields
        if _int(status, f) > _int(status, limit)
    ]


def _collision_count_decremented(new: JSON, old: JSON) -> list[FieldError]:
    new_count = (new.get("status") or {}).get("collisionCount")
    old_count = (old.get("status") or {}).get("collisionCount")
    if old_count is not None and (new_count is None or new_count < old_count):
        value = new_count if new_count is not None else 0
        return [invalid(_STATUS.child("collisionCount"), value, "cannot be decremented")]
    return []


def validate_replica_set_status_update(new: JSON, old: JSON) -> list[FieldError]:
    errors = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    status = new.get("status") or {}
    errors.extend(
        _status_counts(
            status,
            (
                "replicas",
                "fullyLabeledReplicas",
                "readyReplicas",
                "availableReplicas",
                "observedGeneration",
            ),
        )
    )
    errors.extend(
        _not_above(
            status,
            ("fullyLabeledReplicas", "readyReplicas", "availableReplicas"),
            "replicas",
            _TOO_MANY,
        )
    )
    errors.extend(
        _not_above(
            status, ("availableReplicas",), "readyReplicas", "cannot be greater than readyReplicas"
        )
    )
    return errors


def _int_or_percent_errors(value: Any, path: FieldPath) -> list[FieldError]:
    """Upstream ``ValidatePositiveIntOrPercent``."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        # Upstream's text really carries a doubled percent sign (it is never formatted).
        return [invalid(path, value, "must be an integer or percentage (e.g '5%%')")]
    if isinstance(value, int):
        return validate_nonnegative(value, path)
    return [] if _is_percent(value) else [invalid(path, value, _PERCENT_MSG)]


def _is_percent(text: str) -> bool:
    return len(text) > 1 and text.endswith("%") and text[:-1].isascii() and text[:-1].isdigit()


def _int_or_percent_value(value: Any) -> int:
    """Upstream ``getIntOrPercentValue``: a bad string counts as its Atoi value, else 0."""
    if isinstance(value, str):
        text = value[:-1] if _is_percent(value) else value
        try:
            return int(text, 10) if text.lstrip("+-").isdigit() else 0
        except ValueError:
            return 0
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _validate_rolling_update(rolling: JSON, path: FieldPath) -> list[FieldError]:
    unavailable = rolling.get("maxUnavailable", _DEFAULT_ROLLING)
    surge = rolling.get("maxSurge", _DEFAULT_ROLLING)
    errors = _int_or_percent_errors(unavailable, path.child("maxUnavailable"))
    errors.extend(_int_or_percent_errors(surge, path.child("maxSurge")))
    if _int_or_percent_value(unavailable) == 0 and _int_or_percent_value(surge) == 0:
        errors.append(
            invalid(path.child("maxUnavailable"), unavailable, "may not be 0 when `maxSurge` is 0")
        )
    if isinstance(unavailable, str) and _is_percent(unavailable) and int(unavailable[:-1]) > 100:
        errors.append(
            invalid(path.child("maxUnavailable"), unavailable, "must not be greater than 100%")
        )
    return errors


def _validate_strategy(strategy: JSON) -> list[FieldError]:
    path = _SPEC.child("strategy")
    kind = strategy.get("type") or "RollingUpdate"
    rolling = strategy.get("rollingUpdate")
    if kind == "Recreate":
        if rolling is not None:
            return [
                forbidden(
                    path.child("rollingUpdate"),
                    "may not be specified when strategy `type` is 'Recreate'",
                )
            ]
        return []
    if kind == "RollingUpdate":
        return _validate_rolling_update(rolling or {}, path.child("rollingUpdate"))
    return [not_supported(path, dict(strategy), ("Recreate", "RollingUpdate"))]


def _validate_deployment_spec(spec: JSON) -> list[FieldError]:
    errors = validate_nonnegative(_int(spec, "replicas", 1), _SPEC.child("replicas"))
    errors.extend(_validate_selector_and_template(spec, "deployment", _replica_set_template_rules))
    errors.extend(_validate_strategy(spec.get("strategy") or {}))
    min_ready = _int(spec, "minReadySeconds")
    errors.extend(validate_nonnegative(min_ready, _SPEC.child("minReadySeconds")))
    if spec.get("revisionHistoryLimit") is not None:
        errors.extend(
            validate_nonnegative(
                _int(spec, "revisionHistoryLimit"), _SPEC.child("revisionHistoryLimit")
            )
        )
    deadline = _int(spec, "progressDeadlineSeconds", _DEFAULT_PROGRESS_DEADLINE)
    deadline_path = _SPEC.child("progressDeadlineSeconds")
    errors.extend(validate_nonnegative(deadline, deadline_path))
    if deadline <= min_ready:
        errors.append(invalid(deadline_path, deadline, "must be greater than minReadySeconds"))
    return errors


def validate_deployment(obj: JSON) -> list[FieldError]:
    errors = validate_object_meta(obj.get("metadata") or {}, namespaced=True)
    errors.extend(_validate_deployment_spec(obj.get("spec") or {}))
    return errors


def validate_deployment_update(new: JSON, old: JSON) -> list[FieldError]:
    errors = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    errors.extend(_validate_deployment_spec(new.get("spec") or {}))
    errors.extend(_selector_immutable(new, old))
    return errors


def validate_deployment_status_update(new: JSON, old: JSON) -> list[FieldError]:
    errors = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    status = new.get("status") or {}
    counts = ["observedGeneration", "replicas", "updatedReplicas", "readyReplicas"]
    counts += ["availableReplicas", "unavailableReplicas"]
    if status.get("collisionCount") is not None:
        counts.append("collisionCount")
    errors.extend(_status_counts(status, counts))
    errors.extend(
        _not_above(
            status, ("updatedReplicas", "readyReplicas", "availableReplicas"), "replicas", _TOO_MANY
        )
    )
    errors.extend(
        _not_above(
            status, ("availableReplicas",), "readyReplicas", "cannot be greater than readyReplicas"
        )
    )
    errors.extend(_collision_count_decremented(new, old))
    return errors


def _validate_stateful_set_strategy(strategy: JSON) -> list[FieldError]:
    path = _SPEC.child("updateStrategy")
    kind = strategy.get("type") or "RollingUpdate"
    rolling = strategy.get("rollingUpdate")
    if kind == "OnDelete":
        if rolling is not None:
            return [
                invalid(
                    path.child("rollingUpdate"),
                    rolling,
                    "only allowed for updateStrategy 'RollingUpdate'",
                )
            ]
        return []
    if kind != "RollingUpdate":
        return [invalid(path, dict(strategy), "must be 'RollingUpdate' or 'OnDelete'")]
    if rolling is None:
        return []
    rolling_path = path.child("rollingUpdate")
    errors = validate_nonnegative(_int(rolling, "partition"), rolling_path.child("partition"))
    if "maxUnavailable" in rolling and rolling["maxUnavailable"] is not None:
        value = rolling["maxUnavailable"]
        max_path = rolling_path.child("maxUnavailable")
        errors.extend(_int_or_percent_errors(value, max_path))
        if _int_or_percent_value(value) == 0:
            errors.append(invalid(max_path, value, "cannot be 0"))
        if isinstance(value, str) and _is_percent(value) and int(value[:-1]) > 100:
            errors.append(invalid(max_path, value, "must not be greater than 100%"))
    return errors


def _validate_stateful_set_spec(spec: JSON) -> list[FieldError]:
    errors: list[FieldError] = []
    policy = spec.get("podManagementPolicy")
    if policy and policy not in ("OrderedReady", "Parallel"):
        errors.append(
            invalid(
                _SPEC.child("podManagementPolicy"), policy, "must be 'OrderedReady' or 'Parallel'"
            )
        )
    errors.extend(_validate_stateful_set_strategy(spec.get("updateStrategy") or {}))
    retention = spec.get("persistentVolumeClaimRetentionPolicy") or {}
    for key in ("whenDeleted", "whenScaled"):
        value = retention.get(key)
        if value and value not in ("Retain", "Delete"):
            path = _SPEC.child("persistentVolumeClaimRetentionPolicy", key)
            errors.append(not_supported(path, value, ("Retain", "Delete")))
    errors.extend(validate_nonnegative(_int(spec, "replicas", 1), _SPEC.child("replicas")))
    errors.extend(
        validate_nonnegative(_int(spec, "minReadySeconds"), _SPEC.child("minReadySeconds"))
    )
    ordinals = spec.get("ordinals")
    if ordinals is not None:
        errors.extend(validate_nonnegative(_int(ordinals, "start"), _SPEC.child("ordinals.start")))
    # Upstream leaves the StatefulSet pod spec itself unvalidated (see its TODO on volumes).
    errors.extend(
        _validate_selector_and_template(spec, "statefulset", _stateful_set_template_metadata)
    )
    errors.extend(
        _workload_template_rules(spec.get("template") or {}, _SPEC.child("template"), "StatefulSet")
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
                _SPEC,
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
    errors = _status_counts(status, counts)
    errors.extend(
        _not_above(
            status,
            ("readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"),
            "replicas",
            _TOO_MANY,
        )
    )
    errors.extend(
        _not_above(
            status,
            ("availableReplicas",),
            "readyReplicas",
            "cannot be greater than status.readyReplicas",
        )
    )
    errors.extend(validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {}))
    errors.extend(_collision_count_decremented(new, old))
    return errors
