"""API validation: ``validate()`` turns an object (and, on update, its old self) into field errors.

This is the one entry point the API server (and the CLI's offline checks) call after defaulting.
It dispatches on ``(apiVersion, kind)`` and the subresource to the per-kind validators: ``pod``
(Pod), ``apps`` (ReplicaSet, Deployment, StatefulSet), ``hpa`` (HorizontalPodAutoscaler v1/v2
and the autoscaling/v1 ``Scale`` of ``/scale``), ``events`` (events.k8s.io/v1 Event, on top of
the core rules), ``crd`` (CustomResourceDefinition), and the small Namespace/Node/Event
rules kept here. Shared building blocks
live in ``names`` and ``objectmeta``; the result renders through ``podscale.api.field_errors``
(``invalid_status`` builds the 422).

Contract: pure, never mutates or defaults ``obj``. An unknown kind returns ``[]`` (the API server
only routes registered kinds here; anything else has no validation upstream either). A status
update needs ``old`` (``ValueError`` otherwise), as does any subresource other than ``status``
and ``scale``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from podscale.api.feature_gates import DEFAULT_FEATURE_GATES
from podscale.api.field_errors import FieldError, FieldPath, invalid, required
from podscale.api.validation import apps, core_config, crd, events, pod, policy, service
from podscale.api.validation.names import (
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
    validate_annotations,
    validate_dns1123_label_name,
    validate_dns1123_subdomain_name,
    validate_label_selector,
    validate_labels,
    validate_path_segment_name,
)
from podscale.api.validation.objectmeta import (
    validate_finalizers,
    validate_object_meta,
    validate_object_meta_update,
)

__all__ = [
    "FieldError",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_qualified_name",
    "is_valid_label_value",
    "validate",
    "validate_annotations",
    "validate_dns1123_label_name",
    "validate_dns1123_subdomain_name",
    "validate_label_selector",
    "validate_labels",
    "validate_object_meta",
    "validate_object_meta_update",
    "validate_path_segment_name",
]

JSON = Mapping[str, Any]
Create = Callable[[JSON], list[FieldError]]
Update = Callable[[JSON, JSON], list[FieldError]]

_HPA_VERSIONS: Final = frozenset({"autoscaling/v1", "autoscaling/v2"})
_STANDARD_FINALIZERS: Final = frozenset({"kubernetes", "orphan", "foregroundDeletion"})


def _metadata(obj: JSON) -> JSON:
    return obj.get("metadata") or {}


def _meta_update(new: JSON, old: JSON) -> list[FieldError]:
    return validate_object_meta_update(_metadata(new), _metadata(old))


def _validate_namespace(obj: JSON) -> list[FieldError]:
    errors = validate_object_meta(
        _metadata(obj), namespaced=False, name_validator=validate_dns1123_label_name
    )
    # Upstream reports spec.finalizers problems on the list's path, without an index.
    return errors + _namespace_finalizer_errors(obj, indexed=False)


def _namespace_finalizer_errors(obj: JSON, *, indexed: bool) -> list[FieldError]:
    """Each ``spec.finalizers`` entry is a qualified name, and a bare one is standard."""
    errors: list[FieldError] = []
    base = FieldPath("spec", "finalizers")
    for index, name in enumerate((obj.get("spec") or {}).get("finalizers") or []):
        path = base.index(index) if indexed else base
        errors.extend(validate_finalizers([name], path))
        if "/" not in name and name not in _STANDARD_FINALIZERS:
            errors.append(
                invalid(
                    path,
                    name,
                    "name is neither a standard finalizer name nor is it fully qualified",
                )
            )
    return errors


def _validate_namespace_finalize(new: JSON, old: JSON) -> list[FieldError]:
    """``namespaces/finalize``: the metadata update rules, then the finalizer names (here
    upstream indexes the path)."""
    return _meta_update(new, old) + _namespace_finalizer_errors(new, indexed=True)


def _validate_node(obj: JSON) -> list[FieldError]:
    # Taints, pod CIDRs and capacity are not validated: podscale's nodes are bookkeeping only.
    return validate_object_meta(_metadata(obj), namespaced=False)


def _validate_event(obj: JSON) -> list[FieldError]:
    """Upstream's legacy core/v1 Event rules; core/v1 events get no metadata validation."""
    namespace = str(_metadata(obj).get("namespace", ""))
    involved = str((obj.get("involvedObject") or {}).get("namespace", ""))
    path = FieldPath("involvedObject", "namespace")
    errors: list[FieldError] = []
    mismatch = "does not match event.namespace"
    if not obj.get("eventTime"):
        if (not involved and namespace not in ("", "default")) or (
            involved and namespace != involved
        ):
            errors.append(invalid(path, involved, mismatch))
    else:
        if not involved and namespace not in ("default", "kube-system"):
            errors.append(invalid(path, involved, mismatch))
        errors.extend(_event_series_fields(obj))
    errors.extend(
        invalid(FieldPath("namespace"), namespace, msg) for msg in is_dns1123_subdomain(namespace)
    )
    # The event's own rules skip ObjectMeta, but upstream's generic BeforeCreate still
    # validates it for every kind, with path-segment names (so a name is required).
    errors.extend(
        validate_object_meta(
            _metadata(obj), namespaced=True, name_validator=validate_path_segment_name
        )
    )
    return errors


