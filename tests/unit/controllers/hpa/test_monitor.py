"""The HPA controller's metrics render as Prometheus text exposition format.

Values print as ``prometheus_client`` prints them (``1.0``; Go prints ``1``) and its label
pairs are sorted by name (``le`` among them); names, labels, help and buckets are upstream's.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.hpa.monitor import BUCKETS, ControllerMetrics

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
    assert f'{PREFIX}reconciliations_total{{action="none",error="internal"}} 1.0' in lines
    assert f'{PREFIX}reconciliations_total{{action="scale_up",error="none"}} 2.0' in lines
    series = f'{PREFIX}reconciliation_duration_seconds_bucket{{action="scale_up",error="none",'
    assert f'{series}le="0.001"}} 1.0' in lines
    assert f'{series}le="0.002"}} 1.0' in lines
    assert f'{series}le="0.004"}} 2.0' in lines
    assert f'{series}le="16.384"}} 2.0' in lines
    assert f'{series}le="+Inf"}} 2.0' in lines
    slow = f'{PREFIX}reconciliation_duration_seconds_bucket{{action="none",error="internal",'
    assert f'{slow}le="16.384"}} 0.0' in lines
    assert f'{slow}le="+Inf"}} 1.0' in lines
    assert (
        f'{PREFIX}reconciliation_duration_seconds_sum{{action="scale_up",error="none"}} 0.0035'
        in lines
    )
    assert (
        f'{PREFIX}reconciliation_duration_seconds_count{{action="none",error="internal"}} 1.0'
        in (lines)
    )
    assert (
        f'{PREFIX}metric_computation_total{{action="none",error="none",metric_type="Resource"}} 1.0'
        in lines
    )
    assert metrics.render().endswith("\n")
    assert "_created" not in metrics.render()
    assert (metrics.reconciliations("scale_up", "none"), metrics.reconciliations("x", "y")) == (
        2,
        0,
    )
    assert metrics.metric_computations("none", "none", "Resource") == 1


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
    metrics = ControllerMetrics()
    metrics.observe_reconciliation("none", "none", 0.1)
    bounds = [
        line.split('le="')[1].split('"')[0]
        for line in metrics.render().splitlines()
        if line.startswith(f"{PREFIX}reconciliation_duration_seconds_bucket")
    ]
    assert bounds[:4] == ["0.001", "0.002", "0.004", "0.008"]
    assert bounds[-2:] == ["16.384", "+Inf"]


def test_two_controllers_in_one_process_do_not_share_counts() -> None:
    first, second = ControllerMetrics(), ControllerMetrics()
    first.observe_reconciliation("none", "none", 0.1)
    assert (first.reconciliations("none", "none"), second.render()) == (1, "")


class _Uncached(ControllerMetrics):
    """The general path: every observation looks its children up through ``labels()``."""

    def observe_reconciliation(self, action: str, error: str, seconds: float) -> None:
        self._reconciliations.labels(action, error).inc()
        self._reconciliation_seconds.labels(action, error).observe(seconds)

    def observe_metric_computation(
        self, action: str, error: str, metric_type: str, seconds: float
    ) -> None:
        self._computations.labels(action, error, metric_type).inc()
        self._computation_seconds.labels(action, error, metric_type).observe(seconds)


_observations = st.lists(
    st.tuples(
        st.sampled_from(["scale_up", "scale_down", "none"]),
        st.sampled_from(["spec", "internal", "none"]),
        st.sampled_from([None, "Resource", "Pods", "External"]),
        st.floats(0, 40, allow_nan=False),
    ),
    max_size=30,
)


@given(_observations)
def test_remembered_children_record_what_labels_would(
    observations: list[tuple[str, str, str | None, float]],
) -> None:
    cached, plain = ControllerMetrics(), _Uncached()
    for metrics in (cached, plain):
        for action, error, metric_type, seconds in observations:
            if metric_type is None:
                metrics.observe_reconciliation(action, error, seconds)
            else:
                metrics.observe_metric_computation(action, error, metric_type, seconds)
    assert cached.render() == plain.render()
