"""KEDA's admission rules for a ScaledObject, with KEDA's messages.

KEDA's validating webhook (``vscaledobject.kb.io``) refuses a ScaledObject on create and
update with the first error of its checks, in this order, and ``admission_error`` runs them
so: cpu/memory triggers (each container of a Deployment or StatefulSet target must request
or limit the resource unless a LimitRange defaults it, and cpu/memory-only triggers cannot
scale to zero); another ScaledObject on the same target, then the scaling modifiers
(formula and target); an HPA already on the target unless this ScaledObject owns it or asks
for the ownership transfer; the replica bounds; the fallback; the triggers (unique names,
``useCachedMetrics`` not on cpu, memory or cron). Each check is also a function of its own.

The rules are pure: what KEDA's webhook reads from the cluster (the other ScaledObjects and
HPAs of the namespace, the target's containers, the LimitRange defaults) comes in as
arguments, so the caller (an admission shell, a scenario loader) gathers them. Compiling the
formula is the formula module's part (``formula.compile_formula``); here a formula must only
be present with a target. The fallback rules are KEDA 2.17's (at least one trigger other
than cpu/memory with an ``AverageValue`` target, an empty ``metricType`` counting as one; with
scaling modifiers, theirs must be ``AverageValue``). ``denial`` words a refusal as the API
server reports a webhook's.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any, Final

from podscale.api.quantity import Quantity, QuantityError
from podscale.controllers.keda.kind import KIND
from podscale.controllers.keda.types import (
    AVERAGE_VALUE,
    TRANSFER_HPA_OWNERSHIP_ANNOTATION,
    VALIDATE_HPA_OWNERSHIP_ANNOTATION,
    ScaledObject,
    ScaleTarget,
)

__all__ = [
    "WEBHOOK_NAME",
    "admission_error",
    "check_cpu_memory",
    "check_fallback",
    "check_hpas",
    "check_replica_counts",
    "check_scaled_objects",
    "check_scaling_modifiers",
    "check_triggers",
    "denial",
]

WEBHOOK_NAME: Final = "vscaledobject.kb.io"
# The targets whose pod template KEDA's webhook reads for the cpu/memory checks; for any
# other kind it skips both (the scale-to-zero rule included), as KEDA does.
_POD_TEMPLATE_TARGETS: Final = ("apps/v1.Deployment", "apps/v1.StatefulSet")
_NO_CACHED_METRICS: Final = ("cpu", "memory", "cron")
# Go's strconv.ParseFloat syntax: decimal or hexadecimal (with p exponent) floats,
# inf/infinity/nan in any case, an optional sign; underscores only with a base prefix.
_GO_DECIMAL: Final = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_GO_HEX: Final = re.compile(r"[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+")
_GO_SPECIAL: Final = re.compile(r"[+-]?(inf|infinity)|nan", re.IGNORECASE)


def _quote(text: str) -> str:
    """Go's ``%q`` for the plain strings these messages quote."""
    return json.dumps(text, ensure_ascii=False)


def denial(message: str) -> str:
    """The message the API server returns when KEDA's webhook refuses an object."""
    return f'admission webhook "{WEBHOOK_NAME}" denied the request: {message}'


def _positive(value: Any) -> bool:
    try:
        return Quantity.parse(str(value)).sign() > 0
    except QuantityError:
        return False


def _resource_set(container: Mapping[str, Any], resource: str) -> bool:
    """A request or a limit for ``resource`` is given, and one of them is above zero."""
    resources = container.get("resources") or {}
    given = [
        (resources.get(part) or {})[resource]
        for part in ("requests", "limits")
        if resource in (resources.get(part) or {})
    ]
    return any(_positive(value) for value in given)


