"""What a scenario must offer to be run: the structural protocols ``scenario.run`` reads.

``podscale.scenario.run`` sits above the runtime and reads a scenario only through these, so
anything with the same fields runs: the loader's ``scenario.model.Scenario`` (built from a
user's YAML) and the replay command's scenarios built in code alike. Pure declarations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any, Protocol

from podscale.runtime.load import LoadProfile, RateSource
from podscale.runtime.simulated.kubelet_state import StartupProfile
from podscale.scenario.external_schedule import SeriesLike
from podscale.scenario.snapshot import TargetRef

__all__ = ["EventLike", "ManifestLike", "NodeLike", "ScenarioLike", "WorkloadLike"]


class NodeLike(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def cpu(self) -> object: ...
    @property
    def memory(self) -> object: ...
    @property
    def pods(self) -> int: ...
    @property
    def labels(self) -> Mapping[str, str]: ...


class ManifestLike(Protocol):
    @property
    def object(self) -> dict[str, Any]: ...


class WorkloadLike(Protocol):
    @property
    def target(self) -> TargetRef: ...
    @property
    def load(self) -> RateSource: ...
    @property
    def profile(self) -> LoadProfile: ...


class EventLike(Protocol):
    @property
    def at(self) -> timedelta: ...
    @property
    def type(self) -> str: ...
    @property
    def target(self) -> TargetRef | None: ...
    @property
    def replicas(self) -> int | None: ...
    @property
    def count(self) -> int: ...
    @property
    def node(self) -> str | None: ...


class ScenarioLike(Protocol):
    """The fields of ``podscale.scenario.Scenario`` a run reads."""

    @property
    def name(self) -> str: ...
    @property
    def duration(self) -> timedelta: ...
    @property
    def seed(self) -> int: ...
    @property
    def nodes(self) -> Sequence[NodeLike]: ...
    @property
    def pods(self) -> StartupProfile: ...
    @property
    def manifests(self) -> Sequence[ManifestLike]: ...
    @property
    def workloads(self) -> Sequence[WorkloadLike]: ...
    @property
    def events(self) -> Sequence[EventLike]: ...
    @property
    def external_metrics(self) -> Sequence[SeriesLike]: ...
    @property
    def history(self) -> timedelta: ...
    @property
    def feature_gates(self) -> frozenset[str]: ...
