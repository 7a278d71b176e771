"""Which controllers a control plane runs: names, factories and the ``--controllers`` flag.

kube-controller-manager's ``--controllers`` takes a comma-separated list where ``*`` enables
every on-by-default controller, ``foo`` enables ``foo`` and ``-foo`` disables it; names are
the current ones (``replicaset-controller``) or their older aliases (``replicaset``). This
module keeps that contract for podscale: ``select_controllers`` parses the flag into the set
of canonical names (a bad name is a ``ValueError`` with the known names listed) and
``build_controllers`` makes the selected controllers from one ``ControllerContext`` (the
API, clock and random source every controller shares, plus what only some need: the HPA
controller's metrics client, ``Config`` and sync period, like kube-controller-manager's
``ControllerContext``). ``podscale.plane.embedded`` and ``podscale up`` call them; the
controllers themselves live in their packages.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Final
from zoneinfo import ZoneInfo

from podscale.apiserver.metricsapis.providers import ExternalMetricsProvider, ExternalMetricsWriter
from podscale.apiserver.metricsapis.router import ExternalMetricsRouter
from podscale.controllers.cronhpa.controller import CronHorizontalPodAutoscalerController
from podscale.controllers.deployment.controller import DeploymentController
from podscale.controllers.ehpa.controller import EffectiveHPAController
from podscale.controllers.garbagecollector.controller import GarbageCollectorController
from podscale.controllers.hpa.controller import (
    DEFAULT_SYNC_PERIOD,
    HorizontalPodAutoscalerController,
)
from podscale.controllers.hpa.metrics_client import MetricsClient
from podscale.controllers.kapacity.controller import IhpaController
from podscale.controllers.kapacity.rp_controller import ReplicaProfileController
from podscale.controllers.keda.controller import ScaledObjectController
from podscale.controllers.keda.scalers.base import PodMetricsReader
from podscale.controllers.manager import Controller
from podscale.controllers.namespace.controller import NamespaceController
from podscale.controllers.phpa.controller import PredictiveHorizontalPodAutoscalerController
from podscale.controllers.podgc import PodGarbageCollectorController
from podscale.controllers.replicaset.controller import ReplicaSetController
from podscale.controllers.runtime_api import ControllerApi
from podscale.controllers.statefulset.controller import StatefulSetController
from podscale.controllers.usagehistory.controller import UsageHistoryController
from podscale.controllers.webapp.controller import WebAppController
from podscale.history import HistoryStore
from podscale.hpa import Config
from podscale.store.interface import Clock

__all__ = [
    "CONTROLLER_NAMES",
    "HPA_CONTROLLER",
    "ControllerContext",
    "ControllerSpec",
    "build_controllers",
    "select_controllers",
]

HPA_CONTROLLER: Final = "horizontal-pod-autoscaler-controller"


@dataclass(frozen=True, slots=True)
class ControllerContext:
    """What the factories build from. ``rng`` is handed out per controller by
    ``build_controllers`` (each gets its own generator seeded from it). ``metrics`` is the
    HPA controller's way to the metrics APIs: without one that controller cannot be built."""

    api: ControllerApi
    clock: Clock
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    metrics: MetricsClient | None = None
    hpa_config: Config = field(default_factory=Config)
    hpa_sync_period: timedelta = DEFAULT_SYNC_PERIOD
    # The CronHPA controller's zone (``--cronhpa-timezone``); None: UTC.
    cronhpa_zone: ZoneInfo | None = None
    # Durable series and per-object state (podscale.history); None: the controllers that
    # need one keep their state in memory only.
    history: HistoryStore | None = None
    # Where controllers publish external metrics (the plane's push provider), if anywhere:
    # the EffectiveHorizontalPodAutoscaler controller's crane_autoscaling_* metrics.
    external_metrics_writer: ExternalMetricsWriter | None = None
    # The plane's external.metrics.k8s.io router, where a controller that serves external
    # metrics itself (KEDA's metrics server) routes the reads of its selector label.
    external_metrics_routes: ExternalMetricsRouter | None = None
    # Where KEDA's podscale-push scaler reads its metric; None: the routes' fallback (the
    # plane's push provider). A controller manager on a cluster reads the cluster's API.
    external_metrics_source: ExternalMetricsProvider | None = None


Factory = Callable[[ControllerContext], Controller]


@dataclass(frozen=True, slots=True)
class ControllerSpec:
    """A controller podscale can run: its canonical name, older alias and factory."""

    name: str
    alias: str
    factory: Factory


def _hpa_controller(context: ControllerContext) -> Controller:
    if context.metrics is None:
        raise ValueError(f"the {HPA_CONTROLLER} needs a metrics client")
    return HorizontalPodAutoscalerController(
        context.api,
        context.clock,
        context.metrics,
        config=context.hpa_config,
        sync_period=context.hpa_sync_period,
        history=context.history,
    )


def _phpa_controller(context: ControllerContext) -> Controller:
    if context.metrics is None:
        raise ValueError(
            "the predictive-horizontal-pod-autoscaler-controller needs a metrics client"
        )
    return PredictiveHorizontalPodAutoscalerController(
        context.api,
        context.clock,
        context.metrics,
        history=context.history,
        config=context.hpa_config,
        sync_period=context.hpa_sync_period,
    )