def check_cpu_memory(
    so: ScaledObject,
    containers: Sequence[Mapping[str, Any]] = (),
    limit_range_defaults: Collection[str] = (),
) -> str | None:
    """KEDA's ``verifyCPUMemoryScalers``: ``containers`` are the target's pod template
    containers, ``limit_range_defaults`` the resources a Container LimitRange of the
    namespace defaults (request or limit above zero). Skipped for other target kinds."""
    if so.scale_target.gvk_string not in _POD_TEMPLATE_TARGETS:
        return None
    for trigger in so.triggers:
        if not trigger.is_resource:
            continue
        wanted = trigger.metadata.get("containerName", "")
        for container in containers:
            name = str(container.get("name", ""))
            if wanted and name != wanted:
                continue
            if not _resource_set(container, trigger.type) and (
                trigger.type not in limit_range_defaults
            ):
                return (
                    f"the scaledobject has a {trigger.type} trigger but the container "
                    f"{name} doesn't have the {trigger.type} request defined"
                )
        only_resources = all(other.is_resource for other in so.triggers)
        if only_resources and so.min_replica_count == 0:
            return (
                "scaledobject has only cpu/memory triggers AND minReplica is 0 "
                "(scale to zero doesn't work in this case)"
            )
    return None


def check_scaled_objects(so: ScaledObject, others: Sequence[ScaledObject]) -> str | None:
    """KEDA's ``verifyScaledObjects``: no other ScaledObject of the namespace scales the
    same target (same group/version/kind and name); then the scaling modifiers."""
    for other in others:
        if other.name == so.name:
            continue
        if _same_target(other.scale_target, so.scale_target):
            return (
                f"the workload '{other.scale_target.name}' of type "
                f"'{so.scale_target.gvk_string}' is already managed by the ScaledObject "
                f"'{other.name}'"
            )
    if so.advanced.scaling_modifiers.in_use:
        return check_scaling_modifiers(so)
    return None


def _same_target(a: ScaleTarget, b: ScaleTarget) -> bool:
    return a.gvk_string == b.gvk_string and a.name == b.name


def check_scaling_modifiers(so: ScaledObject) -> str | None:
    """KEDA's ``ValidateAndCompileScalingModifiers`` short of compiling the formula: a
    formula, with a target; a target a positive float; a metric type not Utilization.
    KEDA joins its errors with a newline (Go's ``errors.Join``)."""
    mods = so.advanced.scaling_modifiers
    if not mods.formula:
        return "error ScalingModifiers.Formula is mandatory"
    if not mods.target:
        return "error validating formula in ScalingModifiers\nformula is given but target is empty"
    value, error = _parse_go_float(mods.target)
    if error is not None or value <= 0.0:
        # KEDA wraps a nil error when the number parsed but is not positive: Go prints it so.
        cause = error if error is not None else "%!w(<nil>)"
        return (
            "error validating target in ScalingModifiers\nerror converting target for "
            f"scalingModifiers (string->float) to valid target: {cause}"
        )
    if mods.metric_type == "Utilization":
        return (
            "error validating target in ScalingModifiers\nerror trigger type is Utilization, "
            "but it needs to be AverageValue or Value for external metrics"
        )
    return None


def _parse_go_float(text: str) -> tuple[float, str | None]:
    """Go's ``strconv.ParseFloat(text, 64)``: the value, and the error text if any."""
    syntax = f"strconv.ParseFloat: parsing {_quote(text)}: invalid syntax"
    if _GO_SPECIAL.fullmatch(text):
        return float(text.lower().replace("infinity", "inf")), None
    if _GO_HEX.fullmatch(text):
        sign = -1.0 if text.startswith("-") else 1.0
        try:
            value = sign * float.fromhex(text.lstrip("+-"))
        except OverflowError:
            return (
                sign * math.inf,
                f"strconv.ParseFloat: parsing {_quote(text)}: value out of range",
            )
        return value, None
    if not _GO_DECIMAL.fullmatch(text):
        return 0.0, syntax
    value = float(text)
    if math.isinf(value):
        return value, f"strconv.ParseFloat: parsing {_quote(text)}: value out of range"
    return value, None


