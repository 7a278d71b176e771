"""The ``pods/binding`` subresource without HTTP: how a scheduler assigns a pod to a node.

``spec.nodeName`` cannot change through a pod update (validation forbids it); a scheduler
POSTs a v1 ``Binding`` (``metadata.name`` the pod's, ``target`` the node) instead, and the
pod gets its node, the Binding's annotations and labels, and ``PodScheduled=True`` in one
store write (upstream's ``BindingREST.Create``, ``assignPod``, ``setPodNodeAndMetadata`` in
pkg/registry/core/pod/storage/storage.go). The reply is a bare ``Status`` Success, which
the create handler answers with 201. Shells: ``handlers_write.create_binding`` (HTTP) and
``podscale.client.inprocess`` (``create(..., subresource="binding")``); inputs and results
are ``operations.types``'.

Failures keep upstream v1.35's codes and texts: a name other than the URL's is a 400; a bad
``target`` is the aggregate of ``ValidatePodBinding``'s field errors, which upstream returns
as a plain error, hence a 500 without reason (not a 422: kubernetes#139488 is still open);
a missing pod is the usual 404; a pod that is bound, terminating or still gated is a 409
Conflict on ``pods/binding``; a stale uid or resourceVersion on the Binding (kube-scheduler
sends the pod's uid) is a 409 Conflict on ``pods``.
"""

from __future__ import annotations

from typing import Any, Final

from podscale.api.field_errors import ErrorType, FieldError, invalid_status, required
from podscale.api.kinds import KindInfo, kind_for
from podscale.apiserver.errors import ApiError, bad_request, conflict, from_store_error
from podscale.apiserver.openapi.types import type_mismatches
from podscale.apiserver.operations.types import Payload, Written, decode_object_payload
from podscale.apiserver.operations.verbs import check_namespace, get_object
from podscale.apiserver.registry import admission, namespace_lifecycle
from podscale.apiserver.resources import storage_resource, to_storage
from podscale.apiserver.state import ServerState
from podscale.store.interface import ConflictError, Preconditions, StoreError
from podscale.store.objects import check_preconditions, error_conflict, format_timestamp

__all__ = ["BINDING", "create_binding", "success_status", "validate_binding"]

JSON = dict[str, Any]

BINDING: Final = kind_for("v1", "Binding")
# The error wrapping: a refused assignment is a Conflict on this GroupResource string.
_BINDING_RESOURCE: Final = "pods/binding"
# ``GuaranteedUpdate`` retries a lost optimistic race from a fresh read; bounded here.
_RETRIES: Final = 5


def success_status(code: int = 201) -> JSON:
    """``metav1.Status{Status: Success}`` with the code the create handler fills in."""
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": code}


def validate_binding(binding: JSON) -> list[FieldError]:
    """``ValidatePodBinding``: the target is a Node (or unnamed kind) and has a name.

    The supported values are listed in upstream's order, not sorted, so the error is
    built directly rather than with ``not_supported`` (which sorts).
    """
    target = binding.get("target") or {}
    errors: list[FieldError] = []
    kind = target.get("kind") or ""
    if kind and kind != "Node":
        detail = 'supported values: "Node", "<empty>"'
        errors.append(FieldError(ErrorType.NOT_SUPPORTED, "target.kind", kind, detail))
    if not target.get("name"):
        errors.append(required("target.name"))
    return errors


def _aggregate_failure(name: str, errors: list[FieldError]) -> ApiError:
    """A bad Binding target is 422 Invalid on ``pods/binding``.

    Upstream (v1.35) returns ``errs.ToAggregate()`` bare, which its handler renders as a
    500 (kubernetes/kubernetes#139488; the open fix, #139581, makes it 422). podscale never
    answers bad input with a 500, so it takes the fix's side: the same field errors in an
    Invalid Status."""
    return ApiError(invalid_status("Binding", "", name, errors))


def _decode_binding(
    body: Payload, namespace: str | None, options: admission.WriteOptions
) -> tuple[JSON, list[str]]:
    """The Binding of ``body`` and its unknown-field warnings, checked in decoding order."""
    binding = decode_object_payload(body, "v1", "Binding")
    admission.check_type(binding, BINDING)
    mismatches = type_mismatches("v1", "Binding", binding)
    if mismatches:
        raise bad_request(
            'Binding in version "v1" cannot be handled as a Binding: ' + mismatches[0].message()
        )
    warnings = admission.check_unknown_fields(binding, options)
    check_namespace(binding, BINDING, namespace)
    return binding, warnings


