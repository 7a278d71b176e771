"""Work queue metrics keep client-go's names and counting rules (``util/workqueue``)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from prometheus_client.parser import text_string_to_metric_families

from podscale.api.exposition import render_text
from podscale.client.ratelimit import FixedIntervalRateLimiter
from podscale.client.workqueue import WorkQueue
from podscale.client.workqueue_metrics import WorkQueueMetrics
from podscale.testing import FakeClock

UPSTREAM_NAMES = {
    "workqueue_depth",
    "workqueue_adds",  # exposed as workqueue_adds_total
    "workqueue_retries",
    "workqueue_queue_duration_seconds",
    "workqueue_work_duration_seconds",
    "workqueue_unfinished_work_seconds",
    "workqueue_longest_running_processor_seconds",
}


def sample(metrics: WorkQueueMetrics, name: str, queue: str = "q", **labels: str) -> float:
    """One sample of the scraped text (parsed back, as Prometheus would read it)."""
    for family in text_string_to_metric_families(render_text(metrics)):
        for s in family.samples:
            if s.name == name and s.labels == {"name": queue, **labels}:
                return float(s.value)
    raise AssertionError(f"no sample {name} for {queue} {labels}")


def make(name: str = "q") -> tuple[WorkQueue[str], WorkQueueMetrics, FakeClock]:
    clock = FakeClock()
    metrics = WorkQueueMetrics(clock)
    limiter = FixedIntervalRateLimiter(timedelta(seconds=5))
    return WorkQueue(clock, limiter, metrics=metrics.queue_metrics(name)), metrics, clock


def test_every_family_is_served_with_upstream_names_from_the_start() -> None:
    _, metrics, _ = make("horizontalpodautoscaler")
    families = {f.name for f in text_string_to_metric_families(render_text(metrics))}
    assert families == UPSTREAM_NAMES
    assert sample(metrics, "workqueue_adds_total", "horizontalpodautoscaler") == 0
    assert sample(metrics, "workqueue_depth", "horizontalpodautoscaler") == 0


def test_adds_count_only_items_that_get_queued_and_depth_follows() -> None:
    queue, metrics, _ = make()
    for item in ("a", "b", "a"):  # the second "a" is already waiting: client-go skips it
        queue.add(item)
    assert sample(metrics, "workqueue_adds_total") == 2
    assert sample(metrics, "workqueue_depth") == 2
    assert queue.get_nowait() == "a"
    assert sample(metrics, "workqueue_depth") == 1
    queue.add("a")  # changed while processing: counted, re-queued by done
    assert sample(metrics, "workqueue_adds_total") == 3
    assert sample(metrics, "workqueue_depth") == 2


def test_queue_and_work_durations_are_observed_on_the_injected_clock() -> None:
    queue, metrics, clock = make()
    queue.add("a")
    clock.advance(3)
    assert queue.get_nowait() == "a"
    clock.advance(0.5)
    queue.done("a")
    assert sample(metrics, "workqueue_queue_duration_seconds_count") == 1
    assert sample(metrics, "workqueue_queue_duration_seconds_sum") == pytest.approx(3)
    assert sample(metrics, "workqueue_queue_duration_seconds_bucket", le="1.0") == 0
    assert sample(metrics, "workqueue_queue_duration_seconds_bucket", le="10.0") == 1
    assert sample(metrics, "workqueue_work_duration_seconds_sum") == pytest.approx(0.5)
    assert sample(metrics, "workqueue_work_duration_seconds_count") == 1


def test_unfinished_work_and_longest_processor_cover_items_in_flight() -> None:
    queue, metrics, clock = make()
    queue.add("a")
    queue.add("b")
    assert queue.get_nowait() == "a"
    clock.advance(4)
    assert queue.get_nowait() == "b"
    clock.advance(1)
    assert sample(metrics, "workqueue_unfinished_work_seconds") == pytest.approx(6)
    assert sample(metrics, "workqueue_longest_running_processor_seconds") == pytest.approx(5)
    queue.done("a")
    queue.done("b")
    assert sample(metrics, "workqueue_unfinished_work_seconds") == 0
    assert sample(metrics, "workqueue_longest_running_processor_seconds") == 0


@pytest.mark.parametrize(
    ("action", "retries"),
    [("add_rate_limited", 1), ("add_after", 1), ("add", 0)],
    ids=["rate-limited-requeue", "add-after-counts-as-client-go-does", "plain-add-is-no-retry"],
)
def test_retries_count_every_delayed_add(action: str, retries: int) -> None:
    queue, metrics, _ = make()
    if action == "add_after":
        queue.add_after("a", timedelta(seconds=1))
    else:
        getattr(queue, action)("a")
    assert sample(metrics, "workqueue_retries_total") == retries


def test_a_queue_without_metrics_reports_nothing_and_still_works() -> None:
    queue: WorkQueue[str] = WorkQueue(FakeClock())
    queue.add("a")
    assert queue.get_nowait() == "a"
    queue.done("a")
