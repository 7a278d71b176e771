"""What every handler needs: the store, the clock, feature gates, options; and response helpers.

``app.create_app`` (or ``podscale.client.inprocess``) builds one ``ServerState``; the
``operations*`` modules, their HTTP shells (``handlers_*``, ``subresources``), ``watch`` and
``metrics`` receive it; the custom/external metrics providers (``metricsapis.providers``) hang off
it too. ``json_response`` is the one JSON encoder of the server (compact, UTF-8,
``application/json``), so every body, Status included, is rendered the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson
from prometheus_client import CollectorRegistry
from starlette.responses import Response

from podscale.api.feature_gates import DEFAULT_FEATURE_GATES
from podscale.apiserver.customresources.registry import CustomKindRegistry
from podscale.apiserver.http.fairness import HeavyWork
from podscale.apiserver.http.health import HealthCheck
from podscale.apiserver.metricsapis.providers import CustomMetricsProvider, ExternalMetricsProvider
from podscale.apiserver.operations.pod_log_options import ContainerLogSource
from podscale.apiserver.registry.admission_hooks import AdmissionHooks
from podscale.apiserver.registry.service_ranges import ServiceNetwork
from podscale.history import StateStore
from podscale.store.interface import Clock, Store

__all__ = [
    "DEFAULT_BOOKMARK_INTERVAL",
    "MetricsProvider",
    "ServerState",
    "json_response",
    "query_flag",
]

JSON = dict[str, Any]


class MetricsProvider(Protocol):
    """The metrics.k8s.io/v1beta1 data source (the metrics pipeline fills it later).

    ``pod_metrics(namespace)`` returns PodMetrics dicts (``metadata``, ``timestamp``,
    ``window``, ``containers[].usage``) of one namespace, or of all for ``None``;
    ``node_metrics()`` returns NodeMetrics dicts (``metadata``, ``timestamp``, ``window``,
    ``usage``).
    """

    def pod_metrics(self, namespace: str | None) -> list[JSON]: ...

    def node_metrics(self) -> list[JSON]: ...


# kube-apiserver's watch cache sends a watch its bookmarks about once a minute (its event
# history is kept a minute plus a margin for that reason). Shorter only costs: on virtual time
# every idle informer wakes at each interval (5 s made bookmarks most of a replay's watch work).
DEFAULT_BOOKMARK_INTERVAL = 60.0


@dataclass
class ServerState:
    """Shared, read-only after start. ``bookmark_interval`` is how long an idle watch with
    ``allowWatchBookmarks=true`` waits before it sends a BOOKMARK (``DEFAULT_BOOKMARK_INTERVAL``
    unless a test shortens it)."""

    store: Store
    clock: Clock
    feature_gates: frozenset[str] = DEFAULT_FEATURE_GATES
    metrics_provider: MetricsProvider | None = None
    custom_metrics_provider: CustomMetricsProvider | None = None
    external_metrics_provider: ExternalMetricsProvider | None = None
    version_info: JSON = field(default_factory=dict)
    bookmark_interval: float = DEFAULT_BOOKMARK_INTERVAL
    # The collectors served on /metrics (the controllers and the supervisor register theirs
    # when they start next to the server, e.g. the HPA controller's upstream metrics). One
    # registry per server, never prometheus_client's global one, so that several planes in
    # one process (tests) do not collide.
    metrics_registry: CollectorRegistry = field(default_factory=CollectorRegistry)
    # Large LISTs and watch replays run here, off the loop and one at a time (``fairness``).
    heavy_work: HeavyWork = field(default_factory=HeavyWork)
    # Service cluster IP and node port ranges (``--service-cluster-ip-range`` and
    # ``--service-node-port-range`` of podscale up).
    service_network: ServiceNetwork = field(default_factory=ServiceNetwork)
    # The kubelets' container logs behind pods/log (the simulated kubelets install theirs).
    pod_logs: ContainerLogSource | None = None
    # Sources of the checks /readyz runs after ``ping``, asked on every request (a
    # supervisor lists its components as they appear; one in backoff fails its check).
    readiness_sources: list[Callable[[], Sequence[HealthCheck]]] = field(default_factory=list)
    # The kinds the stored CustomResourceDefinitions define (``customresources``).
    custom_kinds: CustomKindRegistry = field(default_factory=CustomKindRegistry)
    # The control plane's history store, whose state documents ``history_api`` serves
    # read-only (the embedded plane and ``podscale up`` set it; None: that path is a 404).
    history: StateStore | None = None
    # Validating admission hooks by (group, kind): the webhooks a product's install brings
    # (the plane registers KEDA's with its operator), run by ``operations.write_verbs``.
    admission_hooks: AdmissionHooks = field(default_factory=AdmissionHooks)
    # The Scale views ``operations.subresources.get_scale`` served last, by (storage
    # resource, namespace, name, the parent's resourceVersion, id of the kind info), each
    # with the kind info it was made for (so the id stays that info's) and the view.
    scale_views: dict[tuple[str, str, str, str, int], tuple[object, JSON]] = field(
        default_factory=dict
    )


def json_response(
    body: Any, status_code: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    return Response(
        orjson.dumps(body), status_code, headers=dict(headers or {}), media_type="application/json"
    )


def query_flag(value: str | None) -> bool:
    """A boolean query parameter as Go's ``strconv.ParseBool`` reads the common spellings."""
    return (value or "").strip().lower() in ("1", "t", "true")
