"""``render_text`` presents a ``prometheus_client`` collector in client_golang's order."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram

from podscale.api.exposition import render_text


def _registry() -> tuple[CollectorRegistry, Counter, Histogram]:
    registry = CollectorRegistry()
    histogram = Histogram("z_seconds", "Z.", ["kind"], registry=registry, buckets=(0.5, 1.0))
    counter = Counter("a_total", "A.", ["kind"], registry=registry)
    Counter("m_total", "Never observed.", ["kind"], registry=registry)
    return registry, counter, histogram


def test_families_sorted_by_name_and_empty_ones_left_out() -> None:
    registry, counter, histogram = _registry()
    counter.labels("x").inc()
    histogram.labels("x").observe(0.7)
    types = [line for line in render_text(registry).splitlines() if line.startswith("# TYPE")]
    assert types == ["# TYPE a_total counter", "# TYPE z_seconds histogram"]


def test_series_sorted_by_labels_with_sum_before_count_and_no_created() -> None:
    registry, counter, histogram = _registry()
    histogram.labels("y").observe(2.0)
    histogram.labels("x").observe(0.7)
    counter.labels("y").inc(2)
    counter.labels("x").inc()
    lines = render_text(registry).splitlines()
    assert lines == [
        "# HELP a_total A.",
        "# TYPE a_total counter",
        'a_total{kind="x"} 1.0',
        'a_total{kind="y"} 2.0',
        "# HELP z_seconds Z.",
        "# TYPE z_seconds histogram",
        'z_seconds_bucket{kind="x",le="0.5"} 0.0',
        'z_seconds_bucket{kind="x",le="1.0"} 1.0',
        'z_seconds_bucket{kind="x",le="+Inf"} 1.0',
        'z_seconds_sum{kind="x"} 0.7',
        'z_seconds_count{kind="x"} 1.0',
        'z_seconds_bucket{kind="y",le="0.5"} 0.0',
        'z_seconds_bucket{kind="y",le="1.0"} 0.0',
        'z_seconds_bucket{kind="y",le="+Inf"} 1.0',
        'z_seconds_sum{kind="y"} 2.0',
        'z_seconds_count{kind="y"} 1.0',
    ]


def test_an_empty_registry_renders_nothing() -> None:
    assert render_text(CollectorRegistry()) == ""
