"""``MetricsServer``: scrapes every kubelet each resolution and serves metrics.k8s.io.

The loop of metrics-server (pkg/server/server.go ``runScrape``/``tick``, pkg/scraper):
one tick right away, then one every ``resolution`` (default 15 s) on the injected clock;
a tick asks the source for the nodes, scrapes them all concurrently, each bounded by
``scrape_timeout`` (default 90% of the resolution, as metrics-server derives it), decodes the
answers (``points.decode_summary``) and stores the merged batch (``storage``). A node that
fails or times out is simply absent from that batch: the other nodes keep their data, and its
own pods are dropped at that tick rather than served stale, coming back two scrapes after it
recovers. Ticks that a slow scrape overran are skipped (Go's ticker drops them). The random
per-node stagger of metrics-server is left out: scrapes are deterministic.

Waiting is ``asyncio`` on the running loop, so on a ``podscale.runtime`` virtual-time loop a
simulated hour of scrapes takes no wall time; timestamps come from ``clock``.

It implements the API server's ``MetricsProvider`` (``podscale.apiserver.state``):
``create_app(..., metrics_provider=server)`` serves it, and with ``objects`` it serves only
pods and nodes that exist in the API, with their labels.

A source that is also a ``DecodedStatsSource`` is scraped through ``summary_points``: the
same batch as decoding its Summary, without building the Summary. A source that is also an
``InlineStatsSource`` (the simulated kubelets, in process) answers without ever waiting, so
its scrape needs no task, timeout or gather per node: a deadline cannot pass while nothing
waits. It is read in place, with the loop iterations the tasks and gather would have taken
kept (``_scrape_inline``), so that whatever else runs at that instant sees the same order.

``pod_metrics_selected`` is the label-selected read without a scan of the namespace, for
in-process readers (the HPA controller's ``InProcessMetricsClient``): a ``PodSelection``
(the pod informer's label index; ``SimulatedUsage`` is one, and is used when it is the
source) names the candidate pods of a selector with an exact-match requirement, and each
is then checked as ``pod_metrics`` + filtering would (in the snapshot, alive in
``objects``, its current labels matching). ``pod_usage_selected`` is the same read as values
(``PodUsage``), so that the in-process reader neither renders nor parses a PodMetrics item.
Like metrics-server, which selects from its pod informer, a pod relabelled a moment ago may
be missed until the informer has seen it.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from podscale.api.selectors import Selector
from podscale.apiserver.metricsapis.pod_usage import PodUsage
from podscale.metrics.object_labels import ObjectLabels
from podscale.metrics.server.pause import Pause
from podscale.metrics.server.points import MetricsBatch, decode_summary, merge_batches
from podscale.metrics.server.storage import DEFAULT_RESOLUTION, MetricsStorage
from podscale.metrics.server.summary import KubeletStatsSource
from podscale.store.interface import Clock

__all__ = [
    "DecodedStatsSource",
    "InlineStatsSource",
    "MetricsServer",
    "PodSelection",
    "ScrapeResult",
]

JSON = dict[str, Any]
_LOG = logging.getLogger(__name__)
_TIMEOUT_SHARE = 0.9


@dataclass(frozen=True, slots=True)
class ScrapeResult:
    """One tick: when it started, the nodes that answered, and why the others did not
    (``""`` names a failure to list the nodes)."""

    time: datetime
    scraped: tuple[str, ...] = ()
    failures: Mapping[str, str] = field(default_factory=dict)


@runtime_checkable
class DecodedStatsSource(Protocol):
    """A ``KubeletStatsSource`` that also answers a kubelet's scrape already decoded:
    ``summary_points(node)`` must equal ``decode_summary(await summary(node))`` and fail as
    ``summary`` does. An in-process source (the simulated kubelets) so spares building the
    Summary only to decode it at once."""

    async def summary_points(self, node_name: str) -> MetricsBatch: ...


@runtime_checkable
class InlineStatsSource(Protocol):
    """A ``DecodedStatsSource`` whose answers never wait: ``nodes_now()`` and
    ``summary_points_now(node)`` return (or raise) what ``await nodes()`` and
    ``await summary_points(node)`` would at this instant, and those never suspend."""

    def nodes_now(self) -> list[str]: ...

    def summary_points_now(self, node_name: str) -> MetricsBatch: ...


@runtime_checkable
class PodSelection(Protocol):
    """Names of the pods of ``namespace`` whose labels ``selector`` matches (an index, e.g.
    an informer's, so that a selection costs the size of its answer)."""

    def select_pods(self, namespace: str, selector: Selector) -> Sequence[str]: ...


def _has_exact_requirement(selector: Selector) -> bool:
    return any(selector.requires_exact_match(r.key) is not None for r in selector.requirements)


class MetricsServer:
    def __init__(
        self,
        source: KubeletStatsSource,
        clock: Clock,
        *,
        resolution: timedelta = DEFAULT_RESOLUTION,
        scrape_timeout: timedelta | None = None,
        objects: ObjectLabels | None = None,
        pods: PodSelection | None = None,
    ) -> None:
        self._source = source
        self._clock = clock
        self._storage = MetricsStorage(resolution)
        self._resolution = resolution
        self._scrape_timeout = scrape_timeout or resolution * _TIMEOUT_SHARE
        if self._scrape_timeout <= timedelta(0):
            raise ValueError("scrape_timeout must be positive")
        self._objects = objects
        self._pods = pods if pods is not None else _selection_of(source)
        self._decoded = source if isinstance(source, DecodedStatsSource) else None
        self._inline = source if isinstance(source, InlineStatsSource) else None
        self._stop: Pause | None = None
        self._stop_requested = False
        self._last_scrape: ScrapeResult | None = None
        self._scrape_count = 0

    @property
    def storage(self) -> MetricsStorage:
        return self._storage

    @property
    def resolution(self) -> timedelta:
        return self._resolution

    @property
    def last_scrape(self) -> ScrapeResult | None:
        return self._last_scrape

    @property
    def scrape_count(self) -> int:
        return self._scrape_count

    # -- the loop -----------------------------------------------------------------------

    async def run(self) -> None:
        """Scrape now and every resolution until ``stop()`` (or cancellation); one run at a
        time, and the server can run again after a stop."""
        if self._stop is not None:
            raise RuntimeError("the metrics server is already running")
        pause = self._stop = Pause()
        if self._stop_requested:
            pause.end()
        started = self._clock.now()
        tick = 0
        try:
            while not pause.ended:
                await self.scrape()
                tick = self._next_tick(started, tick)
                delay = started + self._resolution * tick - self._clock.now()
                await pause.wait(max(delay.total_seconds(), 0.0))
        finally:
            self._stop = None
            self._stop_requested = False

    def _next_tick(self, started: datetime, tick: int) -> int:
        # A tick whose time has passed while scraping is dropped, except the latest one,
        # which (like Go's buffered ticker channel) fires at once.
        elapsed = self._clock.now() - started
        return max(tick + 1, math.floor(elapsed / self._resolution))

    def stop(self) -> None:
        """End ``run`` after the current tick. Called before ``run`` got going (a task not
        yet started), it makes that run return at once without scraping."""
        self._stop_requested = True
        if self._stop is not None:
            self._stop.end()

    async def scrape(self) -> ScrapeResult:
        """One tick: scrape every node and store what came back."""
        started = self._clock.now()
        timeout = self._scrape_timeout.total_seconds()
        failures: dict[str, str] = {}
        inline = self._inline
        try:
            if inline is not None:
                nodes = sorted(inline.nodes_now())  # cannot outlast a deadline
            else:
                async with asyncio.timeout(timeout):
                    nodes = sorted(await self._source.nodes())
        except Exception as err:  # a failed list still stores (an empty batch), like upstream
            _LOG.warning("Failed to list nodes: %s", _describe(err))
            failures[""] = _describe(err)
            nodes = []
        answers: list[MetricsBatch | str]
        if inline is not None and nodes:
            answers = await _scrape_inline(inline, nodes)
        else:
            answers = await asyncio.gather(*(self._scrape_node(node, timeout) for node in nodes))
        batches: list[MetricsBatch] = []
        scraped: list[str] = []
        for node, answer in zip(nodes, answers, strict=True):
            if isinstance(answer, MetricsBatch):
                batches.append(answer)
                scraped.append(node)
            else:
                failures[node] = answer
        self._storage.store(merge_batches(batches))
        result = ScrapeResult(started, tuple(scraped), failures)
        self._last_scrape = result
        self._scrape_count += 1
        return result

    async def _scrape_node(self, node: str, timeout: float) -> MetricsBatch | str:
        decoded = self._decoded
        try:
            async with asyncio.timeout(timeout):
                if decoded is not None:
                    return await decoded.summary_points(node)
                summary = await self._source.summary(node)
        except Exception as err:
            return _scrape_failed(node, err)
        return decode_summary(summary)

    # -- MetricsProvider ----------------------------------------------------------------

    def pod_metrics(self, namespace: str | None) -> list[JSON]:
        return self._storage.pod_metrics(namespace, self._clock.now(), self._objects)

    def pod_metrics_selected(self, namespace: str, selector: Selector) -> list[JSON] | None:
        """``pod_metrics(namespace)`` narrowed to the pods ``selector`` matches, read
        through the ``PodSelection``; None when it cannot narrow (no selection, or no
        exact-match requirement): the caller then filters ``pod_metrics`` itself."""
        if self._pods is None or not _has_exact_requirement(selector):
            return None
        names = self._pods.select_pods(namespace, selector)
        return self._storage.pod_metrics_of(
            namespace, names, selector, self._clock.now(), self._objects
        )

    def pod_usage_selected(self, namespace: str, selector: Selector) -> list[PodUsage] | None:
        """``pod_metrics_selected``'s items as values (``PodUsageReader``), unrendered."""
        if self._pods is None or not _has_exact_requirement(selector):
            return None
        names = self._pods.select_pods(namespace, selector)
        return self._storage.pod_usage_of(namespace, names, selector, self._objects)

    def node_metrics(self) -> list[JSON]:
        return self._storage.node_metrics(self._clock.now(), self._objects)

    def ready(self) -> bool:
        return self._storage.ready()


async def _scrape_inline(source: InlineStatsSource, nodes: list[str]) -> list[MetricsBatch | str]:
    """What ``gather`` of the nodes' ``_scrape_node`` answers for an ``InlineStatsSource``,
    in the same loop iterations: the per-node tasks would first run one iteration later, their
    completions reach gather in the next and gather's result wakes the scrape in the one
    after; every task runs to its end at once (nothing waits), so each node is read where its
    task would have read it and the batch is stored where it would have been."""
    await asyncio.sleep(0)  # the iteration of the nodes' tasks
    answers: list[MetricsBatch | str] = []
    for node in nodes:
        try:
            answers.append(source.summary_points_now(node))
        except Exception as err:
            answers.append(_scrape_failed(node, err))
    await asyncio.sleep(0)  # their done callbacks, in gather
    await asyncio.sleep(0)  # gather's result waking the scrape
    return answers


def _scrape_failed(node: str, err: Exception) -> str:
    """A node's failure as the tick reports it (a deadline as Go's context says it), logged."""
    reason = "context deadline exceeded" if isinstance(err, TimeoutError) else _describe(err)
    _LOG.warning("Failed to scrape node %s: %s", node, reason)
    return reason


def _selection_of(source: KubeletStatsSource) -> PodSelection | None:
    return source if isinstance(source, PodSelection) else None


def _describe(err: BaseException) -> str:
    return str(err) or type(err).__name__


if TYPE_CHECKING:  # mypy holds the server to the API server's protocol
    from podscale.apiserver.metricsapis.pod_usage import PodUsageReader
    from podscale.apiserver.state import MetricsProvider

    def _as_provider(server: MetricsServer) -> MetricsProvider:
        return server

    def _as_usage_reader(server: MetricsServer) -> PodUsageReader:
        return server
