"""Work queue metrics with client-go's names: the hook ``client.workqueue.WorkQueue`` calls.

client-go's work queue reports to a ``MetricsProvider`` (``k8s.io/client-go/util/workqueue``
``metrics.go``): a queue created with a name gets its own metrics from the provider and
tells them when an item is added, handed out (``get``), finished (``done``) and re-queued
after a delay (``retry``, counted by every ``AddAfter``). ``QueueMetrics`` is that
per-queue hook; ``NOOP_QUEUE_METRICS`` is the default, so a queue without a provider costs
nothing. ``WorkQueueMetrics`` is the Prometheus provider
(``k8s.io/component-base/metrics/prometheus/workqueue``): one family per metric, labelled
``name``, in a ``prometheus_client`` collector that ``podscale.controllermanager.health``
serves on ``/metrics``:

- ``workqueue_depth``, ``workqueue_adds_total``, ``workqueue_retries_total``;
- ``workqueue_queue_duration_seconds`` (added until handed out) and
  ``workqueue_work_duration_seconds`` (handed out until done), with upstream's buckets
  (1e-6 s to 1e3 s, by tens);
- ``workqueue_unfinished_work_seconds`` and ``workqueue_longest_running_processor_seconds``
  over the items being processed now. client-go sets these two every 500 ms from a
  goroutine; here they are computed when scraped, which is what that loop approximates.

Times come from the injected ``Clock``, so the metrics are exact on virtual time.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final, Protocol

from prometheus_client import Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric

from podscale.store.interface import Clock

__all__ = [
    "NOOP_QUEUE_METRICS",
    "QueueMetrics",
    "QueueMetricsProvider",
    "WorkQueueMetrics",
]

# component-base's ExponentialBuckets(10e-7, 10, 10): 1 µs to 1000 s.
DURATION_BUCKETS: Final = tuple(10.0**exponent for exponent in range(-6, 4))


class QueueMetrics(Protocol):
    """What one queue reports (client-go's ``queueMetrics``)."""

    def add(self, item: Hashable) -> None: ...

    def get(self, item: Hashable) -> None: ...

    def done(self, item: Hashable) -> None: ...

    def retry(self) -> None: ...


class QueueMetricsProvider(Protocol):
    """Makes the metrics of a named queue (client-go's ``MetricsProvider``)."""

    def queue_metrics(self, name: str) -> QueueMetrics: ...


class _Noop:
    def add(self, item: Hashable) -> None:
        pass

    def get(self, item: Hashable) -> None:
        pass

    def done(self, item: Hashable) -> None:
        pass

    def retry(self) -> None:
        pass


NOOP_QUEUE_METRICS: Final[QueueMetrics] = _Noop()


@dataclass(slots=True)
class _Queue:
    """One named queue's bookkeeping: when each waiting item was added, when each item
    being processed was handed out."""

    name: str
    clock: Clock
    owner: WorkQueueMetrics
    added_at: dict[Hashable, datetime] = field(default_factory=dict)
    started_at: dict[Hashable, datetime] = field(default_factory=dict)

    def add(self, item: Hashable) -> None:
        self.owner.adds.labels(self.name).inc()
        self.owner.depth.labels(self.name).inc()
        # The first add counts: a later add of a waiting item does not reset its wait.
        self.added_at.setdefault(item, self.clock.now())

    def get(self, item: Hashable) -> None:
        now = self.clock.now()
        self.owner.depth.labels(self.name).dec()
        self.started_at[item] = now
        added = self.added_at.pop(item, None)
        if added is not None:
            self.owner.queue_duration.labels(self.name).observe(_seconds(now, added))

    def done(self, item: Hashable) -> None:
        started = self.started_at.pop(item, None)
        if started is not None:
            elapsed = _seconds(self.clock.now(), started)
            self.owner.work_duration.labels(self.name).observe(elapsed)

    def retry(self) -> None:
        self.owner.retries.labels(self.name).inc()

    def running(self, now: datetime) -> list[float]:
        return [_seconds(now, started) for started in self.started_at.values()]


def _seconds(now: datetime, then: datetime) -> float:
    return max(0.0, (now - then).total_seconds())


class WorkQueueMetrics:
    """The Prometheus provider: a ``prometheus_client`` collector of every queue it made
    metrics for (register it on a ``CollectorRegistry``)."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._queues: list[_Queue] = []
        # Not registered anywhere: ``collect`` hands their families on.
        self.depth = Gauge("workqueue_depth", "Current depth of workqueue", ["name"], registry=None)
        self.adds = Counter(
            "workqueue_adds", "Total number of adds handled by workqueue", ["name"], registry=None
        )
        self.retries = Counter(
            "workqueue_retries",
            "Total number of retries handled by workqueue",
            ["name"],
            registry=None,
        )
        self.queue_duration = Histogram(
            "workqueue_queue_duration_seconds",
            "How long in seconds an item stays in workqueue before being requested.",
            ["name"],
            buckets=DURATION_BUCKETS,
            registry=None,
        )
        self.work_duration = Histogram(
            "workqueue_work_duration_seconds",
            "How long in seconds processing an item from workqueue takes.",
            ["name"],
            buckets=DURATION_BUCKETS,
            registry=None,
        )

    def queue_metrics(self, name: str) -> QueueMetrics:
        queue = _Queue(name, self._clock, self)
        self._queues.append(queue)
        # client-go creates every series of a named queue up front, at zero.
        self.depth.labels(name)
        self.adds.labels(name)
        self.retries.labels(name)
        self.queue_duration.labels(name)
        self.work_duration.labels(name)
        return queue

    def collect(self) -> Iterable[Metric]:
        yield from self.depth.collect()
        yield from self.adds.collect()
        yield from self.retries.collect()
        yield from self.queue_duration.collect()
        yield from self.work_duration.collect()
        unfinished = GaugeMetricFamily(
            "workqueue_unfinished_work_seconds",
            "How many seconds of work has done that is in progress and hasn't been observed "
            "by work_duration. Large values indicate stuck threads. One can deduce the "
            "number of stuck threads by observing the rate at which this increases.",
            labels=("name",),
        )
        longest = GaugeMetricFamily(
            "workqueue_longest_running_processor_seconds",
            "How many seconds has the longest running processor for workqueue been running.",
            labels=("name",),
        )
        now = self._clock.now()
        totals: dict[str, list[float]] = {}
        for queue in self._queues:
            totals.setdefault(queue.name, []).extend(queue.running(now))
        for name, running in sorted(totals.items()):
            unfinished.add_metric((name,), sum(running))
            longest.add_metric((name,), max(running, default=0.0))
        yield unfinished
        yield longest
