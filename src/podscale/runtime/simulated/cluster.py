"""The simulated cluster: nodes, scheduler and kubelets together, plus fault injection.

Bundles ``nodes.SimulatedNodes`` (Node objects and heartbeats, a task of its own),
``scheduler.SimulatedScheduler`` and ``kubelets.SimulatedKubelets`` (controllers for a
``ControllerManager``, sharing its pod and node informers). Everything goes through a
``ControllerApi``, so the same cluster runs embedded (``podscale.plane.embedded``) or against
an API server over HTTP. The fault-injection calls are what tests and scenarios use:
``crash_pod``, ``crash_container``, ``lose_node``, ``restore_node``.

``usage`` (``usage.SimulatedUsage``) is the kubelets' resource stats and the workloads'
load: the metrics server scrapes it and it publishes request rates; it is one more
controller for the manager (``controllers(with_usage=True)``) plus a task of its own
(``run_usage``), both left out when nobody reads metrics. ``annotated_loads``
(``load_annotations.AnnotatedLoads``) sets the loads workloads declare in their load
annotation, and comes and goes with ``usage``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import timedelta

from podscale.controllers.manager import Controller
from podscale.controllers.runtime_api import ControllerApi
from podscale.metrics.push import PushMetricsProvider
from podscale.runtime.simulated.kubelet_state import DEFAULT_PROFILE, StartupProfile
from podscale.runtime.simulated.kubelets import DEFAULT_EVICTION_TIMEOUT, SimulatedKubelets
from podscale.runtime.simulated.load_annotations import AnnotatedLoads
from podscale.runtime.simulated.nodes import (
    NODE_STATUS_REPORT_FREQUENCY,
    NodeSpec,
    SimulatedNodes,
)
from podscale.runtime.simulated.scheduler import SimulatedScheduler
from podscale.runtime.simulated.usage import (
    DEFAULT_PUBLISH_PERIOD,
    DEFAULT_REQUEST_METRIC,
    DEFAULT_STEP,
    SimulatedUsage,
)
from podscale.store.interface import Clock

__all__ = ["SimulatedCluster"]

JSON = dict[str, object]


class SimulatedCluster:
    """Simulated nodes of ``specs`` with a scheduler and kubelets; see the module docstring."""

    def __init__(
        self,
        api: ControllerApi,
        clock: Clock,
        specs: Sequence[NodeSpec],
        *,
        profile: StartupProfile = DEFAULT_PROFILE,
        heartbeat: timedelta = NODE_STATUS_REPORT_FREQUENCY,
        eviction_timeout: timedelta | None = DEFAULT_EVICTION_TIMEOUT,
        rng: random.Random | None = None,
        usage_rng: random.Random | None = None,
        usage_step: timedelta = DEFAULT_STEP,
        push: PushMetricsProvider | None = None,
        request_metric: str = DEFAULT_REQUEST_METRIC,
        publish_period: timedelta = DEFAULT_PUBLISH_PERIOD,
    ) -> None:
        self.nodes = SimulatedNodes(api, clock, specs, heartbeat=heartbeat)
        self.scheduler = SimulatedScheduler(api, clock, rng=rng)
        self.kubelets = SimulatedKubelets(
            api, clock, self.nodes, profile=profile, eviction_timeout=eviction_timeout
        )
        self.usage = SimulatedUsage(
            api,
            clock,
            self.nodes,
            rng=usage_rng,
            step=usage_step,
            push=push,
            request_metric=request_metric,
            publish_period=publish_period,
        )
        # Loads declared on workloads (the load annotation) feed ``usage`` too.
        self.annotated_loads = AnnotatedLoads(api, clock, self.usage)

    def controllers(self, *, with_usage: bool = False) -> list[Controller]:
        """The control loops to register with the manager: the scheduler and the kubelets,
        and with ``with_usage`` the resource usage the metrics server scrapes and the loop
        that reads the workloads' load annotations into it."""
        loops: list[Controller] = [self.scheduler, self.kubelets]
        return [*loops, self.usage, self.annotated_loads] if with_usage else loops

    async def run_usage(self) -> None:
        """Publish the pods' request rates every period (until cancelled)."""
        await self.usage.run()

    async def run(self) -> None:
        """Register the nodes and keep their heartbeats (until cancelled)."""
        await self.nodes.run()

    async def wait_registered(self) -> None:
        await self.nodes.wait_registered()

    async def crash_pod(
        self, namespace: str, name: str, *, reason: str = "Error", exit_code: int = 1
    ) -> None:
        """Every running container of the pod exits; the kubelet restarts it with back-off."""
        await self.kubelets.crash(namespace, name, reason=reason, exit_code=exit_code)

    async def crash_container(
        self,
        namespace: str,
        name: str,
        container: str,
        *,
        reason: str = "Error",
        exit_code: int = 1,
    ) -> None:
        """One container of the pod exits (e.g. ``reason="OOMKilled", exit_code=137``)."""
        await self.kubelets.crash(
            namespace, name, container=container, reason=reason, exit_code=exit_code
        )

    async def lose_node(self, name: str) -> None:
        """The node goes NotReady (Ready Unknown); its pods turn not ready, and are evicted
        after the eviction timeout unless the node comes back first."""
        await self.nodes.lose(name)

    async def restore_node(self, name: str) -> None:
        """The node reports Ready again; its remaining pods carry on."""
        await self.nodes.restore(name)