def check_hpas(so: ScaledObject, hpas: Sequence[Mapping[str, Any]]) -> str | None:
    """KEDA's ``verifyHpas``: no HPA of the namespace (``hpas``, their JSON) scales the
    same target unless this ScaledObject owns it, or asks for its ownership by naming it in
    ``advanced.horizontalPodAutoscalerConfig.name`` with the transfer annotation. An HPA
    annotated ``validations.keda.sh/hpa-ownership: "false"`` is not checked."""
    for hpa in hpas:
        meta = hpa.get("metadata") or {}
        if (meta.get("annotations") or {}).get(VALIDATE_HPA_OWNERSHIP_ANNOTATION) == "false":
            continue
        ref = (hpa.get("spec") or {}).get("scaleTargetRef") or {}
        target = ScaleTarget(
            name=str(ref.get("name", "")),
            api_version=str(ref.get("apiVersion") or "apps/v1"),
            kind=str(ref.get("kind") or "Deployment"),
        )
        if not _same_target(target, so.scale_target):
            continue
        owners = meta.get("ownerReferences") or ()
        if any(o.get("kind") == KIND and o.get("name") == so.name for o in owners):
            continue
        transfer = so.annotations.get(TRANSFER_HPA_OWNERSHIP_ANNOTATION) == "true"
        if transfer and so.advanced.hpa_name == meta.get("name"):
            continue
        return (
            f"the workload '{so.scale_target.name}' of type '{so.scale_target.gvk_string}' "
            f"is already managed by the hpa '{meta.get('name', '')}'"
        )
    return None


def check_replica_counts(so: ScaledObject) -> str | None:
    """KEDA's ``CheckReplicaCountBoundsAreValid``. The minimum it compares is the HPA's
    (1 for an explicit 0) when ``minReplicaCount`` is written, else 0: so ``idle 0`` passes
    with ``min 0`` written and fails with ``min`` left out, as in KEDA."""
    low = so.hpa_min_replicas if so.min_replica_count_set else 0
    high = so.hpa_max_replicas
    if low > high:
        return f"MinReplicaCount={low} must be less than MaxReplicaCount={high}"
    idle = so.idle_replica_count
    if idle is not None and idle >= low:
        return f"IdleReplicaCount={idle} must be less than MinReplicaCount={low}"
    return None


def check_fallback(so: ScaledObject) -> str | None:
    """KEDA's ``CheckFallbackValid`` (2.17): non-negative numbers; a metric the fallback
    can stand in for (see the module docstring)."""
    fallback = so.fallback
    if fallback is None:
        return None
    if fallback.failure_threshold < 0 or fallback.replicas < 0:
        return (
            f"FailureThreshold={fallback.failure_threshold} & Replicas={fallback.replicas} "
            "must both be greater than or equal to 0"
        )
    mods = so.advanced.scaling_modifiers
    if mods.in_use:
        if (mods.metric_type or AVERAGE_VALUE) != AVERAGE_VALUE:
            return (
                "ScaledObject.Spec.Advanced.ScalingModifiers.MetricType must be AverageValue "
                "to have fallback enabled"
            )
        return None
    if not any(t.target_type == AVERAGE_VALUE for t in so.triggers if not t.is_resource):
        return (
            "at least one trigger (that is not cpu or memory) has to have the `AverageValue` "
            "type for the fallback to be enabled"
        )
    return None


def check_triggers(so: ScaledObject) -> str | None:
    """KEDA's ``ValidateTriggers``: ``useCachedMetrics`` only where a scaler caches, and
    trigger names unique (an unnamed trigger is never a duplicate)."""
    seen: set[str] = set()
    for trigger in so.triggers:
        if trigger.use_cached_metrics and trigger.type in _NO_CACHED_METRICS:
            return f'property "useCachedMetrics" is not supported for {_quote(trigger.type)} scaler'
        if trigger.name:
            if trigger.name in seen:
                return (
                    f"triggerName {_quote(trigger.name)} is defined multiple times in the "
                    "ScaledObject, but it must be unique"
                )
            seen.add(trigger.name)
    return None


def admission_error(
    so: ScaledObject,
    *,
    others: Sequence[ScaledObject] = (),
    hpas: Sequence[Mapping[str, Any]] = (),
    containers: Sequence[Mapping[str, Any]] = (),
    limit_range_defaults: Collection[str] = (),
    dry_run: bool = False,
) -> str | None:
    """The first of KEDA's admission errors for ``so``, in its webhook's order, or None.
    A dry run skips the cpu/memory checks, as KEDA's webhook does."""
    checks = (
        None if dry_run else check_cpu_memory(so, containers, limit_range_defaults),
        check_scaled_objects(so, others),
        check_hpas(so, hpas),
        check_replica_counts(so),
        check_fallback(so),
        check_triggers(so),
    )
    return next((error for error in checks if error is not None), None)
