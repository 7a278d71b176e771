"""PodSpec and PodTemplateSpec validation, plus the annotations with pod semantics.

``validate_pod_spec`` is shared by ``pod`` (the Pod kind) and ``validate_pod_template_spec``,
which ``apps`` runs on a workload's ``spec.template``; containers are delegated to
``pod_containers``, labels and names to ``names``. Spec: ``pkg/apis/core/validation/
validation.go`` (``ValidatePodSpec``, ``ValidatePodTemplateSpec``,
``ValidatePodSpecificAnnotations``). See ``pod`` for what is deliberately not covered.

Contract: ``restartPolicy`` and ``dnsPolicy`` read as their upstream default when absent or empty.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from podscale.api.field_errors import FieldError, FieldPath, forbidden, invalid, not_supported
from podscale.api.validation.names import (
    is_dns1123_label,
    validate_annotations,
    validate_dns1123_subdomain_name,
    validate_labels,
)
from podscale.api.validation.pod_containers import validate_containers, validate_init_containers

__all__ = [
    "MAX_INT32",
    "POD_DELETION_COST",
    "validate_pod_spec",
    "validate_pod_specific_annotations",
    "validate_pod_template_spec",
]

POD_DELETION_COST: Final = "controller.kubernetes.io/pod-deletion-cost"
MAX_INT32: Final = 2**31 - 1
_MIN_INT32: Final = -(2**31)

_RESTART_POLICIES: Final = ("Always", "OnFailure", "Never")
_DNS_POLICIES: Final = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")


def _is_int32_text(value: str) -> bool:
    # Upstream rejects "+10" and "007" before strconv.ParseInt(value, 10, 32).
    if not value or not (value[0] == "-" or value == "0" or value[0] in "123456789"):
        return False
    digits = value[1:] if value[0] == "-" else value
    if not digits.isascii() or not digits.isdigit():
        return False
    return _MIN_INT32 <= int(value) <= MAX_INT32


def validate_pod_specific_annotations(
    annotations: Mapping[str, Any] | None, spec: Mapping[str, Any], path: FieldPath
) -> list[FieldError]:
    """Annotations with pod semantics; only the deletion cost is checked (mirror pods, seccomp
    and AppArmor annotations are not served by podscale). ``spec`` is kept for parity."""
    annotations = annotations or {}
    if POD_DELETION_COST in annotations:
        cost = str(annotations[POD_DELETION_COST])
        if not _is_int32_text(cost):
            return [invalid(path.key(POD_DELETION_COST), cost, "must be a 32bit integer")]
    return []


def _validate_optional_name(
    spec: Mapping[str, Any], key: str, path: FieldPath, *, label: bool = False
) -> list[FieldError]:
    value = str(spec.get(key) or "")
    if not value:
        return []
    details = is_dns1123_label(value) if label else validate_dns1123_subdomain_name(value, False)
    return [invalid(path.child(key), value, msg) for msg in details]


def validate_pod_spec(spec: Mapping[str, Any], path: FieldPath) -> list[FieldError]:
    """A PodSpec, in a Pod or in a template; see the module docstring for what is covered."""
    containers = spec.get("containers") or []
    errors = validate_containers(containers, path.child("containers"))
    errors.extend(
        validate_init_containers(
            spec.get("initContainers") or [], containers, path.child("initContainers")
        )
    )
    restart = spec.get("restartPolicy")
    if restart and restart not in _RESTART_POLICIES:
        errors.append(not_supported(path.child("restartPolicy"), restart, _RESTART_POLICIES))
    dns = spec.get("dnsPolicy")
    if dns and dns not in _DNS_POLICIES:
        errors.append(not_supported(path.child("dnsPolicy"), dns, _DNS_POLICIES))
    errors.extend(validate_labels(spec.get("nodeSelector"), path.child("nodeSelector")))
    errors.extend(_validate_optional_name(spec, "serviceAccountName", path))
    errors.extend(_validate_optional_name(spec, "nodeName", path))
    deadline = spec.get("activeDeadlineSeconds")
    if deadline is not None and not (isinstance(deadline, int) and 1 <= deadline <= MAX_INT32):
        errors.append(
            invalid(
                path.child("activeDeadlineSeconds"),
                deadline,
                f"must be between 1 and {MAX_INT32}, inclusive",
            )
        )
    errors.extend(_validate_optional_name(spec, "hostname", path, label=True))
    errors.extend(_validate_optional_name(spec, "subdomain", path, label=True))
    errors.extend(_validate_optional_name(spec, "priorityClassName", path))
    return errors


def validate_pod_template_spec(template: Mapping[str, Any], path: FieldPath) -> list[FieldError]:
    """A workload's ``spec.template``; note upstream reports labels at ``<path>.labels``."""
    meta = template.get("metadata") or {}
    spec = template.get("spec") or {}
    errors = validate_labels(meta.get("labels"), path.child("labels"))
    errors.extend(validate_annotations(meta.get("annotations"), path.child("annotations")))
    errors.extend(
        validate_pod_specific_annotations(meta.get("annotations"), spec, path.child("annotations"))
    )
    errors.extend(validate_pod_spec(spec, path.child("spec")))
    if spec.get("ephemeralContainers"):
        errors.append(
            forbidden(
                path.child("spec", "ephemeralContainers"),
                "ephemeral containers not allowed in pod template",
            )
        )
    return errors
