"""Validating admission hooks: in-process stand-ins for validating admission webhooks.

A product whose install ships a validating webhook (KEDA's ``vscaledobject.kb.io``)
registers a ``ValidatingHook`` for the (group, kind) its webhook's rules name on the
server's ``ServerState.admission_hooks``. ``operations.write_verbs`` runs ``admit`` on create and
on update or patch of the main resource (never on ``/status`` or ``/scale``: a webhook rule
naming ``scaledobjects`` does not match its subresources), after the built-in or schema
validation and before the write, where kube-apiserver runs validating admission. Dry runs
call the hooks too, with ``dry_run`` set, as kube-apiserver calls a webhook declaring
``sideEffects: None``.

A hook answers None (allowed) or a ``Denial``: the ``Status`` its AdmissionResponse would
carry, by default controller-runtime's ``Denied`` (403 Forbidden). ``admit`` turns it into
the error kube-apiserver makes of a webhook's refusal (``webhook/errors.ToStatusErr``):
the message behind ``admission webhook "<name>" denied the request: ``, a code below 400
raised to 400, status Failure, the rest (reason, details) as the hook gave them. A hook that
raises is a webhook that could not be called: with ``failure_policy`` Ignore the write goes
on, with Fail it is the 500 ``failed calling webhook``.

Hooks see other objects through ``StoreReader``: stored objects (their storage version) by
GroupResource (``horizontalpodautoscalers.autoscaling``, ``scaledobjects.keda.sh``); they
cannot write.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Protocol

from podscale.apiserver.errors import ApiError, status_body
from podscale.store.interface import NotFoundError, Store

__all__ = [
    "AdmissionHooks",
    "AdmissionRequest",
    "Denial",
    "StoreReader",
    "StoreView",
    "ValidatingHook",
    "admit",
    "denial_status",
]

JSON = dict[str, Any]
Operation = Literal["CREATE", "UPDATE"]

_LOG: Final = logging.getLogger(__name__)


class StoreReader(Protocol):
    """What a hook may read: stored objects by GroupResource, in their storage version."""

    def get(self, resource: str, namespace: str, name: str) -> JSON | None: ...

    def list(self, resource: str, namespace: str) -> list[JSON]: ...


@dataclass(frozen=True)
class StoreView:
    """A ``StoreReader`` over the server's store (a missing object is None)."""

    store: Store

    def get(self, resource: str, namespace: str, name: str) -> JSON | None:
        try:
            return self.store.get(resource, namespace, name)
        except NotFoundError:
            return None

    def list(self, resource: str, namespace: str) -> list[JSON]:
        return list(self.store.list(resource, namespace).items)


@dataclass(frozen=True)
class AdmissionRequest:
    """One write as a hook sees it: ``obj`` as admitted so far (defaulted and validated,
    in the request's version), ``old`` the stored object of an update (None on create)."""

    operation: Operation
    obj: Mapping[str, Any]
    old: Mapping[str, Any] | None
    namespace: str
    dry_run: bool
    reader: StoreReader


@dataclass(frozen=True)
class Denial:
    """A hook's refusal: the ``Status`` fields of its AdmissionResponse."""

    message: str
    code: int = 403
    reason: str = "Forbidden"
    details: Mapping[str, Any] | None = None


Validate = Callable[[AdmissionRequest], Denial | None]


@dataclass(frozen=True)
class ValidatingHook:
    """A validating webhook of ``name`` for the objects of ``group``/``kind``."""

    name: str
    group: str
    kind: str
    validate: Validate
    failure_policy: Literal["Fail", "Ignore"] = "Fail"


@dataclass
class AdmissionHooks:
    """The hooks of one server, in registration order (as webhooks of one configuration
    run); registering a hook of the same name again replaces it."""

    _hooks: list[ValidatingHook] = field(default_factory=list)

    def register(self, hook: ValidatingHook) -> None:
        self._hooks = [h for h in self._hooks if h.name != hook.name] + [hook]

    def for_kind(self, group: str, kind: str) -> tuple[ValidatingHook, ...]:
        return tuple(h for h in self._hooks if h.group == group and h.kind == kind)


def denial_status(name: str, denial: Denial) -> JSON:
    """The ``Status`` kube-apiserver answers when webhook ``name`` refuses with ``denial``."""
    denied_by = f'admission webhook "{name}" denied the request'
    if denial.message:
        message = f"{denied_by}: {denial.message}"
    elif denial.reason:
        message = f"{denied_by}: {denial.reason}"
    else:
        message = f"{denied_by} without explanation"
    # Go's Status: reason and details are omitted when empty; a refusal is never below 400.
    body: JSON = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
    }
    if denial.reason:
        body["reason"] = denial.reason
    if denial.details is not None:
        body["details"] = dict(denial.details)
    body["code"] = max(denial.code, 400)
    return body


def _call_failed(name: str, error: Exception) -> JSON:
    return status_body(
        500,
        f'Internal error occurred: failed calling webhook "{name}": {error}',
        "InternalError",
        {"causes": [{"message": f'failed calling webhook "{name}": {error}'}]},
    )


def admit(hooks: AdmissionHooks, group: str, kind: str, request: AdmissionRequest) -> None:
    """Run the hooks of ``group``/``kind`` on ``request``; the first refusal raises its
    ``ApiError``."""
    for hook in hooks.for_kind(group, kind):
        try:
            denial = hook.validate(request)
        except Exception as err:  # a hook's own failure is a webhook call that failed
            if hook.failure_policy == "Ignore":
                _LOG.warning("admission hook %s failed, ignored: %s", hook.name, err)
                continue
            raise ApiError(_call_failed(hook.name, err)) from None
        if denial is not None:
            raise ApiError(denial_status(hook.name, denial))
