"""The controller manager's own HTTP endpoints: ``/healthz``, ``/livez``, ``/readyz``, ``/metrics``.

kube-controller-manager serves ``/healthz`` on its secure port (10257) with one check per
controller plus, under leader election, client-go's ``HealthzAdaptor`` named
``leaderElection``: it fails only while this process believes it leads but has not renewed
its lease for longer than the lease duration plus a tolerance (20 s in
kube-controller-manager), so the kubelet restarts a leader stuck without renewing. The text
and status codes are the apiserver ``healthz`` package's, rendered by
``podscale.apiserver.http.health.render_health``.

``/readyz`` is podscale's addition for a Deployment's readiness probe (upstream's
controller manager has none): ready once the controller manager's informers have synced,
and a standby replica (not leading) is ready at once, since it has nothing to sync and a
rollout of two replicas must not wait on the one that never leads. Each supervised
component (``podscale.client.supervisor``) adds a check that fails during its restart
backoff. ``/metrics`` renders a ``prometheus_client`` collector (the work queues', the HPA
controller's, the supervisor's and ``leader_election_master_status``) in Go's order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final, Protocol

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from podscale.api.exposition import render_text
from podscale.apiserver.http.health import HealthCheck, render_health

__all__ = [
    "LEADER_ELECTION_TOLERANCE",
    "ElectionStatus",
    "LeaderElectionMetrics",
    "health_app",
    "leader_election_check",
    "sync_check",
]

# kube-controller-manager's NewLeaderHealthzAdaptor(time.Second * 20).
LEADER_ELECTION_TOLERANCE: Final = timedelta(seconds=20)
_EXPOSITION: Final = "text/plain; version=0.0.4; charset=utf-8"


class ElectionStatus(Protocol):
    """What the endpoints read of a leader elector (``LeaderElector`` satisfies it
    through ``podscale.controllermanager.election``)."""

    @property
    def is_leader(self) -> bool: ...

    @property
    def observed_time(self) -> datetime | None:
        """When this process last saw its lease renewed (client-go's ``observedTime``)."""
        ...


def leader_election_check(
    lease_name: str,
    status: ElectionStatus,
    now: datetime,
    lease_duration: timedelta,
    tolerance: timedelta = LEADER_ELECTION_TOLERANCE,
) -> str | None:
    """client-go's ``LeaderElector.Check``: None (healthy) unless leading with a renewal
    older than ``lease_duration + tolerance``."""
    observed = status.observed_time
    if not status.is_leader or observed is None:
        return None
    if now - observed > lease_duration + tolerance:
        return f"failed election to renew leadership on lease {lease_name}"
    return None


def sync_check(synced: Callable[[], bool], leading: Callable[[], bool]) -> HealthCheck:
    """``/readyz``'s ``informer-sync``: the caches synced, or standing by (not leading)."""

    def check() -> str | None:
        if synced() or not leading():
            return None
        return "informer caches not synced yet"

    return HealthCheck("informer-sync", check)


class LeaderElectionMetrics:
    """client-go's ``leader_election_master_status{name}``: 1 while leading, else 0."""

    def __init__(self, lease_name: str, status: ElectionStatus) -> None:
        self._name = lease_name
        self._status = status

    def collect(self) -> Iterable[Metric]:
        gauge = GaugeMetricFamily(
            "leader_election_master_status",
            "Gauge of if the reporting system is master of the relevant lease, 0 indicates "
            "backup, 1 indicates master. 'name' is the string used to identify the lease. "
            "Please make sure to group by name.",
            labels=("name",),
        )
        gauge.add_metric((self._name,), 1.0 if self._status.is_leader else 0.0)
        yield gauge


@dataclass(frozen=True, slots=True)
class HealthSources:
    """What the endpoints consult on every request."""

    liveness: Sequence[HealthCheck]
    readiness: Callable[[], Sequence[HealthCheck]]
    metrics: Collector


def health_app(sources: HealthSources) -> Starlette:
    """The ASGI app of the endpoints; any other path is a plain 404."""

    async def health(request: Request) -> Response:
        endpoint = request.url.path.strip("/").split("/", 1)[0]
        answer = render_health(
            endpoint,
            request.path_params.get("check"),
            verbose="verbose" in request.query_params,
            excluded=request.query_params.getlist("exclude"),
            readiness=sources.readiness(),
            liveness=sources.liveness,
        )
        if answer is None:
            return PlainTextResponse("404 page not found\n", status_code=404)
        return PlainTextResponse(answer.body, status_code=answer.status)

    async def metrics(_request: Request) -> Response:
        return Response(render_text(sources.metrics), media_type=_EXPOSITION)

    routes = [Route("/metrics", metrics)]
    for endpoint in ("healthz", "livez", "readyz"):
        routes.append(Route(f"/{endpoint}", health))
        routes.append(Route(f"/{endpoint}/{{check}}", health))
    return Starlette(routes=routes)
