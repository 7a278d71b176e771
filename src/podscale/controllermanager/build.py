"""The controller manager ``podscale controller-manager`` runs: ``build_manager``.

kube-controller-manager's controller context, built over one ``HttpApi`` (``config.open_api``:
the kubeconfig or the pod's service account, ``--kube-api-qps``/``--kube-api-burst``): the
``ControllerContext`` the registry builds controllers from. The HPA controllers read the
cluster's metrics APIs through ``RestMetricsClient`` (the URLs upstream's HPA requests)
except the external reads KEDA's operator answers itself (``metrics.ClusterMetricsClient``),
KEDA's operator routes its reads into an ``ExternalMetricsRouter`` whose fallback is a push
provider the EHPA controller writes its predictions to (``adapter`` serves both) and reads
its ``podscale-push`` triggers from the cluster's external metrics API
(``metrics.RestExternalMetrics``), and the chosen controllers register on one
``ControllerManager`` whose work queues report client-go's metrics. With KEDA's operator
among them, a second manager runs KEDA's metrics server (``controllers.keda.metrics_server``)
whatever the election says, so every replica's adapter answers the generated HPAs' reads;
the push provider answers only while leading (``adapter.LeaderOnlyProvider``), as only the
leader's EHPA controller fills it. ``run.run_controller_manager`` builds it, serves it and
runs it under the election.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from prometheus_client import CollectorRegistry

from podscale.apiserver.metricsapis.router import ExternalMetricsRouter
from podscale.client.http import HttpApi
from podscale.client.supervisor import Supervisor
from podscale.client.workqueue_metrics import WorkQueueMetrics
from podscale.controllermanager.adapter import LeaderOnlyProvider
from podscale.controllermanager.metrics import ClusterMetricsClient, RestExternalMetrics
from podscale.controllermanager.options import ManagerOptions
from podscale.controllers.hpa import HorizontalPodAutoscalerController
from podscale.controllers.hpa.metrics_rest import RestMetricsClient
from podscale.controllers.keda.adapter import KedaMetricsAdapter
from podscale.controllers.keda.controller import SCALED_OBJECT_LABEL, ScaledObjectController
from podscale.controllers.keda.metrics_server import FirstSource, KedaMetricsServer
from podscale.controllers.keda.scalers.base import PodMetricsReader
from podscale.controllers.manager import ControllerManager
from podscale.controllers.registry import ControllerContext, build_controllers
from podscale.metrics.push import PushMetricsProvider
from podscale.store.interface import Clock

__all__ = ["ManagerParts", "build_manager"]


@dataclass(frozen=True, slots=True)
class ManagerParts:
    """What ``build_manager`` made: the manager, what observes it and the metrics routes."""

    manager: ControllerManager
    supervisor: Supervisor
    registry: CollectorRegistry
    routes: ExternalMetricsRouter
    push: PushMetricsProvider
    # KEDA's metrics server and the manager that runs it outside the election (with the
    # keda-operator only).
    keda_metrics: KedaMetricsServer | None = None
    keda_metrics_manager: ControllerManager | None = None


def build_manager(
    api: HttpApi,
    clock: Clock,
    options: ManagerOptions,
    *,
    leading: Callable[[], bool] = lambda: True,
) -> ManagerParts:
    """The controller manager with ``options.controllers`` registered on it; ``leading``
    says whether this replica leads (for the push provider's guard)."""
    supervisor = Supervisor(clock)
    queue_metrics = WorkQueueMetrics(clock)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(queue_metrics)
    registry.register(supervisor)
    push = PushMetricsProvider(clock)
    routes = ExternalMetricsRouter(LeaderOnlyProvider(push, leading))
    metrics = RestMetricsClient(api)
    context = ControllerContext(
        api,
        clock,
        metrics=ClusterMetricsClient(metrics, routes),
        hpa_config=options.hpa_config,
        hpa_sync_period=options.hpa_sync_period,
        cronhpa_zone=options.cronhpa_zone,
        external_metrics_writer=push,
        external_metrics_routes=routes,
        external_metrics_source=RestExternalMetrics(api),
    )
    manager = ControllerManager(
        api,
        clock,
        workers=options.workers,
        supervisor=supervisor,
        queue_metrics=queue_metrics,
        shutdown_grace=options.shutdown_grace_period,
    )
    operator: ScaledObjectController | None = None
    for controller in build_controllers(context, options.controllers):
        manager.register(controller)
        # Exactly the HPA's upstream-named metrics (the PHPA controller reuses its class).
        if type(controller) is HorizontalPodAutoscalerController:
            registry.register(controller.monitor)
        if isinstance(controller, ScaledObjectController):
            operator = controller
    if operator is None:
        return ManagerParts(manager, supervisor, registry, routes, push)
    server = KedaMetricsServer(
        api,
        clock,
        external=context.external_metrics_source,
        pod_metrics=metrics if isinstance(metrics, PodMetricsReader) else None,
    )
    # Its own supervisor: its informers share names with the operator's.
    serving_manager = ControllerManager(
        api,
        clock,
        workers=options.workers,
        supervisor=Supervisor(clock),
        queue_metrics=queue_metrics,
    )
    serving_manager.register(server)
    # The leader's scale loops first (their cached readings serve useCachedMetrics).
    source = FirstSource([operator.handler, server.handler])
    routes.route(SCALED_OBJECT_LABEL, KedaMetricsAdapter(source, clock))
    return ManagerParts(manager, supervisor, registry, routes, push, server, serving_manager)