def _refused(name: str, reason: str) -> ApiError:
    """``assignPod``: any refusal that is not already a Status becomes a Conflict."""
    message = f'Operation cannot be fulfilled on {_BINDING_RESOURCE} "{name}": {reason}'
    return conflict(_BINDING_RESOURCE, name, message)


def _check_assignable(pod: JSON) -> None:
    meta = pod.get("metadata") or {}
    spec = pod.get("spec") or {}
    name = str(meta.get("name", ""))
    if meta.get("deletionTimestamp"):
        raise _refused(name, f"pod {name} is being deleted, cannot be assigned to a host")
    node = spec.get("nodeName") or ""
    if node:
        raise _refused(name, f'pod {name} is already assigned to node "{node}"')
    if spec.get("schedulingGates"):
        raise _refused(name, f"pod {name} has non-empty .spec.schedulingGates")


def _string_map(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


def _assign(pod: JSON, node_name: str, binding_meta: JSON, now: str) -> None:
    """Bind ``pod`` (a fresh copy) in place: node, metadata, nomination, condition."""
    pod.setdefault("spec", {})["nodeName"] = node_name
    metadata = pod["metadata"]
    annotations = _string_map(binding_meta.get("annotations"))
    if annotations:
        metadata["annotations"] = {**_string_map(metadata.get("annotations")), **annotations}
    # PodTopologyLabelsAdmission (beta, on in v1.35): the Binding's labels overwrite the pod's.
    labels = _string_map(binding_meta.get("labels"))
    if labels:
        metadata["labels"] = {**_string_map(metadata.get("labels")), **labels}
    status = pod.get("status")
    if not isinstance(status, dict):
        status = pod["status"] = {}
    # ClearingNominatedNodeNameAfterBinding (beta, on): the nomination is stale once bound.
    status.pop("nominatedNodeName", None)
    _set_scheduled(status, now)


def _set_scheduled(status: JSON, now: str) -> None:
    """``UpdatePodCondition`` with PodScheduled=True: the condition is replaced whole (an
    old reason or message goes), and its transition time moves only if it was not True."""
    conditions = status.get("conditions")
    conditions = list(conditions) if isinstance(conditions, list) else []
    condition: JSON = {
        "type": "PodScheduled",
        "status": "True",
        "lastProbeTime": None,
        "lastTransitionTime": now,
    }
    for index, old in enumerate(conditions):
        if isinstance(old, dict) and old.get("type") == "PodScheduled":
            if old.get("status") == "True":
                condition["lastTransitionTime"] = old.get("lastTransitionTime")
            conditions[index] = condition
            break
    else:
        conditions.append(condition)
    status["conditions"] = conditions


def _preconditions(binding_meta: JSON) -> Preconditions | None:
    uid = binding_meta.get("uid") or None
    version = binding_meta.get("resourceVersion") or None
    if uid is None and version is None:
        return None
    return Preconditions(uid=uid, resource_version=version)


def create_binding(
    state: ServerState,
    info: KindInfo,
    namespace: str | None,
    name: str,
    body: Payload,
    options: admission.WriteOptions,
) -> Written:
    """POST ``pods/{name}/binding``: bind the pod; the Success ``Status`` and the warnings."""
    binding, warnings = _decode_binding(body, namespace, options)
    namespace_lifecycle.admit(state, info, "create", namespace, name)
    binding_meta = binding["metadata"]
    if (binding_meta.get("name") or "") != name:
        raise bad_request("name in URL does not match name in Binding object")
    errors = validate_binding(binding)
    if errors:
        raise _aggregate_failure(name, errors)
    node_name = str(binding["target"]["name"])
    preconditions = _preconditions(binding_meta)
    resource = storage_resource(info)
    for _ in range(_RETRIES):
        pod = get_object(state, info, namespace, name)
        try:
            check_preconditions(resource, pod, preconditions)
        except StoreError as err:
            raise from_store_error(err, resource, name) from None
        _check_assignable(pod)
        _assign(pod, node_name, binding_meta, format_timestamp(state.clock.now()))
        if options.dry_run:
            return Written(success_status(), warnings)
        try:
            # The read's resourceVersion guards the write: a pod changed meanwhile is re-read.
            state.store.update(resource, to_storage(pod, info))
        except ConflictError:
            continue
        except StoreError as err:
            raise from_store_error(err, resource, name) from None
        return Written(success_status(), warnings)
    # Every retry lost its race: the store's optimistic-lock Conflict on the pod.
    raise from_store_error(error_conflict(resource, name), resource, name)
