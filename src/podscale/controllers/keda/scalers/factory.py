"""`build_scaler`: the live `Scaler` for one parsed trigger.

Dispatches on the `TriggerSpec`'s `details` (the type's parsed metadata from
`podscale.controllers.keda.triggers`) to the scaler module of that type, handing each
what it needs from the `ScalerEnv`: the HTTP transport to prometheus and metrics-api, the
API to kubernetes-workload, the API, target selector and PodMetrics reader to cpu/memory,
the plane's external metrics to podscale-push. The caller owns the scaler and closes it.
"""

from __future__ import annotations

from podscale.controllers.keda.scalers.base import ApiPodMetrics, Scaler, ScalerEnv
from podscale.controllers.keda.scalers.cron import CronScaler
from podscale.controllers.keda.scalers.metrics_api import MetricsApiScaler
from podscale.controllers.keda.scalers.prometheus import PrometheusScaler
from podscale.controllers.keda.scalers.push import PushScaler
from podscale.controllers.keda.scalers.resource import ResourceScaler
from podscale.controllers.keda.scalers.workload import WorkloadScaler
from podscale.controllers.keda.triggers.cpu_memory import ResourceTrigger
from podscale.controllers.keda.triggers.cron import CronTrigger
from podscale.controllers.keda.triggers.kubernetes_workload import WorkloadTrigger
from podscale.controllers.keda.triggers.metrics_api import MetricsApiTrigger
from podscale.controllers.keda.triggers.prometheus import PrometheusTrigger
from podscale.controllers.keda.triggers.push import PushTrigger
from podscale.controllers.keda.triggers.spec import TriggerSpec

__all__ = ["build_scaler"]


def build_scaler(spec: TriggerSpec, env: ScalerEnv) -> Scaler:
    """The scaler reading `spec`'s trigger; ValueError for details of no known type."""
    details = spec.details
    if isinstance(details, PrometheusTrigger):
        return PrometheusScaler(details, env.transport)
    if isinstance(details, MetricsApiTrigger):
        return MetricsApiScaler(details, env.transport)
    if isinstance(details, WorkloadTrigger):
        return WorkloadScaler(details, env.api)
    if isinstance(details, CronTrigger):
        return CronScaler(details)
    if isinstance(details, ResourceTrigger):
        reader = env.pod_metrics if env.pod_metrics is not None else ApiPodMetrics(env.api)
        return ResourceScaler(details, env.api, env.namespace, env.pod_selector, reader)
    if isinstance(details, PushTrigger):
        return PushScaler(details, env.namespace, env.external)
    raise ValueError(f"no scaler for trigger type {spec.type!r}")
