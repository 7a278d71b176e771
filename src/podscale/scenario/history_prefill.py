"""A scenario's ``spec.history``: the load model's past, written before the run starts.

``ScenarioRun.start`` (``podscale.scenario.run``) calls ``prefill`` once the scenario's
``t = 0`` is fixed and before any autoscaler exists, so a forecaster (the predictive
autoscalers' controllers, reading ``EmbeddedControlPlane.history``) starts warm, as if the
workloads had been running, without simulating the days before. The points are computed
here, purely: for each workload with a load, per minute of the ``history`` before the start,
the mean offered request rate over the minute's 60 whole seconds
(``podscale.runtime.load.rate_history``: a trace read before its offset, a sine continued
backwards; seconds the source knows nothing of are left out, a minute with none has no
point) times the CPU one request/s costs (noise-free, in cores): the ``cpu_usage`` series
(``podscale.history``) of that workload, as the usage recorder would have written it minus
the pods' baseline (which is not load, as replay's ``cpu_demand`` has it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Final, Protocol

from podscale.api.durations import parse_go_duration
from podscale.history import Point, SeriesKey, SeriesStore
from podscale.runtime.load import LoadProfile, RateSource, rate_history
from podscale.runtime.load.rates import RateHistory

__all__ = [
    "CPU_USAGE",
    "MAX_HISTORY",
    "history_points",
    "minute_points",
    "parse_history",
    "prefill",
]

CPU_USAGE: Final = "cpu_usage"
# The longest history a scenario may ask for: five weeks (a weekly season, four times over).
MAX_HISTORY: Final = timedelta(days=35)
_MINUTE: Final = 60

JSON = dict[str, Any]
_DAYS: Final = re.compile(r"([0-9]+)d(.*)")


def parse_history(text: str) -> timedelta:
    """A Go duration, optionally led by whole days (``7d``, ``1d12h``: Go has no day
    unit, yet a history is counted in days). Raises ``DurationError`` (or ``ValueError``
    beyond ``MAX_HISTORY``, or when negative)."""
    days = _DAYS.fullmatch(text)
    value = (
        timedelta(days=int(days.group(1)))
        + (parse_go_duration(days.group(2)) if days.group(2) else timedelta(0))
        if days is not None
        else parse_go_duration(text)
    )
    if value < timedelta(0):
        raise ValueError("must be greater than or equal to 0")
    if value > MAX_HISTORY:
        raise ValueError("must be no more than 35d")
    return value


class _Target(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def namespace(self) -> str: ...
    @property
    def api_version(self) -> str: ...


class _Workload(Protocol):
    @property
    def target(self) -> _Target: ...
    @property
    def load(self) -> RateSource: ...
    @property
    def profile(self) -> LoadProfile: ...


def minute_points(
    rate: RateHistory, milli_cpu_per_rps: float, start: datetime, history: timedelta
) -> list[Point]:
    """The per-minute offered CPU (cores) of the whole minutes in ``[start - history,
    start)``, oldest first; ``rate`` reads seconds relative to ``start``."""
    minutes = int(history.total_seconds() // _MINUTE)
    points: list[Point] = []
    for back in range(minutes, 0, -1):
        first = -back * _MINUTE
        known = [r for s in range(first, first + _MINUTE) if (r := rate(float(s))) is not None]
        if known:
            cores = sum(known) / len(known) * milli_cpu_per_rps / 1000
            points.append(Point(start + timedelta(seconds=first), cores))
    return points


def _template_containers(obj: JSON) -> list[str]:
    pod_spec = ((obj.get("spec") or {}).get("template") or {}).get("spec") or {}
    return [str(c.get("name")) for c in pod_spec.get("containers") or [] if isinstance(c, dict)]


def milli_cpu_per_rps(workload: _Workload, manifests: Sequence[JSON]) -> float:
    """What one request/s costs the workload's pods, in millicores: the sum over its pod
    template's containers (a custom target has none: the containers its load names)."""
    target, profile = workload.target, workload.profile
    for obj in manifests:
        meta = obj.get("metadata") or {}
        same = (obj.get("kind"), meta.get("namespace") or "default", meta.get("name")) == (
            target.kind,
            target.namespace,
            target.name,
        )
        if same and (names := _template_containers(obj)):
            return sum(profile.cost_of(n).milli_cpu_per_rps for n in names)
    return sum(cost.milli_cpu_per_rps for cost in profile.costs.values())


def history_points(
    workloads: Sequence[_Workload],
    manifests: Sequence[JSON],
    start: datetime,
    history: timedelta,
) -> dict[SeriesKey, list[Point]]:
    """Every workload's ``cpu_usage`` points for the ``history`` before ``start``
    (workloads whose load knows nothing of that past get none)."""
    found: dict[SeriesKey, list[Point]] = {}
    for workload in workloads:
        t = workload.target
        points = minute_points(
            rate_history(workload.load),
            milli_cpu_per_rps(workload, manifests),
            start,
            history,
        )
        if points:
            found[SeriesKey(t.namespace, t.kind, t.name, CPU_USAGE)] = points
    return found


def prefill(store: SeriesStore, points: Mapping[SeriesKey, Sequence[Point]]) -> None:
    """Write the points (the shell's one side effect)."""
    for key, series in points.items():
        store.write(key, series)
