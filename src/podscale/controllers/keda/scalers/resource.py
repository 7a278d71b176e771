"""KEDA's `cpu` and `memory` scalers: only their activity; the HPA scales on the metric.

KEDA writes a Resource metric into the generated HPA for these triggers, so the metric
itself never passes through its metrics server; the scaler only tells the scale loop
whether the trigger is active, from the target's pods' usage (metrics.k8s.io):

- the pods: the target's selector in the ScaledObject's namespace (`ScalerEnv.pod_selector`;
  KEDA takes the matchLabels of a Deployment or StatefulSet and reports 0, inactive, for
  any other target, which is what a None selector reads as here);
- only Running pods that have a PodMetrics item count; with `containerName`, only pods
  having that container (its usage and request), else the sum over the pod's containers;
- AverageValue: the mean usage (summed in nano units, divided with truncation) must be
  strictly above `activationValue`; no pod counted fails with `no running pods found`;
- Utilization: per pod `usage * 100 / request` truncated, then the truncated mean, must be
  above the activation percentage; pods without a request are skipped, and none left fails
  with `no running pods found with non-zero capacity`. CPU usage and requests are both in
  milli-units; for memory KEDA divides usage in bytes by the request in milli-bytes, so
  memory utilization reads 1000 times smaller than the HPA's. podscale reproduces that.

`value` of the reading is that mean (a quantity as a float, or the percentage).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Final

from podscale.api.kinds import kind_for
from podscale.api.quantity import Quantity, QuantityError, parse_quantity
from podscale.client.http import ApiError
from podscale.controllers.keda.scalers.base import (
    PodMetricsReader,
    ScalerError,
    ScalerReading,
)
from podscale.controllers.keda.triggers.cpu_memory import ResourceTrigger
from podscale.controllers.runtime_api import ControllerApi

__all__ = ["ResourceScaler", "average_usage", "average_utilization", "go_div"]

JSON = dict[str, Any]
_POD: Final = kind_for("v1", "Pod")
_NANO: Final = -9


def go_div(a: int, b: int) -> int:
    """Go's integer division: truncation toward zero."""
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b > 0) else -quotient


def _quantity(value: Any) -> Quantity:
    try:
        return parse_quantity(str(value if value is not None else "0"))
    except QuantityError:
        return parse_quantity("0")


def _containers(obj: Mapping[str, Any], *path: str) -> list[Mapping[str, Any]]:
    node: Any = obj
    for key in path:
        node = node.get(key) if isinstance(node, Mapping) else None
    return [item for item in node or [] if isinstance(item, Mapping)]


def _usage(metrics: Mapping[str, Any], resource: str, container: str) -> list[Quantity] | None:
    """Usage quantities to sum: the named container's, or every container's; None if
    the named container has no metrics."""
    entries = _containers(metrics, "containers")
    if container:
        entries = [c for c in entries if c.get("name") == container]
        if not entries:
            return None
        entries = entries[:1]
    return [_quantity((c.get("usage") or {}).get(resource)) for c in entries]


def _counted(
    pods: Sequence[Mapping[str, Any]], metrics: Sequence[Mapping[str, Any]]
) -> list[tuple[Mapping[str, Any], Mapping[str, Any]]]:
    by_name: dict[Any, Mapping[str, Any]] = {}
    for item in metrics:
        name = (item.get("metadata") or {}).get("name")
        by_name.setdefault(name, item)  # KEDA takes the first item of that name
    pairs = []
    for pod in pods:
        if (pod.get("status") or {}).get("phase") != "Running":
            continue
        found = by_name.get((pod.get("metadata") or {}).get("name"))
        if found is not None:
            pairs.append((pod, found))
    return pairs


def average_usage(
    pods: Sequence[Mapping[str, Any]],
    metrics: Sequence[Mapping[str, Any]],
    resource: str,
    container: str,
) -> Quantity:
    """KEDA's getAverageValue over the listed pods and PodMetrics."""
    total = 0
    count = 0
    for _, item in _counted(pods, metrics):
        usage = _usage(item, resource, container)
        if usage is None:
            continue
        total += sum(q.scaled_value(_NANO) for q in usage)
        count += 1
    if count == 0:
        raise ScalerError("no running pods found")
    return Quantity.from_scaled(go_div(total, count), _NANO)


def _request_milli(pod: Mapping[str, Any], resource: str, container: str) -> int:
    total = 0
    for spec in _containers(pod, "spec", "containers"):
        if container and spec.get("name") != container:
            continue
        requests = (spec.get("resources") or {}).get("requests") or {}
        if resource in requests:
            total += _quantity(requests[resource]).milli_value()
        if container:
            break
    return total


def average_utilization(
    pods: Sequence[Mapping[str, Any]],
    metrics: Sequence[Mapping[str, Any]],
    resource: str,
    container: str,
) -> int:
    """KEDA's getAverageUtilization (with its memory units, see the module doc)."""
    total = 0
    count = 0
    for pod, item in _counted(pods, metrics):
        usage = _usage(item, resource, container)
        if usage is None:
            continue
        used = sum(q.milli_value() if resource == "cpu" else q.value() for q in usage)
        capacity = _request_milli(pod, resource, container)
        if capacity == 0:
            continue
        total += go_div(used * 100, capacity)
        count += 1
    if count == 0:
        raise ScalerError("no running pods found with non-zero capacity")
    return go_div(total, count)


class ResourceScaler:
    def __init__(
        self,
        trigger: ResourceTrigger,
        api: ControllerApi,
        namespace: str,
        pod_selector: str | None,
        pod_metrics: PodMetricsReader,
    ) -> None:
        self.trigger = trigger
        self._api = api
        self.namespace = namespace
        self.pod_selector = pod_selector
        self._pod_metrics = pod_metrics

    async def _inputs(self, selector: str) -> tuple[list[JSON], list[JSON]]:
        try:
            listed = await self._api.list(_POD, self.namespace, label_selector=selector)
        except ApiError as err:
            raise ScalerError(f"failed to list pods: {err}") from None
        pods = [item for item in listed.get("items") or [] if isinstance(item, dict)]
        try:
            metrics = list(await self._pod_metrics.pod_metrics(self.namespace, selector))
        except ApiError as err:
            raise ScalerError(str(err)) from None
        return pods, metrics

    async def read(self, now: datetime) -> ScalerReading:
        trigger = self.trigger
        if self.pod_selector is None:
            return ScalerReading(0.0, False)
        pods, metrics = await self._inputs(self.pod_selector)
        if trigger.metric_type == "Utilization":
            percent = average_utilization(pods, metrics, trigger.resource, trigger.container_name)
            return ScalerReading(
                float(percent), percent > (trigger.activation_average_utilization or 0)
            )
        average = average_usage(pods, metrics, trigger.resource, trigger.container_name)
        activation = trigger.activation_average_value or parse_quantity("0")
        return ScalerReading(average.as_approximate_float(), average.compare(activation) > 0)

    async def close(self) -> None:
        return None
