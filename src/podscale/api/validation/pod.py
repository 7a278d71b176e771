"""Pod and PodTemplateSpec validation: the parts autoscaled workloads depend on.

``validate_pod`` / ``validate_pod_update`` / ``validate_pod_status_update`` serve the Pod kind;
``validate_pod_template_spec`` is what ``apps`` runs on a workload's ``spec.template``.
Container rules (names, images, ports, resources) are the private helpers below; metadata goes
through ``objectmeta``, names and labels through ``names``. Spec: ``pkg/apis/core/validation/
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

from collections.abc import Mapping, Sequence
from typing import Any, Final

from podscale.api.field_errors import (
    FieldError,
    FieldPath,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
)
from podscale.api.quantity import Quantity, QuantityError, parse_quantity
from podscale.api.validation.names import (
    is_dns1123_label,
    is_qualified_name,
    validate_annotations,
    validate_dns1123_subdomain_name,
    validate_labels,
)
from podscale.api.validation.objectmeta import (
    METADATA,
    validate_immutable_field,
    validate_object_meta,
    validate_object_meta_update,
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

POD_DELETION_COST: Final = "controller.kubernetes.io/pod-deletion-cost"
_MAX_INT32: Final = 2**31 - 1
_MIN_INT32: Final = -(2**31)

_RESTART_POLICIES: Final = ("Always", "OnFailure", "Never")
_DNS_POLICIES: Final = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
_PULL_POLICIES: Final = ("Always", "IfNotPresent", "Never")
_TERMINATION_MESSAGE_POLICIES: Final = ("File", "FallbackToLogsOnError")
_PROTOCOLS: Final = ("TCP", "UDP", "SCTP")
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


def _is_int32_text(value: str) -> bool:
    # Upstream rejects "+10" and "007" before strconv.ParseInt(value, 10, 32).
    if not value or not (value[0] == "-" or value == "0" or value[0] in "123456789"):
        return False
    digits = value[1:] if value[0] == "-" else value
    if not digits.isascii() or not digits.isdigit():
        return False
    return _MIN_INT32 <= int(value) <= _MAX_INT32


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


def _validate_port_number(value: Any, path: FieldPath) -> list[FieldError]:
    if isinstance(value, int) and 1 <= value <= 65535:
        return []
    return [invalid(path, value, "must be between 1 and 65535, inclusive")]


def _validate_port_name(name: str) -> list[str]:
    """Upstream ``IsValidPortName`` (IANA service names, lower case only)."""
    details: list[str] = []
    if len(name) > 15:
        details.append("must be no more than 15 characters")
    if not name or any(ch not in "abcdefghijklmnopqrstuvwxyz0123456789-" for ch in name):
        details.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not any("a" <= ch <= "z" for ch in name):
        details.append("must contain at least one letter (a-z)")
    if "--" in name:
        details.append("must not contain consecutive hyphens")
    if name and (name[0] == "-" or name[-1] == "-"):
        details.append("must not begin or end with a hyphen")
    return details


def _validate_ports(ports: Sequence[Mapping[str, Any]], path: FieldPath) -> list[FieldError]:
    errors: list[FieldError] = []
    names: set[str] = set()
    for i, port in enumerate(ports):
        item = path.index(i)
        name = str(port.get("name", ""))
        if name:
            details = _validate_port_name(name)
            if details:
                errors.extend(invalid(item.child("name"), name, d) for d in details)
            elif name in names:
                errors.append(duplicate(item.child("name"), name))
            else:
                names.add(name)
        container_port = port.get("containerPort", 0)
        if container_port == 0:
            errors.append(required(item.child("containerPort")))
        else:
            errors.extend(_validate_port_number(container_port, item.child("containerPort")))
        host_port = port.get("hostPort", 0)
        if host_port != 0:
            errors.extend(_validate_port_number(host_port, item.child("hostPort")))
        protocol = port.get("protocol") or "TCP"
        if protocol not in _PROTOCOLS:
            errors.append(not_supported(item.child("protocol"), protocol, _PROTOCOLS))
    return errors


# Resource names upstream knows without a domain prefix (core helper.IsStandardResourceName).
_STANDARD_RESOURCES: Final = frozenset(
    {
        "cpu",
        "memory",
        "ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.ephemeral-storage",
        "storage",
        "requests.storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
        "pods",
        "services",
        "replicationcontrollers",
        "resourcequotas",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "services.nodeports",
        "services.loadbalancers",
    }
)
_CONTAINER_RESOURCES: Final = frozenset({"cpu", "memory", "ephemeral-storage"})
# Counted resources: a fractional quantity of these is meaningless (helper.IsIntegerResourceName).
_INTEGER_RESOURCES: Final = _STANDARD_RESOURCES - {
    "cpu",
    "memory",
    "ephemeral-storage",
    "storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "requests.storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
}
_HUGEPAGES: Final = "hugepages-"


def _is_native_resource(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def _is_extended_resource(name: str) -> bool:
    if _is_native_resource(name) or name.startswith("requests."):
        return False
    return not is_qualified_name("requests." + name)


def _overcommit_allowed(name: str) -> bool:
    # Extended resources (GPUs...) and hugepages must request exactly their limit.
    return _is_native_resource(name) and not name.startswith(_HUGEPAGES)


def _validate_container_resource_name(name: str, path: FieldPath) -> list[FieldError]:
    errors = [invalid(path, name, msg) for msg in is_qualified_name(name)]
    if "/" not in name:
        standard = name in _STANDARD_RESOURCES or name.startswith(
            (_HUGEPAGES, "requests." + _HUGEPAGES)
        )
        if not errors and not standard:
            errors.append(
                invalid(path, name, "must be a standard resource type or fully qualified")
            )
        if name not in _CONTAINER_RESOURCES and not name.startswith(_HUGEPAGES):
            errors.append(invalid(path, name, "must be a standard resource for containers"))
    elif not _is_native_resource(name) and not _is_extended_resource(name):
        errors.append(invalid(path, name, "doesn't follow extended resource name standard"))
    return errors


def _parse_resource_list(
    resources: Mapping[str, Any], path: FieldPath
) -> tuple[dict[str, Quantity], list[FieldError]]:
    """Names and quantities of one resource list; unparsable quantities are reported here.

    Upstream rejects those while decoding (400); reporting them as 422 field errors is the
    closest a dict-based validator can get.
    """
    parsed: dict[str, Quantity] = {}
    errors: list[FieldError] = []
    for name, raw in resources.items():
        item = path.key(name)
        errors.extend(_validate_container_resource_name(name, item))
        try:
            quantity = parse_quantity(raw)
        except QuantityError as err:
            errors.append(invalid(item, raw, str(err)))
            continue
        if quantity.sign() < 0:
            errors.append(invalid(item, str(quantity), "must be greater than or equal to 0"))
        elif (name in _INTEGER_RESOURCES or _is_extended_resource(name)) and (
            quantity.milli_value() % 1000
        ):
            errors.append(invalid(item, str(quantity), "must be an integer"))
        parsed[name] = quantity
    return parsed, errors


def validate_resource_requirements(
    resources: Mapping[str, Any], path: FieldPath
) -> list[FieldError]:
    """Container ``resources``: valid names and quantities, and every request within limits."""
    limits_path = path.child("limits")
    requests_path = path.child("requests")
    limits, errors = _parse_resource_list(resources.get("limits") or {}, limits_path)
    requests, request_errors = _parse_resource_list(resources.get("requests") or {}, requests_path)
    errors.extend(request_errors)
    for name, request in requests.items():
        limit = limits.get(name)
        if limit is None:
            if not _overcommit_allowed(name) and name not in (resources.get("limits") or {}):
                errors.append(
                    required(limits_path, "Limit must be set for non overcommitable resources")
                )
        elif request != limit and not _overcommit_allowed(name):
            errors.append(
                invalid(requests_path, str(request), f"must be equal to {name} limit of {limit}")
            )
        elif request > limit:
            errors.append(
                invalid(
                    requests_path,
                    str(request),
                    f"must be less than or equal to {name} limit of {limit}",
                )
            )
    hugepages = any(n.startswith(_HUGEPAGES) for n in (*limits, *requests))
    if hugepages and not any(n in ("cpu", "memory") for n in (*limits, *requests)):
        errors.append(forbidden(path, "HugePages require cpu or memory"))
    return errors


def _validate_container_common(container: Mapping[str, Any], path: FieldPath) -> list[FieldError]:
    errors: list[FieldError] = []
    name = str(container.get("name", ""))
    if not name:
        errors.append(required(path.child("name")))
    else:
        errors.extend(invalid(path.child("name"), name, msg) for msg in is_dns1123_label(name))
    if not container.get("image"):
        errors.append(required(path.child("image")))
    policy = container.get("terminationMessagePolicy")
    if policy and policy not in _TERMINATION_MESSAGE_POLICIES:
        errors.append(
            not_supported(
                path.child("terminationMessagePolicy"), policy, _TERMINATION_MESSAGE_POLICIES
            )
        )
    errors.extend(_validate_ports(container.get("ports") or [], path.child("ports")))
    pull = container.get("imagePullPolicy")
    if pull and pull not in _PULL_POLICIES:
        errors.append(not_supported(path.child("imagePullPolicy"), pull, _PULL_POLICIES))
    errors.extend(
        validate_resource_requirements(container.get("resources") or {}, path.child("resources"))
    )
    return errors


def _validate_containers(
    containers: Sequence[Mapping[str, Any]], path: FieldPath
) -> list[FieldError]:
    if not containers:
        return [required(path)]
    errors: list[FieldError] = []
    names: set[str] = set()
    for i, container in enumerate(containers):
        item = path.index(i)
        errors.extend(_validate_container_common(container, item))
        name = str(container.get("name", ""))
        if name in names:
            errors.append(duplicate(item.child("name"), name))
        names.add(name)
        if container.get("restartPolicy") is not None:
            errors.append(
                forbidden(item.child("restartPolicy"), "may not be set for non-init containers")
            )
    return errors


def _validate_init_containers(
    containers: Sequence[Mapping[str, Any]],
    regular: Sequence[Mapping[str, Any]],
    path: FieldPath,
) -> list[FieldError]:
    errors: list[FieldError] = []
    names = {str(c.get("name", "")) for c in regular}
    for i, container in enumerate(containers):
        item = path.index(i)
        errors.extend(_validate_container_common(container, item))
        restart = container.get("restartPolicy")
        if restart is not None and restart != "Always":
            errors.append(not_supported(item.child("restartPolicy"), restart, ("Always",)))
        name = str(container.get("name", ""))
        if name in names:
            errors.append(duplicate(item.child("name"), name))
        elif name:
            names.add(name)
    return errors


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
    errors = _validate_containers(containers, path.child("containers"))
    errors.extend(
        _validate_init_containers(
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
    if deadline is not None and not (isinstance(deadline, int) and 1 <= deadline <= _MAX_INT32):
        errors.append(
            invalid(
                path.child("activeDeadlineSeconds"),
                deadline,
                f"must be between 1 and {_MAX_INT32}, inclusive",
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
        if not isinstance(deadline, int) or not 0 <= deadline <= _MAX_INT32:
            errors.append(
                invalid(deadline_path, deadline, f"must be between 0 and {_MAX_INT32}, inclusive")
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