_SPECS: Final[tuple[ControllerSpec, ...]] = (
    ControllerSpec(
        "replicaset-controller",
        "replicaset",
        lambda c: ReplicaSetController(c.api, c.clock, rng=c.rng),
    ),
    ControllerSpec(
        "deployment-controller", "deployment", lambda c: DeploymentController(c.api, c.clock)
    ),
    ControllerSpec(
        "statefulset-controller", "statefulset", lambda c: StatefulSetController(c.api, c.clock)
    ),
    ControllerSpec(
        "garbage-collector-controller",
        "garbagecollector",
        lambda c: GarbageCollectorController(c.api, c.clock),
    ),
    ControllerSpec(HPA_CONTROLLER, "horizontalpodautoscaling", _hpa_controller),
    ControllerSpec(
        "namespace-controller", "namespace", lambda c: NamespaceController(c.api, c.clock)
    ),
    # Last, so the controllers above keep the random generators they always drew.
    ControllerSpec(
        "pod-garbage-collector-controller",
        "podgc",
        lambda c: PodGarbageCollectorController(c.api, c.clock),
    ),
    # The example operator's controller: idle until its CRD is installed (``webapp``).
    ControllerSpec("webapp-controller", "webapp", lambda c: WebAppController(c.api, c.clock)),
    # Scheduled scaling: idle until its CRD is installed (``cronhpa``).
    ControllerSpec(
        "cronhpa-controller",
        "cronhpa",
        lambda c: CronHorizontalPodAutoscalerController(
            c.api, c.clock, zone=c.cronhpa_zone, rng=c.rng
        ),
    ),
    # Crane's EffectiveHorizontalPodAutoscaler: idle until its CRD is installed (``ehpa``).
    ControllerSpec(
        "ehpa-controller",
        "ehpa",
        lambda c: EffectiveHPAController(
            c.api, c.clock, history=c.history, writer=c.external_metrics_writer
        ),
    ),
    # Predictive scaling: idle until its CRD is installed (``phpa``).
    ControllerSpec(
        "predictive-horizontal-pod-autoscaler-controller",
        "predictivehorizontalpodautoscaling",
        _phpa_controller,
    ),
    # Per-minute usage series of every autoscaled workload (idle without a history store).
    ControllerSpec(
        "usage-history-controller",
        "usagehistory",
        lambda c: UsageHistoryController(c.api, c.clock, c.metrics, c.history),
    ),
    # KEDA's ScaledObjects: idle until its CRD is installed (``keda``).
    ControllerSpec(
        "keda-operator",
        "keda",
        lambda c: ScaledObjectController(
            c.api,
            c.clock,
            routes=c.external_metrics_routes,
            external=c.external_metrics_source,
            pod_metrics=c.metrics if isinstance(c.metrics, PodMetricsReader) else None,
        ),
    ),
    # Kapacity's IntelligentHorizontalPodAutoscaler and the ReplicaProfiles it writes (one
    # manager upstream, two controllers here): idle until their CRDs are installed.
    ControllerSpec(
        "ihpa-controller",
        "ihpa",
        lambda c: IhpaController(c.api, c.clock, c.metrics, history=c.history),
    ),
    ControllerSpec(
        "replicaprofile-controller",
        "replicaprofile",
        lambda c: ReplicaProfileController(c.api, c.clock),
    ),
)

CONTROLLER_NAMES: Final[tuple[str, ...]] = tuple(spec.name for spec in _SPECS)
_BY_NAME: Final[Mapping[str, ControllerSpec]] = {
    **{spec.alias: spec for spec in _SPECS},
    **{spec.name: spec for spec in _SPECS},
}


def select_controllers(flag: str | Iterable[str] = "*") -> frozenset[str]:
    """The canonical names ``--controllers`` enables. Later entries win over ``*``; an
    empty list enables nothing. Raises ``ValueError`` naming an unknown controller."""
    items = [part.strip() for part in flag.split(",")] if isinstance(flag, str) else list(flag)
    items = [item for item in items if item]
    everything = "*" in items
    enabled: set[str] = set(CONTROLLER_NAMES) if everything else set()
    for item in items:
        if item == "*":
            continue
        disable = item.startswith("-")
        name = item[1:] if disable else item
        spec = _BY_NAME.get(name)
        if spec is None:
            known = ", ".join(sorted(CONTROLLER_NAMES))
            raise ValueError(f'"{name}" is not in the list of known controllers: {known}')
        if disable:
            enabled.discard(spec.name)
        else:
            enabled.add(spec.name)
    return frozenset(enabled)


def build_controllers(
    context: ControllerContext, enabled: Iterable[str] = CONTROLLER_NAMES
) -> list[Controller]:
    """The enabled controllers, in a fixed order; each draws its randomness from its own
    generator seeded from ``context.rng``, in that order. Raises ``ValueError`` when an
    enabled controller lacks what it needs (the HPA controller without ``metrics``)."""
    wanted = {(_BY_NAME[name].name) for name in enabled}
    controllers: list[Controller] = []
    for spec in _SPECS:
        if spec.name in wanted:
            own = random.Random(context.rng.getrandbits(64))
            controllers.append(spec.factory(replace(context, rng=own)))
    return controllers
