"""Pod validation (create, update, status) and the facade over the PodSpec/container rules.

``validate_pod`` / ``validate_pod_update`` / ``validate_pod_status_update`` serve the Pod kind
and live here; the rest is re-exported from its own module: ``pod_spec`` (PodSpec, the template
``apps`` runs on a workload's ``spec.template``, pod annotations), ``pod_containers`` (names,
images, ports) and ``pod_resources`` (container resources). Metadata goes through
``objectmeta``, names and labels through ``names``. Spec: ``pkg/apis/core/validation/
validation.go`` (``validatePodMetadataAndSpec``, ``ValidatePodSpec``, ``validateContainers``,
``validateContainerCommon``, ``validateResourceRequirements``, ``ValidatePodSpecificAnnotations``,
``ValidatePodUpdate``, ``ValidatePodStatusUpdate``, ``ValidatePodTemplateSpec``).

Contract: objects are JSON dicts as the API server holds them *after* defaulting. A field that
upstream always defaults (``restartPolicy``, ``dnsPolicy``, ``imagePullPolicy``,
``terminationMessagePolicy``, ``terminationGracePeriodSeconds``, port ``protocol``) is treated
as its default when absent or empty, so undefaulted input is not rejected for them.

Not covered (upstream validates them; they do not shape autoscaling): volumes and volume
mounts, env and envFrom, host-port conflicts, probes and lifecycle handlers, security contexts,
affinity, tolerations, topology spread, DNS config, resource claims, hugepage divisibility,
mirror-pod/seccomp/AppArmor annotations, ephemeral containers (beyond forbidding them in
templates), pod-level resources, status IPs and container state transitions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from podscale.api.field_errors import FieldError, FieldPath, forbidden, invalid, required
from podscale.api.validation.names import is_qualified_name
from podscale.api.validation.objectmeta import (
    METADATA,
    validate_immutable_field,
    validate_object_meta,
    validate_object_meta_update,
)
from podscale.api.validation.pod_resources import validate_resource_requirements
from podscale.api.validation.pod_spec import (
    MAX_INT32,
    POD_DELETION_COST,
    validate_pod_spec,
    validate_pod_specific_annotations,
    validate_pod_template_spec,
)

__all__ = [
    "POD_DELETION_COST",
    "validate_pod",
    "validate_pod_spec",
    "validate_pod_specific_annotations",
    "validate_pod_status_update",
    "validate_pod_template_spec",
    "validate_pod_update",
    "validate_resource_requirements",
]

_SYSTEM_POD_CONDITIONS: Final = frozenset({"PodScheduled", "Ready", "Initialized"})
_UPDATABLE_POD_SPEC_FIELDS: Final = ",".join(
    (
        "`spec.containers[*].image`",
        "`spec.initContainers[*].image`",
        "`spec.activeDeadlineSeconds`",
        "`spec.tolerations` (only additions to existing tolerations)",
        "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously "
        "negative)",
    )
)


def _validate_pod_metadata_and_spec(pod: Mapping[str, Any]) -> list[FieldError]:
    meta = pod.get("metadata") or {}
    spec = pod.get("spec") or {}
    spec_path = FieldPath("spec")
    errors = validate_object_meta(meta, namespaced=True)
    errors.extend(
        validate_pod_specific_annotations(
            meta.get("annotations"), spec, METADATA.child("annotations")
        )
    )
    errors.extend(validate_pod_spec(spec, spec_path))
    for key in ("containers", "initContainers"):
        for i, container in enumerate(spec.get(key) or []):
            image = str(container.get("image", ""))
            if image != image.strip():
                errors.append(
                    invalid(
                        spec_path.child(key).index(i).child("image"),
                        image,
                        "must not have leading or trailing whitespace",
                    )
                )
    return errors


def validate_pod(pod: Mapping[str, Any]) -> list[FieldError]:
    """A Pod being created."""
    errors = _validate_pod_metadata_and_spec(pod)
    spec = pod.get("spec") or {}
    spec_path = FieldPath("spec")
    if spec.get("ephemeralContainers"):
        # Only the ephemeralcontainers subresource (not served by podscale) may add them.
        errors.append(forbidden(spec_path.child("ephemeralContainers"), "cannot be set on create"))
    if spec.get("nodeName") and spec.get("schedulingGates"):
        errors.append(
            forbidden(
                spec_path.child("nodeName"),
                "cannot be set until all schedulingGates have been cleared",
            )
        )
    return errors


def _munged_spec(new: Mapping[str, Any], old: Mapping[str, Any]) -> dict[str, Any]:
    """``new`` with every field a pod update may change reset to ``old``'s value."""
    munged = dict(new)
    for key in ("containers", "initContainers"):
        old_list = old.get(key) or []
        munged[key] = [
            {**container, "image": old_list[i].get("image")}
            if "image" in old_list[i]
            else {k: v for k, v in container.items() if k != "image"}
            for i, container in enumerate(new.get(key) or [])
        ]
        if not munged[key] and key not in old:
            munged.pop(key)
    for key in ("activeDeadlineSeconds", "schedulingGates", "tolerations"):
        munged.pop(key, None)
        if key in old:
            munged[key] = old[key]
    old_grace = old.get("terminationGracePeriodSeconds")
    if (
        isinstance(old_grace, int)
        and old_grace < 0
        and munged.get("terminationGracePeriodSeconds") == 1
    ):
        munged["terminationGracePeriodSeconds"] = old_grace
    return munged


