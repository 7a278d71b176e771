"""The HPA controller's metrics registry renders Prometheus text exposition format."""

from __future__ import annotations

import pytest

from podscale.controllers.hpa.monitor import BUCKETS, ControllerMetrics, format_value

PREFIX = "horizontal_pod_autoscaler_controller_"


def test_nothing_observed_renders_nothing() -> None:
    assert ControllerMetrics().render() == ""


def test_counters_and_histograms() -> None:
    metrics = ControllerMetrics()
    metrics.observe_reconciliation("scale_up", "none", 0.003)
    metrics.observe_reconciliation("scale_up", "none", 0.0005)
    metrics.observe_reconciliation("none", "internal", 20.0)
    metrics.observe_metric_computation("none", "none", "Resource", 0.001)
    lines = metrics.render().splitlines()
    names = [line.split()[2] for line in lines if line.startswith("# TYPE")]
    assert (
        names
        == sorted(names)
        == [
            PREFIX + "metric_computation_duration_seconds",
            PREFIX + "metric_computation_total",
            PREFIX + "reconciliation_duration_seconds",
            PREFIX + "reconciliations_total",
        ]
    )
    assert f"# TYPE {PREFIX}reconciliations_total counter" in lines
    assert f"# TYPE {PREFIX}reconciliation_duration_seconds histogram" in lines
    assert f'{PREFIX}reconciliations_total{{action="none",error="internal"}} 1' in lines
    assert f'{PREFIX}reconciliations_total{{action="scale_up",error="none"}} 2' in lines
    series = f'{PREFIX}reconciliation_duration_seconds_bucket{{action="scale_up",error="none",'
    assert f'{series}le="0.001"}} 1' in lines
    assert f'{series}le="0.002"}} 1' in lines
    assert f'{series}le="0.004"}} 2' in lines
    assert f'{series}le="16.384"}} 2' in lines
    assert f'{series}le="+Inf"}} 2' in lines
    slow = f'{PREFIX}reconciliation_duration_seconds_bucket{{action="none",error="internal",'
    assert f'{slow}le="16.384"}} 0' in lines
    assert f'{slow}le="+Inf"}} 1' in lines
    assert (
        f'{PREFIX}reconciliation_duration_seconds_sum{{action="scale_up",error="none"}} 0.0035'
        in lines
    )
    assert f'{PREFIX}reconciliation_duration_seconds_count{{action="none",error="internal"}} 1' in (
        lines
    )
    assert (
        f'{PREFIX}metric_computation_total{{action="none",error="none",metric_type="Resource"}} 1'
        in lines
    )
    assert metrics.render().endswith("\n")


def test_help_texts_are_upstreams() -> None:
    metrics = ControllerMetrics()
    metrics.observe_reconciliation("none", "none", 0.1)
    metrics.observe_metric_computation("none", "none", "Pods", 0.1)
    help_lines = [line for line in metrics.render().splitlines() if line.startswith("# HELP")]
    assert help_lines[1] == (
        f"# HELP {PREFIX}metric_computation_total [ALPHA] Number of metric computations. The "
        "label 'action' should be either 'scale_down', 'scale_up', or 'none'. Also, the label "
        "'error' should be either 'spec', 'internal', or 'none'. The label 'metric_type' "
        "corresponds to HPA.spec.metrics[*].type"
    )
    assert help_lines[3] == (
        f"# HELP {PREFIX}reconciliations_total [ALPHA] Number of reconciliations of HPA "
        "controller. The label 'action' should be either 'scale_down', 'scale_up', or 'none'. "
        "Also, the label 'error' should be either 'spec', 'internal', or 'none'. Note that if "
        "both spec and internal errors happen during a reconciliation, the first one to occur "
        "is reported in `error` label."
    )


def test_buckets_are_exponential_from_a_millisecond() -> None:
    assert len(BUCKETS) == 15
    assert [format_value(b) for b in BUCKETS[:4]] == ["0.001", "0.002", "0.004", "0.008"]
    assert format_value(BUCKETS[-1]) == "16.384"


@pytest.mark.parametrize(
    ("value", "text"),
    [(3.0, "3"), (0.25, "0.25"), (float("inf"), "+Inf"), (1e-05, "1e-05")],
    ids=["integral", "fraction", "inf", "tiny"],
)
def test_format_value(value: float, text: str) -> None:
    assert format_value(value) == text
