"""The embedded control plane: store, API, controllers and the simulated cluster on one clock.

``EmbeddedControlPlane`` is the whole of a simulated Kubernetes in one process: a store
(``MemoryStore`` by default), the API server's operations through ``InProcessApi``, a
``ControllerManager`` with the controllers of ``plane.controller_sets.default_controllers``
(workload controllers, garbage collector and the HPA controller, built by
``podscale.controllers.registry`` from a ``ControllerContext``), and the simulated nodes,
scheduler and kubelets of ``podscale.runtime.simulated``. ``controller_sets`` also registers
them with what they bring to the server: with KEDA's operator among the controllers, the
server's admission hooks get KEDA's validating webhook (``controllers.keda.webhook``), as
KEDA's install brings it.

The metrics pipeline (``metrics=True``, the default with the simulated cluster: a
``MetricsServer`` scraping the kubelets' stats, request rates pushed into a
``PushMetricsProvider``) is installed on the API's ``ServerState`` by
``plane.metrics_pipeline``, where supplied providers (the Prometheus adapter) take the push
provider's place. Every part reads the one injected clock and waits through asyncio, so on
``podscale.runtime``'s virtual-time loop (a ``VirtualClock``) a simulated hour passes in
seconds, and on a normal loop (a ``SystemClock``) the same code runs at wall speed.
``podscale up``/``podscale demo`` build on it.

Supervision: one ``Supervisor`` (``podscale.client.supervisor``) on the plane's clock runs
the controller manager's informers and workers, the node heartbeats, the metrics scrapes
and the request-rate publisher; a part that dies of an unexpected exception is restarted
with exponential backoff instead of ending the run. Its checks join the API's ``/readyz``
(failing while a part waits out its backoff) and its fault counters ``/metrics``.

Determinism: all randomness comes from one ``random.Random(seed)``: object uids (the store's
``new_uid``), the controllers' choices (pod name suffixes, ties) and the scheduler's ties
between equally good nodes each get a generator seeded from it, so the same seed and the
same inputs give the same run.
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

from podscale.api.feature_gates import DEFAULT_FEATURE_GATES
from podscale.apiserver.metricsapis.providers import CustomMetricsProvider, ExternalMetricsProvider
from podscale.apiserver.registry.event_ttl import expire_events
from podscale.client.inprocess import CONTROLLER_MANAGER, InProcessApi
from podscale.client.supervisor import Supervisor
from podscale.controllers.hpa import DEFAULT_SYNC_PERIOD, InProcessMetricsClient
from podscale.controllers.manager import ControllerManager
from podscale.controllers.registry import ControllerContext
from podscale.history import HistoryStore, MemoryHistory
from podscale.hpa import Config
from podscale.metrics.object_labels import StoreObjectLabels
from podscale.metrics.push import PushMetricsProvider
from podscale.metrics.push_journal import PushJournal
from podscale.metrics.server import DEFAULT_RESOLUTION, MetricsServer
from podscale.plane.controller_sets import (
    ControllerFactory,
    default_controllers,
    register_controllers,
)
from podscale.plane.metrics_pipeline import external_routes, install_metrics
from podscale.runtime.simulated.cluster import SimulatedCluster
from podscale.runtime.simulated.kubelet_state import DEFAULT_PROFILE, StartupProfile
from podscale.runtime.simulated.kubelets import DEFAULT_EVICTION_TIMEOUT
from podscale.runtime.simulated.nodes import (
    NODE_STATUS_REPORT_FREQUENCY,
    NodeSpec,
    default_node_specs,
)
from podscale.runtime.simulated.usage import (
    DEFAULT_PUBLISH_PERIOD,
    DEFAULT_REQUEST_METRIC,
    DEFAULT_STEP,
    SimulatedUsage,
)
from podscale.store.interface import Clock, Store
from podscale.store.memory import MemoryStore

__all__ = ["EmbeddedControlPlane", "seeded_uids"]

# The supervised parts' names, as /readyz lists them.
_NODE_HEARTBEATS = "simulated/node-heartbeats"
_METRICS_SERVER = "metrics-server/scrapes"
_SIMULATED_USAGE = "simulated/request-rates"
_EVENT_TTL = "apiserver/event-ttl"


def seeded_uids(rng: random.Random) -> Callable[[], str]:
    """A store ``new_uid`` drawing version-4 UUIDs from ``rng`` (reproducible uids)."""

    def new_uid() -> str:
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))

    return new_uid


class EmbeddedControlPlane:
    """Run with ``await plane.run()`` until ``stop()``; ``api`` is ready at construction.

    ``nodes`` None means three default nodes; ``simulate=False`` leaves out the simulated
    cluster (controllers only). ``workers`` overrides the ``--concurrent-*-syncs`` flags.
    ``api`` runs everything over an existing server's in-process API (``store`` is then
    ignored): how ``podscale up`` shares its store with the HTTP server.

    ``metrics`` (None: as ``simulate``) runs the metrics pipeline of the module docstring;
    it needs the simulated cluster. ``hpa_config``/``hpa_sync_period`` are the HPA
    controller's ``--horizontal-pod-autoscaler-*`` settings; ``request_metric`` names the
    Pods metric the request rates are published as, every ``publish_period``.
    ``cronhpa_zone`` is the CronHPA controller's ``--cronhpa-timezone`` (None: UTC, so a
    scenario runs alike on every machine).

    ``custom_metrics_provider``/``external_metrics_provider``, when given, serve
    custom.metrics.k8s.io / external.metrics.k8s.io instead of the push provider (also with
    ``metrics=False``); the plane only installs them: refreshing them (e.g. the Prometheus
    adapter's relist loop) and closing their connections stays with the caller.
    ``push_journal`` makes the push provider's values durable (``push_journal``); the caller
    closes it (``push.close()``).
    """

    def __init__(
        self,
        clock: Clock,
        *,
        store: Store | None = None,
        api: InProcessApi | None = None,
        nodes: Sequence[NodeSpec] | None = None,
        seed: int = 0,
        workers: Mapping[str, int] | None = None,
        simulate: bool = True,
        profile: StartupProfile = DEFAULT_PROFILE,
        heartbeat: timedelta = NODE_STATUS_REPORT_FREQUENCY,
        eviction_timeout: timedelta | None = DEFAULT_EVICTION_TIMEOUT,
        feature_gates: frozenset[str] = DEFAULT_FEATURE_GATES,
        controllers: ControllerFactory = default_controllers,
        resync: timedelta | None = None,
        metrics: bool | None = None,
        metric_resolution: timedelta = DEFAULT_RESOLUTION,
        hpa_config: Config | None = None,
        hpa_sync_period: timedelta = DEFAULT_SYNC_PERIOD,
        request_metric: str = DEFAULT_REQUEST_METRIC,
        publish_period: timedelta = DEFAULT_PUBLISH_PERIOD,
        usage_step: timedelta = DEFAULT_STEP,
        custom_metrics_provider: CustomMetricsProvider | None = None,
        external_metrics_provider: ExternalMetricsProvider | None = None,
        push_journal: PushJournal | None = None,
        cronhpa_zone: ZoneInfo | None = None,
        history: HistoryStore | None = None,
    ) -> None:
        self.clock = clock
        # The controllers' durable series and state: in memory unless the caller keeps it.
        self.history: HistoryStore = history if history is not None else MemoryHistory()
        with_metrics = simulate if metrics is None else metrics
        if with_metrics and not simulate:
            raise ValueError("the metrics pipeline needs the simulated cluster (simulate=True)")
        rng = random.Random(seed)
        uid_rng = random.Random(rng.getrandbits(64))
        controller_rng = random.Random(rng.getrandbits(64))
        scheduler_rng = random.Random(rng.getrandbits(64))
        usage_rng = random.Random(rng.getrandbits(64))
        # Events expire as kube-apiserver's --event-ttl has them; ``podscale up``'s server
        # runs that itself (``plane.workloads``), so only a plane with its own API does.
        self._owns_api = api is None
        if api is not None:
            # A running API server's state (``podscale up``): its store, gates and providers.
            self.api = api
            self.store: Store = api.state.store
        else:
            self.store = (
                store if store is not None else MemoryStore(clock, new_uid=seeded_uids(uid_rng))
            )
            self.api = InProcessApi.for_store(self.store, clock, feature_gates=feature_gates)
        self.push: PushMetricsProvider | None = None
        if with_metrics:
            self.push = PushMetricsProvider(
                clock, objects=StoreObjectLabels(self.store), journal=push_journal
            )
        # The API server serves the history's state documents (``podscale describe hpa``).
        self.api.state.history = self.history
        self.supervisor = Supervisor(clock)
        self.api.state.readiness_sources.append(self.supervisor.checks)
        self.api.state.metrics_registry.register(self.supervisor)
        # The controllers write as upstream's do: kube-controller-manager (field manager).
        controller_api = self.api.with_field_manager(CONTROLLER_MANAGER)
        self.manager = ControllerManager(
            controller_api, clock, workers=workers, resync=resync, supervisor=self.supervisor
        )
        # external.metrics.k8s.io goes through a router (``metrics_pipeline.external_routes``).
        self.external_routes = external_routes(external_metrics_provider, self.push, self.api.state)
        context = ControllerContext(
            controller_api,
            clock,
            controller_rng,
            InProcessMetricsClient(self.api.state),
            hpa_config or Config(feature_gates=self.api.state.feature_gates),
            hpa_sync_period,
            cronhpa_zone,
            self.history,
            external_metrics_writer=self.push,
            external_metrics_routes=self.external_routes,
        )
        register_controllers(self.manager, self.api.state, controllers(context))
        self.cluster: SimulatedCluster | None = None
        self.metrics_server: MetricsServer | None = None
        if simulate:
            self.cluster = SimulatedCluster(
                self.api,
                clock,
                default_node_specs() if nodes is None else nodes,
                profile=profile,
                heartbeat=heartbeat,
                eviction_timeout=eviction_timeout,
                rng=scheduler_rng,
                usage_rng=usage_rng,
                usage_step=usage_step,
                push=self.push,
                request_metric=request_metric,
                publish_period=publish_period,
            )
            for controller in self.cluster.controllers(with_usage=with_metrics):
                self.manager.register(controller)
            self.api.state.pod_logs = self.cluster.kubelets.logs  # pods/log
        self.metrics_server = install_metrics(
            self.api.state, self.store, clock, self.cluster if with_metrics else None, self.push,
            resolution=metric_resolution, custom_provider=custom_metrics_provider,
            routes=self.external_routes,
        )  # fmt: skip
        self._stop = asyncio.Event()
        self._started = asyncio.Event()

    async def run(self) -> None:
        """Run everything until ``stop()`` (or cancellation); no task outlives it. The
        parts run supervised (restarted after an unexpected exception); only an error that
        escapes supervision (a bug in the manager's own start-up) ends the run with it."""
        supervise = self.supervisor.run
        parts = [asyncio.create_task(self.manager.run(), name="controller-manager")]
        if self._owns_api:
            expiry = supervise(_EVENT_TTL, lambda: expire_events(self.store, self.clock))
            parts.append(asyncio.create_task(expiry, name="event-ttl"))
        if self.cluster is not None:
            heartbeats = supervise(_NODE_HEARTBEATS, self.cluster.run)
            parts.append(asyncio.create_task(heartbeats, name="simulated-nodes"))
        if self.metrics_server is not None and self.cluster is not None:
            scrapes = supervise(_METRICS_SERVER, self._run_metrics)
            parts.append(asyncio.create_task(scrapes, name="metrics-server"))
            publisher = supervise(_SIMULATED_USAGE, self.cluster.run_usage)
            parts.append(asyncio.create_task(publisher, name="simulated-usage"))
        stop = asyncio.create_task(self._stop.wait())
        ready = asyncio.create_task(self._parts_started())
        pending: set[asyncio.Task[Any]] = {stop, ready, *parts}
        try:
            while True:
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                if ready in done:
                    self._started.set()
                    done.discard(ready)
                if done:
                    for task in done:
                        if task is not stop and not task.cancelled():
                            failure = task.exception()
                            if failure is not None:
                                raise failure
                    return  # stopped, or a part ended on its own
        finally:
            self.manager.stop()
            if self.cluster is not None:
                self.cluster.usage.stop_following()  # the custom targets' Scale watches
            if self.metrics_server is not None:
                # Asked as well as cancelled: Python 3.11's wait_for can swallow a cancel
                # that meets a finishing scrape, and the loop would then go on scraping.
                self.metrics_server.stop()
            everything = [stop, ready, *parts]
            for task in everything:
                task.cancel()
            # ``wait``, not ``await task``: a failed part's error is already on its way out.
            await asyncio.wait(everything)

    @property
    def usage(self) -> SimulatedUsage:
        """The simulated usage (where loads are set); only with the simulated cluster."""
        if self.cluster is None:
            raise RuntimeError("the control plane runs no simulated cluster")
        return self.cluster.usage

    async def _run_metrics(self) -> None:
        # Scrape only once pods can be seen: before that every scrape would be empty.
        assert self.metrics_server is not None
        await self.manager.wait_started()
        await self.metrics_server.run()

    async def _parts_started(self) -> None:
        await self.manager.wait_started()
        if self.cluster is not None:
            await self.cluster.wait_registered()

    async def wait_started(self) -> None:
        """Return once informers have synced, workers run and the nodes are registered."""
        await self._started.wait()

    def stop(self) -> None:
        """Ask ``run`` to return."""
        self._stop.set()
