"""What a replay scores: the target workload, its pods' CPU shape and the autoscalers.

Read from plain values: the scenario (``podscale.scenario.model.Scenario``) and each
autoscaler's objects (plain JSON, as a manifest file holds them). ``Autoscaler`` is one
run's input: a name for the report and the objects that replace the scenario's own
autoscalers (none: the scenario's are kept). An autoscaler is any of ``AUTOSCALER_KINDS``:
the HPA, podscale's PredictiveHorizontalPodAutoscaler, Crane's
EffectiveHorizontalPodAutoscaler, the CronHPA (with the HPA it sets), KEDA's ScaledObject,
Kapacity's IntelligentHorizontalPodAutoscaler.
They are read as plain JSON only, by the fields they share with the HPA
(``spec.scaleTargetRef``, ``spec.metrics``; a ScaledObject's target defaults to an
``apps/v1`` Deployment as KEDA's does, and its CPU target is its ``cpu`` trigger's), so
this module knows none of their controllers; a custom kind's
definition comes from the CRDs podscale ships (``podscale.controllers.shipped_crds``) when
the scenario does not define it. ``choose_target`` finds the workload the autoscalers
scale, ``describe_target`` what one of its pods asks for (the sums
over the pod template's containers: CPU request, CPU limit, CPU per request/s from the
workload's load profile). A custom target (any kind with a scale subresource) has no pod
template: its controller makes the pods, so its shape is read from the first pod a run saw
(``shape_of_pod``, over that pod's containers). ``target_utilization`` the CPU utilization
an HPA aims at, which ``podscale.replay.measures.needed_pods`` divides by.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from podscale.api.quantity import parse_quantity
from podscale.controllers.shipped_crds import INSTALLED_WITH, SHIPPED_CRDS, shipped_definition
from podscale.scenario.model import Manifest, Scenario, Workload

__all__ = [
    "AUTOSCALER_KINDS",
    "COMPARISON_UTILIZATION",
    "HPA_KIND",
    "Autoscaler",
    "TargetShape",
    "choose_target",
    "choose_utilization",
    "describe_target",
    "replace_autoscalers",
    "shape_of_pod",
    "target_utilization",
]

JSON = dict[str, Any]
HPA_KIND: Final = "HorizontalPodAutoscaler"
# The kinds a replay swaps: each scales its spec.scaleTargetRef (a CronHPA's may name an HPA).
AUTOSCALER_KINDS: Final = frozenset(
    {
        HPA_KIND,
        "PredictiveHorizontalPodAutoscaler",  # autoscaling.podscale.dev
        "EffectiveHorizontalPodAutoscaler",  # autoscaling.crane.io
        "CronHorizontalPodAutoscaler",  # autoscaling.alibabacloud.com
        "ScaledObject",  # keda.sh
        "IntelligentHorizontalPodAutoscaler",  # autoscaling.kapacitystack.io
    }
)
_SCALED_OBJECT: Final = "ScaledObject"
_IHPA: Final = "IntelligentHorizontalPodAutoscaler"
# Those whose spec.metrics default as the HPA's does (80% CPU) when absent; a CronHPA has
# no metrics of its own, a ScaledObject has triggers instead, an IHPA portrait providers.
_METRIC_KINDS: Final = AUTOSCALER_KINDS - {"CronHorizontalPodAutoscaler", _SCALED_OBJECT, _IHPA}
# The rule: autoscalers aiming at different utilizations are compared at 50%.
COMPARISON_UTILIZATION: Final = 50
_CRD_KIND: Final = "CustomResourceDefinition"
# Upstream's default when an HPA names no metric (both v1 and v2 default to 80% CPU).
DEFAULT_CPU_UTILIZATION: Final = 80


@dataclass(frozen=True, slots=True)
class Autoscaler:
    """One run: ``name`` in the report, ``objects`` created instead of the scenario's
    HPAs (empty: the scenario as it is)."""

    name: str
    objects: tuple[JSON, ...] = field(default=(), hash=False)
    source: str = ""


@dataclass(frozen=True, slots=True)
class TargetShape:
    """The scored workload and one pod's CPU: millicores requested, limit (None when a
    container has none) and millicores per request/s of load."""

    workload: Workload
    selector: JSON = field(hash=False)
    cpu_request: float
    cpu_limit: float | None
    cpu_per_request: float


def _workload_ref(obj: JSON) -> JSON | None:
    """``spec.scaleTargetRef`` when it names a workload (not another autoscaler)."""
    spec = obj.get("spec")
    ref = spec.get("scaleTargetRef") if isinstance(spec, dict) else None
    if not isinstance(ref, dict) or ref.get("kind") in AUTOSCALER_KINDS:
        return None
    if obj.get("kind") == _SCALED_OBJECT:
        # KEDA's defaults: a ScaledObject naming only its target scales a Deployment.
        return {"apiVersion": "apps/v1", "kind": "Deployment", **ref}
    return ref


def _scale_target(objects: Sequence[JSON]) -> tuple[str, str, str] | None:
    """The workload the first object scaling one scales: (kind, namespace, name)."""
    for obj in objects:
        if (ref := _workload_ref(obj)) is not None:
            namespace = (obj.get("metadata") or {}).get("namespace") or "default"
            return str(ref.get("kind") or ""), str(namespace), str(ref.get("name") or "")
    return None


def _milli(value: Any) -> float:
    return float(parse_quantity(value).milli_value())


def choose_target(scenario: Scenario, autoscalers: Sequence[Autoscaler]) -> Workload:
    """The workload the first autoscaler scales (the scenario's first workload without
    one).
    Raises ``ValueError`` when it has no load, or when the autoscalers scale different
    workloads."""
    if not scenario.workloads:
        raise ValueError(f"scenario {scenario.name!r} has no workloads: nothing offers load")
    refs = {
        ref
        for a in autoscalers
        if (ref := _scale_target(a.objects or [m.object for m in scenario.manifests]))
    }
    if len(refs) > 1:
        listed = ", ".join("/".join(r) for r in sorted(refs))
        raise ValueError(f"the autoscalers must scale one workload, not {listed}")
    chosen = scenario.workloads[0]
    if refs:
        kind, namespace, name = next(iter(refs))
        matches = [
            w
            for w in scenario.workloads
            if (w.target.kind, w.target.namespace, w.target.name) == (kind, namespace, name)
        ]
        if not matches:
            raise ValueError(f"the autoscaler scales {kind}/{namespace}/{name}, which has no load")
        chosen = matches[0]
    return chosen


def describe_target(scenario: Scenario, chosen: Workload) -> TargetShape | None:
    """What one pod of ``chosen`` asks for, from its manifest's pod template; None for a
    custom target (no template: ``shape_of_pod`` reads a pod of a run instead). Raises
    ``ValueError`` when the pods request no CPU."""
    target = chosen.target
    if not target.built_in:
        return None
    manifest = next(
        m.object
        for m in scenario.manifests
        if (
            m.object.get("kind"),
            (m.object.get("metadata") or {}).get("namespace") or "default",
            (m.object.get("metadata") or {}).get("name"),
        )
        == (target.kind, target.namespace, target.name)
    )
    spec = manifest.get("spec") or {}
    containers = ((spec.get("template") or {}).get("spec") or {}).get("containers") or []
    return shape_of_pod(chosen, containers, dict(spec.get("selector") or {}))


def shape_of_pod(
    chosen: Workload, containers: Sequence[JSON], selector: JSON | None = None
) -> TargetShape:
    """The shape of a pod of ``chosen`` with ``containers`` (``selector``: the workload's
    pod selector, empty when its Scale says it instead). Raises ``ValueError`` when the
    pods request no CPU."""
    target = chosen.target
    request = limit = per_request = 0.0
    unlimited = False
    for container in containers:
        resources = container.get("resources") or {}
        cpu_request = (resources.get("requests") or {}).get("cpu")
        cpu_limit = (resources.get("limits") or {}).get("cpu")
        # As the API server defaults it: a limit without a request requests the limit.
        request += _milli(cpu_request if cpu_request is not None else cpu_limit or 0)
        unlimited = unlimited or cpu_limit is None
        limit += _milli(cpu_limit) if cpu_limit is not None else 0.0
        per_request += chosen.profile.cost_of(str(container.get("name"))).milli_cpu_per_rps
    if request <= 0:
        raise ValueError(f"{target} requests no CPU: needed pods cannot be computed")
    return TargetShape(
        chosen, dict(selector or {}), request, None if unlimited else limit, per_request
    )


def target_utilization(objects: Sequence[JSON]) -> int | None:
    """The CPU ``averageUtilization`` (percent) of the first autoscaler among ``objects``
    scaling a workload on metrics (an HPA, a PHPA, an EHPA: the same ``spec.metrics``): a
    Resource or ContainerResource cpu metric in autoscaling/v2's form, the
    ``targetCPUUtilizationPercentage`` of v1, 80 when it has no metrics at all; a
    ScaledObject's ``cpu`` trigger of type Utilization; an IHPA's first Dynamic portrait
    provider's cpu metric; None when it scales on something else (or there is no such
    autoscaler)."""
    for obj in objects:
        if obj.get("kind") == _SCALED_OBJECT and _workload_ref(obj) is not None:
            return _cpu_trigger_utilization(obj)
        if obj.get("kind") == _IHPA and _workload_ref(obj) is not None:
            return _dynamic_utilization(obj)
        if obj.get("kind") not in _METRIC_KINDS or _workload_ref(obj) is None:
            continue
        spec = obj.get("spec") or {}
        if str(obj.get("apiVersion")) == "autoscaling/v1":
            return int(spec.get("targetCPUUtilizationPercentage") or DEFAULT_CPU_UTILIZATION)
        metrics = spec.get("metrics")
        if not metrics:
            return DEFAULT_CPU_UTILIZATION
        return _cpu_utilization(metrics)
    return None


def _cpu_utilization(metrics: Sequence[JSON]) -> int | None:
    """The ``averageUtilization`` of the first cpu Resource/ContainerResource metric of
    type Utilization among autoscaling/v2 ``metrics``, or None."""
    for metric in metrics:
        source = metric.get("resource") or metric.get("containerResource") or {}
        target = source.get("target") or {}
        if source.get("name") == "cpu" and target.get("type") == "Utilization":
            return int(target.get("averageUtilization") or 0) or None
    return None


def _dynamic_utilization(ihpa: JSON) -> int | None:
    """The CPU utilization an IHPA's first Dynamic portrait provider with metrics aims at
    (its metrics are autoscaling/v2 MetricSpecs); None without one."""
    for provider in (ihpa.get("spec") or {}).get("portraitProviders") or ():
        dynamic = provider.get("dynamic") if isinstance(provider, dict) else None
        metrics = dynamic.get("metrics") if isinstance(dynamic, dict) else None
        if metrics:
            return _cpu_utilization(metrics)
    return None


def _cpu_trigger_utilization(scaled_object: JSON) -> int | None:
    """The ``value`` of a ScaledObject's first ``cpu`` trigger of type Utilization (its
    ``metadata.type`` wins over ``metricType``, as KEDA reads them); None without one."""
    for trigger in (scaled_object.get("spec") or {}).get("triggers") or ():
        if not isinstance(trigger, dict) or trigger.get("type") != "cpu":
            continue
        metadata = trigger.get("metadata") or {}
        if (metadata.get("type") or trigger.get("metricType")) != "Utilization":
            continue
        try:
            return int(str(metadata.get("value"))) or None
        except ValueError:
            return None
    return None


def choose_utilization(
    scenario: Scenario, autoscalers: Sequence[Autoscaler], override: int | None
) -> int:
    """``u`` in percent: ``override`` when given, else the autoscalers' common CPU target,
    else ``COMPARISON_UTILIZATION``."""
    if override is not None:
        return override
    own = [m.object for m in scenario.manifests]
    targets = {target_utilization(a.objects or own) for a in autoscalers}
    if len(targets) == 1 and (only := targets.pop()) is not None:
        return only
    return COMPARISON_UTILIZATION


def _defines(crd: JSON) -> tuple[str, str]:
    spec = crd.get("spec") or {}
    return str(spec.get("group") or ""), str((spec.get("names") or {}).get("kind") or "")


def _shipped_for(objects: Sequence[JSON], manifests: Sequence[Manifest]) -> list[Manifest]:
    """The shipped CRDs defining a kind among ``objects`` that ``manifests`` leave
    undefined (a PHPA's, say, when the scenario was written for an HPA)."""
    defined = {_defines(m.object) for m in manifests if m.object.get("kind") == _CRD_KIND}
    wanted = {
        (str(o.get("apiVersion") or "").rpartition("/")[0], str(o.get("kind") or ""))
        for o in objects
    }
    crds = {name: shipped_definition(name) for name in sorted(SHIPPED_CRDS)}
    # A kind's controller may need its companions' CRDs too (an IHPA writes ReplicaProfiles).
    with_controller = {INSTALLED_WITH[n] for n, crd in crds.items() if _defines(crd) in wanted}
    wanted |= {_defines(crds[n]) for n, by in INSTALLED_WITH.items() if by in with_controller}
    found = []
    for name, crd in crds.items():
        if _defines(crd) in wanted - defined:
            defined.add(_defines(crd))
            found.append(Manifest(f"podscale:{name}", crd))
    return found


def replace_autoscalers(scenario: Scenario, autoscaler: Autoscaler) -> tuple[Manifest, ...]:
    """The scenario's manifests with its autoscalers (every kind of ``AUTOSCALER_KINDS``)
    swapped for the autoscaler's objects, and the shipped CRDs those need."""
    if not autoscaler.objects:
        return scenario.manifests
    kept = [m for m in scenario.manifests if m.object.get("kind") not in AUTOSCALER_KINDS]
    added = [Manifest(autoscaler.source, obj) for obj in autoscaler.objects]
    return (*_shipped_for(autoscaler.objects, kept), *kept, *added)
