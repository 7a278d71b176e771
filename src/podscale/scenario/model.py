"""The loaded form of a scenario file: frozen values, already validated.

``podscale.scenario.loader`` builds these from YAML; whoever runs a scenario (the simulated cluster,
``podscale demo``) reads them. Load sources and costs are the runtime's own types
(``podscale.runtime.load``), node and pod timing map onto
``podscale.runtime.simulated.node_objects`` and
``podscale.runtime.simulated.kubelet_state.StartupProfile``, so running a scenario needs no further
translation. Manifests stay plain JSON dicts: unknown fields survive untouched.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Final

from podscale.api.feature_gates import DEFAULT_FEATURE_GATES
from podscale.api.quantity import Quantity
from podscale.runtime.load import LoadProfile, RateSource
from podscale.runtime.simulated.kubelet_state import StartupProfile
from podscale.runtime.simulated.node_objects import node

__all__ = [
    "API_VERSION",
    "EVENT_TYPES",
    "KIND",
    "TARGET_API_VERSIONS",
    "ExternalMetricSeries",
    "ExternalMetricValue",
    "Manifest",
    "NodeSpec",
    "Scenario",
    "ScenarioEvent",
    "Workload",
    "WorkloadTarget",
]

API_VERSION: Final = "podscale.dev/v1alpha1"
KIND: Final = "Scenario"
# The built-in kinds with a scale subresource, which a workload (and an HPA) can target,
# with the group/version they live in; a scenario's CRDs may define more
# (``podscale.scenario.targets``).
TARGET_API_VERSIONS: Final = {
    "Deployment": "apps/v1",
    "ReplicaSet": "apps/v1",
    "StatefulSet": "apps/v1",
}
EVENT_TYPES: Final = ("crash", "loseNode", "restoreNode", "scale")


@dataclass(frozen=True, slots=True)
class NodeSpec:
    """A simulated node: allocatable equals capacity."""

    name: str
    cpu: Quantity
    memory: Quantity
    pods: int = 110
    labels: Mapping[str, str] = field(default_factory=dict)

    def to_object(self, now: datetime | None = None) -> dict[str, Any]:
        """The Node object the simulated cluster registers."""
        return node(
            self.name, str(self.cpu), str(self.memory), self.pods, labels=dict(self.labels), now=now
        )


@dataclass(frozen=True, slots=True)
class WorkloadTarget:
    """The workload a load source drives (the same object an HPA's scaleTargetRef names):
    a built-in kind with a scale subresource, or a custom kind whose CRD serves one
    (``api_version`` then names its group and version)."""

    kind: str
    name: str
    namespace: str = "default"
    api_version: str = "apps/v1"

    @property
    def built_in(self) -> bool:
        """A Deployment, ReplicaSet or StatefulSet (read from its spec), not a custom kind
        (read through its ``/scale`` subresource)."""
        return TARGET_API_VERSIONS.get(self.kind) == self.api_version

    def __str__(self) -> str:
        return f"{self.kind}/{self.namespace}/{self.name}"


@dataclass(frozen=True, slots=True)
class Workload:
    """A target, the request rate it receives, and what its containers cost."""

    target: WorkloadTarget
    load: RateSource
    profile: LoadProfile


@dataclass(frozen=True, slots=True)
class ScenarioEvent:
    """Something that happens at ``at`` after the start.

    ``scale`` sets ``replicas`` on ``target`` (through its scale subresource); ``crash``
    crashes ``count`` of ``target``'s running pods; ``loseNode`` makes ``node`` stop
    reporting and ``restoreNode`` brings it back.
    """

    at: timedelta
    type: str
    target: WorkloadTarget | None = None
    replicas: int | None = None
    count: int = 1
    node: str | None = None


@dataclass(frozen=True, slots=True)
class ExternalMetricValue:
    """From ``at`` after the start (until the next value) the series reads ``value``; None:
    it is no longer published from ``at`` on (its source stopped)."""

    at: timedelta
    value: Quantity | None


@dataclass(frozen=True, slots=True)
class ExternalMetricSeries:
    """One series of an external metric (external.metrics.k8s.io): a metric name in a
    namespace with a label set, and its values over time (step-hold, ordered by ``at``).
    Before the first ``at`` the series does not exist, as if nobody had pushed it yet."""

    name: str
    namespace: str = "default"
    labels: Mapping[str, str] = field(default_factory=dict)
    values: tuple[ExternalMetricValue, ...] = ()

    def value_at(self, offset: timedelta) -> Quantity | None:
        """The value held at ``offset`` after the start (None before the first, and while
        the series is stopped)."""
        held = None
        for step in sorted(self.values, key=lambda v: v.at):
            if step.at > offset:
                break
            held = step.value
        return held


@dataclass(frozen=True, slots=True)
class Manifest:
    """One object to create at the start; ``source`` is its file, or its field path when
    inline."""

    source: str
    object: dict[str, Any] = field(hash=False)


@dataclass(frozen=True, slots=True)
class Scenario:
    """A whole scenario file. ``source`` is the file it came from (None when parsed from a
    dict); trace paths are already resolved against its directory."""

    name: str
    duration: timedelta
    seed: int = 0
    nodes: tuple[NodeSpec, ...] = ()
    pods: StartupProfile = field(default_factory=StartupProfile)
    manifests: tuple[Manifest, ...] = ()
    workloads: tuple[Workload, ...] = ()
    events: tuple[ScenarioEvent, ...] = ()
    external_metrics: tuple[ExternalMetricSeries, ...] = ()
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    source: Path | None = None
    # How much of the load's past is written to the history store before the run starts
    # (``podscale.scenario.history_prefill``); 0: none.
    history: timedelta = timedelta(0)
    # ``spec.featureGates`` over upstream's defaults: the plane's API server and HPA
    # controller both run with these (``podscale.scenario.run.plane_for``).
    feature_gates: frozenset[str] = DEFAULT_FEATURE_GATES
