"""What every scaler is: the reading it returns, its error, and the environment it reads.

A `Scaler` is one trigger of one ScaledObject made live (`factory.build_scaler` makes it
from the trigger's parsed `TriggerSpec`): `read(now)` gives a `ScalerReading`, the value
KEDA's metrics server would report for the trigger's metric (a total, before the HPA
divides an AverageValue target by the replicas) and whether the trigger is active, as
KEDA's `GetMetricsAndActivity` does; a failure is a `ScalerError` whose text is KEDA's.
The clock is always `now`: scalers never read one. `ScalerEnv` carries what scalers reach
outside themselves: the API (pods, pod metrics), the plane's external metrics (for
`podscale-push`) and, for tests, an HTTP transport. The loop that polls scalers and the
decisions it takes are `podscale.controllers.keda.decisions` (not here).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Protocol, runtime_checkable

import httpx

from podscale.api.kinds import KindInfo
from podscale.apiserver.metricsapis.providers import ExternalMetricsProvider
from podscale.controllers.runtime_api import ControllerApi

__all__ = [
    "POD_METRICS",
    "ApiPodMetrics",
    "PodMetricsReader",
    "Scaler",
    "ScalerEnv",
    "ScalerError",
    "ScalerReading",
]

JSON = dict[str, Any]

# metrics.k8s.io's PodMetrics, listed as client-go's metrics clientset lists it.
POD_METRICS: Final = KindInfo(
    group="metrics.k8s.io",
    version="v1beta1",
    kind="PodMetrics",
    plural="pods",
    singular="",
    short_names=(),
    namespaced=True,
    verbs=("get", "list"),
    subresources=(),
    categories=(),
    list_kind="PodMetricsList",
)


class ScalerError(Exception):
    """A failed read; `str()` is the error text KEDA's scaler returns."""


@dataclass(frozen=True)
class ScalerReading:
    value: float  # what the external metric reports (a total)
    active: bool  # value > activation threshold (cron: inside its window)


class Scaler(Protocol):
    async def read(self, now: datetime) -> ScalerReading:
        """The trigger's value and activity at `now`; raises `ScalerError`."""
        ...

    async def close(self) -> None: ...


@runtime_checkable
class PodMetricsReader(Protocol):
    """metrics.k8s.io PodMetrics items of `namespace` matching `label_selector`."""

    async def pod_metrics(self, namespace: str, label_selector: str) -> Sequence[JSON]: ...


class ApiPodMetrics:
    """Lists PodMetrics through a `ControllerApi` (what works over HTTP; an in-process
    plane passes its own `PodMetricsReader` in `ScalerEnv.pod_metrics`)."""

    def __init__(self, api: ControllerApi) -> None:
        self._api = api

    async def pod_metrics(self, namespace: str, label_selector: str) -> Sequence[JSON]:
        listed = await self._api.list(POD_METRICS, namespace, label_selector=label_selector)
        items = listed.get("items") or []
        return [item for item in items if isinstance(item, dict)]


@dataclass(frozen=True)
class ScalerEnv:
    api: ControllerApi  # for kubernetes-workload pod counts, cpu/memory
    namespace: str  # the ScaledObject's
    pod_selector: str | None = None  # the target's /scale status.selector (cpu/memory)
    external: ExternalMetricsProvider | None = None  # the plane's push provider (podscale-push)
    transport: httpx.AsyncBaseTransport | None = None  # tests substitute a MockTransport
    # podscale's addition: where cpu/memory read PodMetrics (None: through `api`).
    pod_metrics: PodMetricsReader | None = None
