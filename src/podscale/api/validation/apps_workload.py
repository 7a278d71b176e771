"""Building blocks the apps/v1 workload validators share.

``apps`` (ReplicaSet), ``apps_deployment`` and ``apps_stateful_set`` all check a selector against
their pod template, run the controller-managed template rules, keep the selector immutable,
bound their status counters and read int-or-percent values; those rules live here. The pod
template itself goes to ``pod_spec``, the selector shape to ``names`` and its conversion to
``podscale.api.selectors``. Spec: ``pkg/apis/apps/validation/validation.go`` and
``ValidatePositiveIntOrPercent`` / ``getIntOrPercentValue`` there.

Contract: objects are JSON dicts after defaulting; an absent or wrongly typed integer reads as
the default the caller names (``read_int``).
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
from podscale.api.validation.names import validate_label_selector
from podscale.api.validation.objectmeta import (
    validate_immutable_field,
    validate_nonnegative,
    validate_object_meta,
    validate_object_meta_update,
)
from podscale.api.validation.pod_spec import validate_pod_template_spec

__all__ = [
    "JSON",
    "SPEC",
    "STATUS",
    "TOO_MANY",
    "is_percent",
    "read_int",
    "read_int_or_percent",
    "validate_collision_count",
    "validate_int_or_percent",
    "validate_not_above",
    "validate_percent_at_most_100",
    "validate_replica_set_template",
    "validate_replica_status",
    "validate_replica_status_update",
    "validate_selector_and_template",
    "validate_selector_immutable",
    "validate_status_counts",
    "validate_strategy",
    "validate_workload",
    "validate_workload_template",
    "validate_workload_update",
]

JSON = Mapping[str, Any]
SPEC: Final = FieldPath("spec")
STATUS: Final = FieldPath("status")
TOO_MANY: Final = "cannot be greater than status.replicas"
_PERCENT_MSG: Final = (
    "a valid percent string must be a numeric string followed by an ending '%' "
    "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"
)


def read_int(obj: JSON, key: str, default: int = 0) -> int:
    """``obj[key]`` when it is an int, else ``default`` (what the defaulted field would hold)."""
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


def validate_selector_and_template(
    spec: JSON,
    kind: str,
    template_rules: Callable[[JSON, FieldPath], list[FieldError]],
) -> list[FieldError]:
    """The selector checks every workload shares, then the template if the selector converts."""
    selector = spec.get("selector")
    path = SPEC.child("selector")
    errors: list[FieldError] = []
    if selector is None:
        errors.append(required(path))
    else:
        errors.extend(validate_label_selector(selector, path))
        if not (selector.get("matchLabels") or selector.get("matchExpressions")):
            errors.append(invalid(path, selector, f"empty selector is invalid for {kind}"))
    template = spec.get("template") or {}
    template_path = SPEC.child("template")
    try:
        errors.extend(_template_labels_match(selector, template, template_path))
    except SelectorError:
        # StatefulSet reports this with no detail at all, the others say why.
        detail = "" if kind == "statefulset" else "invalid label selector"
        errors.append(invalid(path, selector, detail))
        return errors
    errors.extend(template_rules(template, template_path))
    return errors


def validate_workload_template(template: JSON, path: FieldPath, owner: str) -> list[FieldError]:
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


def validate_replica_set_template(template: JSON, path: FieldPath) -> list[FieldError]:
    """A ReplicaSet's (or Deployment's) pod template: pod template rules plus workload rules."""
    # Deployments run this too, so their message also names "ReplicaSet".
    errors = validate_pod_template_spec(template, path)
    errors.extend(validate_workload_template(template, path, "ReplicaSet"))
    return errors


def validate_selector_immutable(new: JSON, old: JSON) -> list[FieldError]:
    """apps/v1 forbids changing ``spec.selector`` (the registry strategies add this)."""
    new_selector = (new.get("spec") or {}).get("selector")
    old_selector = (old.get("spec") or {}).get("selector")
    return validate_immutable_field(new_selector, old_selector, SPEC.child("selector"))


def validate_status_counts(status: JSON, fields: Sequence[str]) -> list[FieldError]:
    """Each counter in ``fields`` of ``status`` must be non-negative."""
    return [
        error
        for f in fields
        for error in validate_nonnegative(read_int(status, f), STATUS.child(f))
    ]


def validate_not_above(
    status: JSON, fields: tuple[str, ...], limit: str, detail: str
) -> list[FieldError]:
    """Each counter in ``fields`` may not exceed ``status[limit]``; ``detail`` is the message."""
    return [
        invalid(STATUS.child(f), read_int(status, f), detail)
        for f in fields
        if read_int(status, f) > read_int(status, limit)
    ]


def validate_replica_status(
    status: JSON, counts: Sequence[str], below_replicas: tuple[str, ...], ready_detail: str
) -> list[FieldError]:
    """The ``counts`` must be non-negative, the counters ``below_replicas`` may not exceed
    ``status.replicas`` nor ``availableReplicas`` the ready count; ``ready_detail`` words the
    latter, which upstream words differently per kind."""
    errors = validate_status_counts(status, counts)
    errors.extend(validate_not_above(status, below_replicas, "replicas", TOO_MANY))
    errors.extend(validate_not_above(status, ("availableReplicas",), "readyReplicas", ready_detail))
    return errors


def validate_replica_status_update(
    new: JSON, old: JSON, counts: Sequence[str], below_replicas: tuple[str, ...], ready_detail: str
) -> list[FieldError]:
    """A ReplicaSet's or Deployment's status update: the metadata, then
    ``validate_replica_status`` of the new status."""
    errors = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    status = new.get("status") or {}
    errors.extend(validate_replica_status(status, counts, below_replicas, ready_detail))
    return errors


def validate_collision_count(new: JSON, old: JSON) -> list[FieldError]:
    """``status.collisionCount`` may grow but never shrink or disappear."""
    new_count = (new.get("status") or {}).get("collisionCount")
    old_count = (old.get("status") or {}).get("collisionCount")
    if old_count is not None and (new_count is None or new_count < old_count):
        value = new_count if new_count is not None else 0
        return [invalid(STATUS.child("collisionCount"), value, "cannot be decremented")]
    return []


def validate_strategy(
    strategy: JSON,
    path: FieldPath,
    other: tuple[str, Callable[[FieldPath, Any], FieldError]],
    unknown: Callable[[FieldPath, JSON], FieldError],
    rolling_rules: Callable[[JSON | None, FieldPath], list[FieldError]],
) -> list[FieldError]:
    """A workload's update strategy: ``RollingUpdate`` (the default) checked by
    ``rolling_rules`` on its ``rollingUpdate``, or the kind's other type ``other[0]``
    (Recreate, OnDelete), for which a ``rollingUpdate`` is ``other[1]``'s error; any other
    type is ``unknown``'s. The texts and error types differ per kind upstream."""
    kind = strategy.get("type") or "RollingUpdate"
    rolling = strategy.get("rollingUpdate")
    other_type, with_rolling = other
    if kind == other_type:
        return [] if rolling is None else [with_rolling(path.child("rollingUpdate"), rolling)]
    if kind != "RollingUpdate":
        return [unknown(path, dict(strategy))]
    return rolling_rules(rolling, path.child("rollingUpdate"))


