"""The autoscaling/v2 HPA KEDA generates for a ScaledObject, and when to rewrite it.

``generated_hpa(obj, so, triggers)`` is KEDA's ``newHPAForScaledObject``: named
``so.hpa_name`` in the ScaledObject's namespace, labelled ``app.kubernetes.io/*`` (the
name trimmed to 63 characters, the KEDA version, ``part-of`` the ScaledObject,
``managed-by: keda-operator``) plus the ScaledObject's own labels except those listed in
``scaledobject.keda.sh/hpa-excluded-labels``, annotated with all of the ScaledObject's
annotations, owned by it (``controller`` and ``blockOwnerDeletion``). Its spec: the
target, ``minReplicas``/``maxReplicas`` (both the paused-replicas count, at least 1,
while that annotation is set), the configured ``behavior`` with ``selectPolicy:
Disabled`` on the side paused by ``autoscaling.keda.sh/paused-scale-in``/``-out``, and
the metrics of ``getScaledObjectMetricSpecs``: one External metric per non-cpu/memory
trigger (``metric_name``, selector ``scaledobject.keda.sh/name=<so>``, the target in
milli-units), a Resource (or ContainerResource) metric per cpu/memory trigger, ordered
by metric type; with scaling modifiers whose target is above 0 the External metrics give
way to one ``composite-metric``.

``hpa_update(existing, wanted)`` is ``updateHPAIfNeeded``: the object to PUT, or None.
``triggers`` are ``triggers.registry.parse_trigger``'s results in ``spec.triggers``
order; the keda controller writes the result with the API. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from podscale.api.quantity import Quantity, QuantityError, parse_quantity
from podscale.controllers.keda.triggers.cpu_memory import ResourceTrigger, parse_go_int32
from podscale.controllers.keda.triggers.spec import TriggerSpec, target_milli
from podscale.controllers.keda.types import PAUSED_REPLICAS_ANNOTATION, ScaledObject

__all__ = [
    "COMPOSITE_METRIC_NAME",
    "EXCLUDED_LABELS_ANNOTATION",
    "KEDA_VERSION",
    "PAUSED_SCALE_IN_ANNOTATION",
    "PAUSED_SCALE_OUT_ANNOTATION",
    "SCALED_OBJECT_LABEL",
    "GeneratedHpaError",
    "generated_hpa",
    "hpa_update",
]

JSON = dict[str, Any]

# The label KEDA's metrics server finds the ScaledObject of an external metric read by.
SCALED_OBJECT_LABEL: Final = "scaledobject.keda.sh/name"
EXCLUDED_LABELS_ANNOTATION: Final = "scaledobject.keda.sh/hpa-excluded-labels"
PAUSED_SCALE_IN_ANNOTATION: Final = "autoscaling.keda.sh/paused-scale-in"
PAUSED_SCALE_OUT_ANNOTATION: Final = "autoscaling.keda.sh/paused-scale-out"
COMPOSITE_METRIC_NAME: Final = "composite-metric"
# The KEDA release whose behaviour podscale follows (docs/keda.md); its version label.
KEDA_VERSION: Final = "2.17.0"
_LABEL_MAX: Final = 63
_GO_TRUE: Final = frozenset({"1", "t", "T", "TRUE", "true", "True"})


class GeneratedHpaError(ValueError):
    """KEDA could not build the HPA; ``str()`` is its error (the Ready=False message)."""


def _label_name(name: str) -> str:
    """The ``app.kubernetes.io/name`` value: at most 63 characters, and a cut name loses
    its trailing non-alphanumerics so that it stays a valid label value."""
    if len(name) <= _LABEL_MAX:
        return name
    return re.sub(r"[^0-9A-Za-z]+$", "", name[:_LABEL_MAX])


def _labels(so_labels: Mapping[str, str], so: ScaledObject) -> dict[str, str]:
    labels = {
        "app.kubernetes.io/name": _label_name(so.hpa_name),
        "app.kubernetes.io/version": KEDA_VERSION,
        "app.kubernetes.io/part-of": so.name,
        "app.kubernetes.io/managed-by": "keda-operator",
    }
    excluded = so.annotations.get(EXCLUDED_LABELS_ANNOTATION)
    skip = set(excluded.split(",")) if excluded is not None else set()
    labels.update({key: value for key, value in so_labels.items() if key not in skip})
    return labels


def _go_bool_true(value: str | None) -> bool:
    # strconv.ParseBool's true spellings; anything else (false, or not a bool) leaves
    # the direction unpaused.
    return value is not None and value in _GO_TRUE


def _behavior(so: ScaledObject) -> JSON | None:
    behavior: JSON | None = None if so.advanced.behavior is None else dict(so.advanced.behavior)
    for annotation, side in (
        (PAUSED_SCALE_IN_ANNOTATION, "scaleDown"),
        (PAUSED_SCALE_OUT_ANNOTATION, "scaleUp"),
    ):
        if _go_bool_true(so.annotations.get(annotation)):
            behavior = behavior if behavior is not None else {}
            rules = dict(behavior.get(side) or {})
            rules["selectPolicy"] = "Disabled"
            behavior[side] = rules
    return behavior


def _replica_bounds(so: ScaledObject) -> tuple[int, int]:
    paused = so.annotations.get(PAUSED_REPLICAS_ANNOTATION)
    if paused is None:
        return so.hpa_min_replicas, so.hpa_max_replicas
    try:
        count = parse_go_int32(paused)
    except ValueError as err:
        raise GeneratedHpaError(str(err)) from None
    # An HPA's minReplicas cannot be 0: a paused count of 0 pins the HPA at 1.
    count = max(count, 1)
    return count, count


def _quantity_target(metric_type: str, milli: int) -> JSON:
    text = Quantity.from_milli(milli).format_canonical()
    key = "averageValue" if metric_type == "AverageValue" else "value"
    return {"type": metric_type, key: text}


def _resource_metric(details: ResourceTrigger) -> JSON:
    if details.metric_type == "Utilization":
        target: JSON = {"type": "Utilization", "averageUtilization": details.average_utilization}
    else:
        assert details.average_value is not None
        target = {"type": "AverageValue", "averageValue": details.average_value.format_canonical()}
    if details.container_name:
        source = {"name": details.resource, "container": details.container_name, "target": target}
        return {"type": "ContainerResource", "containerResource": source}
    return {"type": "Resource", "resource": {"name": details.resource, "target": target}}


def _selector(so: ScaledObject) -> JSON:
    return {"matchLabels": {SCALED_OBJECT_LABEL: so.name}}


def _metrics(so: ScaledObject, triggers: Sequence[TriggerSpec]) -> list[JSON]:
    specs: list[JSON] = []
    external_names: list[str] = []
    for trigger in triggers:
        if isinstance(trigger.details, ResourceTrigger):
            specs.append(_resource_metric(trigger.details))
            continue
        if trigger.metric_name in external_names:
            raise GeneratedHpaError(
                f"metricName {trigger.metric_name} defined multiple times in ScaledObject {so.name}"
            )
        external_names.append(trigger.metric_name)
        identifier = {"name": trigger.metric_name, "selector": _selector(so)}
        target = _quantity_target(trigger.metric_type, target_milli(trigger.target_value))
        specs.append({"type": "External", "external": {"metric": identifier, "target": target}})
    # KEDA sorts by metric type so that every reconcile compares the same order; a stable
    # sort keeps triggers of one type in spec order (Go's sort.Slice does not promise it).
    specs.sort(key=lambda spec: str(spec["type"]))
    composite = _composite(so)
    if composite is None:
        return specs
    # The composite replaces every External metric; only Resource metrics stay (a
    # ContainerResource one has no ``resource`` source, so KEDA drops it too).
    return [spec for spec in specs if spec["type"] == "Resource"] + [composite]


def _composite(so: ScaledObject) -> JSON | None:
    modifiers = so.advanced.scaling_modifiers
    if not modifiers.in_use:
        return None
    metric_type = modifiers.metric_type or "AverageValue"
    if metric_type == "Utilization":
        raise GeneratedHpaError(
            "error metric target type is Utilization, but it needs to be AverageValue or "
            "Value for external metrics"
        )
    try:
        target = float(modifiers.target)
    except ValueError:
        target = 0.0  # the webhook refuses such a target; KEDA then builds no composite
    if not target > 0.0:
        return None
    identifier = {"name": COMPOSITE_METRIC_NAME, "selector": _selector(so)}
    return {
        "type": "External",
        "external": {
            "metric": identifier,
            "target": _quantity_target(metric_type, int(target * 1000)),
        },
    }


def generated_hpa(
    obj: Mapping[str, Any], so: ScaledObject, triggers: Sequence[TriggerSpec]
) -> dict[str, Any]:
    """The HPA KEDA generates for the ScaledObject ``obj`` (its JSON, for labels and uid),
    parsed as ``so``. Raises ``GeneratedHpaError`` where KEDA fails to build it."""
    meta: Mapping[str, Any] = obj.get("metadata") or {}
    min_replicas, max_replicas = _replica_bounds(so)
    spec: JSON = {
        "scaleTargetRef": {
            "apiVersion": so.scale_target.api_version,
            "kind": so.scale_target.kind,
            "name": so.scale_target.name,
        },
        "minReplicas": min_replicas,
        "maxReplicas": max_replicas,
        "metrics": _metrics(so, triggers),
    }
    behavior = _behavior(so)
    if behavior is not None:
        spec["behavior"] = behavior
    metadata: JSON = {
        "name": so.hpa_name,
        "namespace": so.namespace,
        "labels": _labels(meta.get("labels") or {}, so),
        "ownerReferences": [
            {
                "apiVersion": str(obj.get("apiVersion") or "keda.sh/v1alpha1"),
                "kind": "ScaledObject",
                "name": so.name,
                "uid": str(meta.get("uid") or ""),
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ],
    }
    if so.annotations:
        metadata["annotations"] = dict(so.annotations)
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": metadata,
        "spec": spec,
    }


_QUANTITY_KEYS: Final = frozenset({"averageValue", "value"})


def _same_quantity(wanted: str, have: Any) -> bool:
    try:
        return parse_quantity(wanted) == parse_quantity(have)
    except (QuantityError, TypeError, ValueError):
        return bool(wanted == have)


def _derivative(wanted: Any, have: Any, key: str = "") -> bool:
    """apimachinery's ``Semantic.DeepDerivative`` on JSON: what ``wanted`` leaves unset
    (absent, null, "", empty list or map) matches anything; quantities compare by value."""
    if wanted is None or wanted == "" or wanted == [] or wanted == {}:
        return True
    if isinstance(wanted, Mapping):
        if not isinstance(have, Mapping):
            return False
        return all(_derivative(value, have.get(k), k) for k, value in wanted.items())
    if isinstance(wanted, list):
        if not isinstance(have, list) or len(wanted) > len(have):
            return False
        return all(_derivative(w, h, key) for w, h in zip(wanted, have, strict=False))
    if key in _QUANTITY_KEYS and isinstance(wanted, str):
        return _same_quantity(wanted, have)
    return bool(wanted == have)


def _same_behavior(wanted: Any, have: Any) -> bool:
    """KEDA compares behaviors exactly, so that lifting a paused-scale-in/out annotation
    undoes its ``Disabled``. The API server fills in a set behavior's default rules
    (``selectPolicy: Max``, policies, windows), which must not read as a change: every
    field written must match, and a select policy not written must be the default."""
    if wanted is None or have is None:
        return wanted is None and have is None
    if not _derivative(wanted, have):
        return False
    for side in ("scaleUp", "scaleDown"):
        written = (wanted.get(side) or {}).get("selectPolicy")
        stored = (have.get(side) or {}).get("selectPolicy")
        if written is None and stored not in (None, "Max"):
            return False
    return True


def hpa_update(existing: Mapping[str, Any], wanted: Mapping[str, Any]) -> dict[str, Any] | None:
    """The HPA to PUT when ``existing`` lacks what KEDA manages in ``wanted`` (spec, labels,
    annotations), None when it already says it. The PUT keeps ``existing``'s identity
    (resourceVersion, uid) and status, and takes ``wanted``'s labels, annotations, owner
    references and spec, as KEDA's update writes its freshly built HPA."""
    have_meta: Mapping[str, Any] = existing.get("metadata") or {}
    want_meta: Mapping[str, Any] = wanted.get("metadata") or {}
    have_spec: Mapping[str, Any] = existing.get("spec") or {}
    want_spec: Mapping[str, Any] = wanted.get("spec") or {}
    want_annotations = want_meta.get("annotations")
    have_annotations = have_meta.get("annotations")
    spec_changed = (
        # DeepDerivative ignores extra list entries, so a removed trigger needs the count.
        len(want_spec.get("metrics") or ()) != len(have_spec.get("metrics") or ())
        or not _same_behavior(want_spec.get("behavior"), have_spec.get("behavior"))
        or not _derivative(want_spec, have_spec)
    )
    labels_changed = not _derivative(want_meta.get("labels"), have_meta.get("labels") or {})
    annotations_changed = (not want_annotations and bool(have_annotations)) or not _derivative(
        want_annotations, have_annotations or {}
    )
    if not (spec_changed or labels_changed or annotations_changed):
        return None
    metadata: JSON = {**have_meta}
    for key in ("labels", "annotations", "ownerReferences"):
        if want_meta.get(key):
            metadata[key] = want_meta[key]
        else:
            metadata.pop(key, None)
    return {**existing, "metadata": metadata, "spec": dict(want_spec)}