def validate_pod_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """A Pod update: metadata rules, then only images and a few fields may change in spec.

    Upstream appends a Go ``cmp.Diff`` of the two specs to the final Forbidden message; that
    diff is Go-struct specific and is not reproduced here.
    """
    spec_path = FieldPath("spec")
    new_spec = new.get("spec") or {}
    old_spec = old.get("spec") or {}
    errors = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    errors.extend(_validate_pod_metadata_and_spec(new))
    for key in ("containers", "initContainers"):
        new_list = new_spec.get(key) or []
        if len(new_list) != len(old_spec.get(key) or []):
            errors.append(
                forbidden(spec_path.child(key), "pod updates may not add or remove containers")
            )
            return errors
        # Upstream re-checks images here, repeating the create-time errors (the Status
        # aggregate drops the duplicate messages).
        for i, container in enumerate(new_list):
            image = str(container.get("image", ""))
            image_path = spec_path.child(key).index(i).child("image")
            if not image:
                errors.append(required(image_path))
            if image != image.strip():
                errors.append(
                    invalid(image_path, image, "must not have leading or trailing whitespace")
                )
    deadline = new_spec.get("activeDeadlineSeconds")
    old_deadline = old_spec.get("activeDeadlineSeconds")
    deadline_path = spec_path.child("activeDeadlineSeconds")
    if deadline is not None:
        if not isinstance(deadline, int) or not 0 <= deadline <= MAX_INT32:
            errors.append(
                invalid(deadline_path, deadline, f"must be between 0 and {MAX_INT32}, inclusive")
            )
            return errors
        if isinstance(old_deadline, int) and old_deadline < deadline:
            errors.append(
                invalid(deadline_path, deadline, "must be less than or equal to previous value")
            )
            return errors
    elif old_deadline is not None:
        errors.append(
            invalid(deadline_path, None, "must not update from a positive integer to nil value")
        )
    if new_spec != old_spec and _munged_spec(new_spec, old_spec) != old_spec:
        errors.append(
            forbidden(
                spec_path,
                f"pod updates may not change fields other than {_UPDATABLE_POD_SPEC_FIELDS}",
            )
        )
    return errors


def validate_pod_status_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """A write to ``pods/status`` (kubelet-side fields), minus IP and state-transition rules."""
    new_meta = new.get("metadata") or {}
    errors = validate_object_meta_update(new_meta, old.get("metadata") or {})
    errors.extend(
        validate_pod_specific_annotations(
            new_meta.get("annotations"), new.get("spec") or {}, METADATA.child("annotations")
        )
    )
    status = new.get("status") or {}
    for i, condition in enumerate(status.get("conditions") or []):
        kind = str(condition.get("type", ""))
        if kind not in _SYSTEM_POD_CONDITIONS:
            # Upstream really reports these under metadata.conditions[i].Type.
            type_path = METADATA.child("conditions").index(i).child("Type")
            errors.extend(invalid(type_path, kind, msg) for msg in is_qualified_name(kind))
    status_path = FieldPath("status")
    if (new.get("spec") or {}).get("nodeName") != (old.get("spec") or {}).get("nodeName"):
        errors.append(forbidden(status_path.child("nodeName"), "may not be changed directly"))
    errors.extend(
        validate_immutable_field(
            status.get("qosClass", ""),
            (old.get("status") or {}).get("qosClass", ""),
            status_path.child("qosClass"),
        )
    )
    return errors