def validate_int_or_percent(value: Any, path: FieldPath) -> list[FieldError]:
    """Upstream ``ValidatePositiveIntOrPercent``."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        # Upstream's text really carries a doubled percent sign (it is never formatted).
        return [invalid(path, value, "must be an integer or percentage (e.g '5%%')")]
    if isinstance(value, int):
        return validate_nonnegative(value, path)
    return [] if is_percent(value) else [invalid(path, value, _PERCENT_MSG)]


def validate_percent_at_most_100(value: Any, path: FieldPath) -> list[FieldError]:
    """A ``maxUnavailable`` percentage may not exceed 100% (an integer is not bounded)."""
    if isinstance(value, str) and is_percent(value) and int(value[:-1]) > 100:
        return [invalid(path, value, "must not be greater than 100%")]
    return []


def is_percent(text: str) -> bool:
    """Whether ``text`` matches upstream's ``[0-9]+%``."""
    return len(text) > 1 and text.endswith("%") and text[:-1].isascii() and text[:-1].isdigit()


def read_int_or_percent(value: Any) -> int:
    """Upstream ``getIntOrPercentValue``: a bad string counts as its Atoi value, else 0."""
    if isinstance(value, str):
        text = value[:-1] if is_percent(value) else value
        try:
            return int(text, 10) if text.lstrip("+-").isdigit() else 0
        except ValueError:
            return 0
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def validate_workload(
    obj: JSON, validate_spec: Callable[[JSON], list[FieldError]]
) -> list[FieldError]:
    """A namespaced workload on create: its metadata, then ``validate_spec`` of its spec."""
    errors = validate_object_meta(obj.get("metadata") or {}, namespaced=True)
    errors.extend(validate_spec(obj.get("spec") or {}))
    return errors


def validate_workload_update(
    new: JSON, old: JSON, validate_spec: Callable[[JSON], list[FieldError]]
) -> list[FieldError]:
    """A workload update: metadata, the new spec, and the selector kept as it was."""
    errors = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    errors.extend(validate_spec(new.get("spec") or {}))
    errors.extend(validate_selector_immutable(new, old))
    return errors