def _event_series_fields(obj: JSON) -> list[FieldError]:
    """The "new style" event fields required once ``eventTime`` is set."""
    errors: list[FieldError] = []
    for key, limit in (
        ("reportingComponent", 0),
        ("reportingInstance", 128),
        ("action", 128),
        ("reason", 128),
    ):
        value = str(obj.get(key) or "")
        # The internal field is reportingController; core/v1 calls it reportingComponent.
        path = FieldPath("reportingController" if key == "reportingComponent" else key)
        if not value:
            errors.append(required(path))
        if key == "reportingComponent":
            errors.extend(invalid(path, value, msg) for msg in is_qualified_name(value))
        elif len(value) > limit:
            errors.append(invalid(path, "", f"can have at most {limit} characters"))
    message = str(obj.get("message") or "")
    if len(message) > 1024:
        errors.append(invalid(FieldPath("message"), "", "can have at most 1024 characters"))
    return errors


_CREATE: Final[dict[tuple[str, str], Create]] = {
    ("v1", "Pod"): pod.validate_pod,
    ("v1", "Namespace"): _validate_namespace,
    ("v1", "Node"): _validate_node,
    ("v1", "Event"): _validate_event,
    ("apps/v1", "ReplicaSet"): apps.validate_replica_set,
    ("apps/v1", "Deployment"): apps.validate_deployment,
    ("apps/v1", "StatefulSet"): apps.validate_stateful_set,
    ("v1", "ConfigMap"): core_config.validate_config_map,
    ("v1", "Secret"): core_config.validate_secret,
    ("v1", "ServiceAccount"): core_config.validate_service_account,
    ("v1", "Service"): service.validate_service,
    ("policy/v1", "PodDisruptionBudget"): policy.validate_pdb,
    ("coordination.k8s.io/v1", "Lease"): policy.validate_lease,
    ("events.k8s.io/v1", "Event"): lambda obj: events.validate_v1_event(obj, _validate_event),
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition"): crd.validate_crd,
}

_UPDATE: Final[dict[tuple[str, str], Update]] = {
    ("v1", "Pod"): pod.validate_pod_update,
    ("v1", "Namespace"): _meta_update,
    ("v1", "Node"): _meta_update,
    # Legacy core/v1 event updates run the create rules again and nothing else.
    ("v1", "Event"): lambda new, _old: _validate_event(new),
    ("apps/v1", "ReplicaSet"): apps.validate_replica_set_update,
    ("apps/v1", "Deployment"): apps.validate_deployment_update,
    ("apps/v1", "StatefulSet"): apps.validate_stateful_set_update,
    ("v1", "ConfigMap"): core_config.validate_config_map_update,
    ("v1", "Secret"): core_config.validate_secret_update,
    ("v1", "ServiceAccount"): core_config.validate_service_account_update,
    ("v1", "Service"): service.validate_service_update,
    ("policy/v1", "PodDisruptionBudget"): policy.validate_pdb_update,
    ("coordination.k8s.io/v1", "Lease"): policy.validate_lease_update,
    ("events.k8s.io/v1", "Event"): lambda new, old: events.validate_v1_event_update(
        new, old, _validate_event
    ),
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition"): crd.validate_crd_update,
}

_STATUS_UPDATE: Final[dict[tuple[str, str], Update]] = {
    ("v1", "Pod"): pod.validate_pod_status_update,
    ("v1", "Namespace"): _meta_update,
    ("v1", "Node"): _meta_update,
    ("apps/v1", "ReplicaSet"): apps.validate_replica_set_status_update,
    ("apps/v1", "Deployment"): apps.validate_deployment_status_update,
    ("apps/v1", "StatefulSet"): apps.validate_stateful_set_status_update,
    ("v1", "Service"): _meta_update,
    ("policy/v1", "PodDisruptionBudget"): policy.validate_pdb_status_update,
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition"): crd.validate_crd_status_update,
}


_HpaValidators = tuple[Callable[..., list[FieldError]], Callable[[JSON], list[FieldError]]]
_HPA_VALIDATORS: list[_HpaValidators] = []


def _hpa_validators() -> _HpaValidators:
    """``hpa.validate_hpa`` and ``hpa.validate_scale``, imported on first use so the HPA
    modules, which import names/objectmeta from this package, can be loaded first without a
    cycle through this __init__; then kept, as an import statement costs every call."""
    if not _HPA_VALIDATORS:
        from podscale.api.validation.hpa import validate_hpa, validate_scale

        _HPA_VALIDATORS.append((validate_hpa, validate_scale))
    return _HPA_VALIDATORS[0]


def validate(
    obj: JSON,
    *,
    old: JSON | None = None,
    subresource: str | None = None,
    feature_gates: frozenset[str] = DEFAULT_FEATURE_GATES,
) -> list[FieldError]:
    """Field errors for a create (``old is None``), an update, or a subresource write.

    ``subresource="status"`` validates a status write (``old`` required); ``"scale"`` expects
    ``obj`` to be the autoscaling/v1 ``Scale`` being written, whatever its parent kind.
    ``feature_gates`` only affects HorizontalPodAutoscalers.
    """
    validate_hpa, validate_scale = _hpa_validators()
    api_version = str(obj.get("apiVersion", ""))
    kind = str(obj.get("kind", ""))
    if subresource == "scale" or (api_version, kind) == ("autoscaling/v1", "Scale"):
        return validate_scale(obj)
    if kind == "HorizontalPodAutoscaler" and api_version in _HPA_VERSIONS:
        return validate_hpa(obj, old=old, subresource=subresource, feature_gates=feature_gates)
    key = (api_version, kind)
    if subresource == "finalize" and key == ("v1", "Namespace"):
        if old is None:
            raise ValueError("a finalize update needs the old object")
        return _validate_namespace_finalize(obj, old)
    if subresource not in (None, "status"):
        raise ValueError(f"no validation for subresource {subresource!r}")
    if subresource == "status" or old is not None:
        if old is None:
            raise ValueError("a status update needs the old object")
        table = _STATUS_UPDATE if subresource == "status" else _UPDATE
        update = table.get(key)
        return update(obj, old) if update is not None else []
    create = _CREATE.get(key)
    return create(obj) if create is not None else []
