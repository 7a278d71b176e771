"""KEDA's validating webhook ``vscaledobject.kb.io`` as the API server's admission hook.

KEDA's install brings its admission webhook with the operator; podscale's plane registers
``scaled_object_hook`` on the server's ``ServerState.admission_hooks`` when it runs the
``keda-operator`` controller, so a ScaledObject ``validation.admission_error`` refuses is
refused on create and update as on a KEDA cluster (403 Forbidden, ``admission webhook
"vscaledobject.kb.io" denied the request: <KEDA's message>``), and the operator's
``Ready=False ScaledObjectCheckFailed`` path is left for objects stored without the hook.

``validate`` gathers what KEDA's webhook reads from the cluster through the hook's
read-only store view: the ScaledObjects and HPAs of the namespace, the target's pod template
containers (a Deployment or StatefulSet, only when a cpu/memory trigger asks and not on a dry
run, as KEDA), and the resources a Container LimitRange of the namespace defaults. As in
KEDA: an update that only drops finalizers (the spec unchanged) is not checked; a missing
Deployment or StatefulSet behind a cpu/memory trigger is refused with the API's NotFound,
which KEDA's webhook passes on as its answer. The webhook's ``failurePolicy`` is Ignore.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from podscale.api.quantity import Quantity, QuantityError
from podscale.apiserver.registry.admission_hooks import (
    AdmissionRequest,
    Denial,
    StoreReader,
    ValidatingHook,
)
from podscale.controllers.keda.kind import CRD_NAME, GROUP, KIND
from podscale.controllers.keda.reading import parse_scaled_object
from podscale.controllers.keda.types import ScaledObject, ScaledObjectError
from podscale.controllers.keda.validation import WEBHOOK_NAME, admission_error

__all__ = ["scaled_object_hook", "validate"]

JSON = dict[str, Any]

_HPAS: Final = "horizontalpodautoscalers.autoscaling"
_LIMIT_RANGES: Final = "limitranges"
# The targets whose pod template KEDA's webhook reads, by GVK string: their GroupResource.
_POD_TEMPLATE_RESOURCES: Final = {
    "apps/v1.Deployment": ("apps", "deployments"),
    "apps/v1.StatefulSet": ("apps", "statefulsets"),
}
_RESOURCES: Final = ("cpu", "memory")


def scaled_object_hook() -> ValidatingHook:
    """KEDA's ``vscaledobject.kb.io`` for ``keda.sh`` ScaledObjects (failurePolicy Ignore)."""
    return ValidatingHook(WEBHOOK_NAME, GROUP, KIND, validate, failure_policy="Ignore")


def validate(request: AdmissionRequest) -> Denial | None:
    """KEDA's ``ValidateCreate``/``ValidateUpdate`` for one ScaledObject write."""
    if request.old is not None and _removes_finalizer(request.obj, request.old):
        return None
    try:
        so = parse_scaled_object(request.obj)
    except ScaledObjectError:
        return None  # not KEDA's to decide: the operator reports what it cannot read
    reader = request.reader
    containers: Sequence[Mapping[str, Any]] = ()
    defaults: frozenset[str] = frozenset()
    if not request.dry_run and any(t.is_resource for t in so.triggers):
        found = _pod_template_containers(reader, so)
        if isinstance(found, Denial):
            return found
        containers = found
        defaults = _limit_range_defaults(reader.list(_LIMIT_RANGES, so.namespace))
    message = admission_error(
        so,
        others=_scaled_objects(reader.list(CRD_NAME, so.namespace)),
        hpas=reader.list(_HPAS, so.namespace),
        containers=containers,
        limit_range_defaults=defaults,
        dry_run=request.dry_run,
    )
    return None if message is None else Denial(message)


def _removes_finalizer(obj: Mapping[str, Any], old: Mapping[str, Any]) -> bool:
    """KEDA's ``isRemovingFinalizer``: fewer finalizers, the same spec."""
    new_finalizers = (obj.get("metadata") or {}).get("finalizers") or ()
    old_finalizers = (old.get("metadata") or {}).get("finalizers") or ()
    return len(new_finalizers) < len(old_finalizers) and obj.get("spec") == old.get("spec")


def _pod_template_containers(
    reader: StoreReader, so: ScaledObject
) -> Sequence[Mapping[str, Any]] | Denial:
    """The target's containers; its absence is the API's NotFound, as KEDA's webhook
    returns the error of its read. Other kinds have none to check."""
    resource = _POD_TEMPLATE_RESOURCES.get(so.scale_target.gvk_string)
    if resource is None:
        return ()
    group, plural = resource
    name = so.scale_target.name
    target = reader.get(f"{plural}.{group}", so.namespace, name)
    if target is None:
        return Denial(
            f'{plural}.{group} "{name}" not found',
            code=404,
            reason="NotFound",
            details={"name": name, "group": group, "kind": plural},
        )
    template = (target.get("spec") or {}).get("template") or {}
    return list((template.get("spec") or {}).get("containers") or ())


def _limit_range_defaults(limit_ranges: Sequence[Mapping[str, Any]]) -> frozenset[str]:
    """The resources a Container LimitRange item defaults (a default request or limit,
    one of them above zero), as KEDA's ``isContainerResourceLimitSet`` reads them."""
    found: set[str] = set()
    for limit_range in limit_ranges:
        for item in (limit_range.get("spec") or {}).get("limits") or ():
            if item.get("type") != "Container":
                continue
            for resource in _RESOURCES:
                given = [
                    (item.get(part) or {})[resource]
                    for part in ("default", "defaultRequest")
                    if resource in (item.get(part) or {})
                ]
                if any(_positive(value) for value in given):
                    found.add(resource)
    return frozenset(found)


def _positive(value: Any) -> bool:
    try:
        return Quantity.parse(str(value)).sign() > 0
    except QuantityError:
        return False


def _scaled_objects(items: Sequence[Mapping[str, Any]]) -> list[ScaledObject]:
    """The namespace's ScaledObjects KEDA's webhook compares with (terminating ones too)."""
    parsed: list[ScaledObject] = []
    for item in items:
        try:
            parsed.append(parse_scaled_object(item))
        except ScaledObjectError:
            continue
    return parsed
