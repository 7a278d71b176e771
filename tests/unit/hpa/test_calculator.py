"""The replica calculator (``podscale.hpa.calculator`` and its ``calculator_*`` parts)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.hpa.calculator import calculate_replicas, format_go_label_selector
from podscale.hpa.calculator_math import INT32_MAX, INT64_MAX
from podscale.hpa.calculator_object import sum_external_values, sum_external_values_per_pod
from podscale.hpa.types import Config, MetricError, MetricProposal, MetricsUnavailable, PodMetric

NOW = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
STAMP = NOW - timedelta(seconds=15)
WINDOW = timedelta(seconds=30)
CONFIG = Config()


@dataclass
class FakeMetrics:
    """A ``MetricsSource`` answering from dicts; ``error`` makes every call fail."""

    resource: dict[str, int] = field(default_factory=dict)
    pods: dict[str, int] = field(default_factory=dict)
    object_value: int = 0
    external: list[int] = field(default_factory=list)
    error: str | None = None
    calls: list[tuple[Any, ...]] = field(default_factory=list)

    def _samples(self, values: dict[str, int]) -> tuple[dict[str, PodMetric], datetime]:
        if self.error is not None:
            raise MetricsUnavailable(self.error)
        return {name: PodMetric(value, STAMP, WINDOW) for name, value in values.items()}, STAMP

    def resource_metric(
        self, resource: str, namespace: str, selector: str, container: str | None
    ) -> tuple[dict[str, PodMetric], datetime]:
        self.calls.append(("resource", resource, namespace, selector, container))
        return self._samples(self.resource)

    def pods_metric(
        self, metric_name: str, namespace: str, selector: str, metric_selector: Any
    ) -> tuple[dict[str, PodMetric], datetime]:
        self.calls.append(("pods", metric_name, namespace, selector, metric_selector))
        return self._samples(self.pods)

    def object_metric(
        self, metric_name: str, namespace: str, described_object: Any, metric_selector: Any
    ) -> tuple[int, datetime]:
        self.calls.append(("object", metric_name, namespace, described_object, metric_selector))
        if self.error is not None:
            raise MetricsUnavailable(self.error)
        return self.object_value, STAMP

    def external_metric(
        self, metric_name: str, namespace: str, metric_selector: Any
    ) -> tuple[list[int], datetime]:
        self.calls.append(("external", metric_name, namespace, metric_selector))
        if self.error is not None:
            raise MetricsUnavailable(self.error)
        return list(self.external), STAMP


def make_pod(
    name: str,
    *,
    cpu: str = "100m",
    phase: str = "Running",
    ready: str = "True",
    deleted: bool = False,
) -> dict[str, Any]:
    """A pod that started long ago (outside the cpu initialization period)."""
    metadata: dict[str, Any] = {"name": name}
    if deleted:
        metadata["deletionTimestamp"] = "2024-05-01T11:59:00Z"
    return {
        "metadata": metadata,
        "spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": cpu}}}]},
        "status": {
            "phase": phase,
            "startTime": "2024-05-01T10:00:00Z",
            "conditions": [
                {"type": "Ready", "status": ready, "lastTransitionTime": "2024-05-01T10:00:10Z"}
            ],
        },
    }


def pod_names(count: int) -> list[str]:
    return [f"p{i}" for i in range(count)]


def resource_spec(**target: Any) -> dict[str, Any]:
    return {"type": "Resource", "resource": {"name": "cpu", "target": target}}


def utilization(percent: int) -> dict[str, Any]:
    return resource_spec(type="Utilization", averageUtilization=percent)


def run(
    spec: dict[str, Any],
    source: FakeMetrics,
    pods: list[dict[str, Any]],
    current: int | None = None,
    **kwargs: Any,
) -> MetricProposal:
    return calculate_replicas(
        spec,
        current_replicas=len(pods) if current is None else current,
        pods=pods,
        metrics=source,
        namespace="default",
        selector="app=web",
        now=NOW,
        config=CONFIG,
        **kwargs,
    )


def even_pods(count: int, usage: int, cpu: str = "100m") -> tuple[list[dict[str, Any]], Any]:
    names = pod_names(count)
    return [make_pod(n, cpu=cpu) for n in names], FakeMetrics(resource=dict.fromkeys(names, usage))


# -- documented examples ----------------------------------------------------------------

EXAMPLE_CASES = [
    ("200m against 100m doubles", resource_spec(type="AverageValue", averageValue="100m"), 200, 6),
    ("50m against 100m halves", resource_spec(type="AverageValue", averageValue="100m"), 50, 2),
    ("105m within 10% keeps", resource_spec(type="AverageValue", averageValue="100m"), 105, 3),
    ("200% of request against 100% doubles", utilization(100), 200, 6),
    ("50% of request against 100% halves", utilization(100), 50, 2),
    ("91% of request within tolerance", utilization(100), 91, 3),
    ("target as bare number", resource_spec(type="AverageValue", averageValue=0.1), 200, 6),
]


@pytest.mark.parametrize(
    ("spec", "usage", "expected"),
    [case[1:] for case in EXAMPLE_CASES],
    ids=[case[0] for case in EXAMPLE_CASES],
)
def test_documented_examples(spec: dict[str, Any], usage: int, expected: int) -> None:
    pods, source = even_pods(3, usage)
    assert run(spec, source, pods).replicas == expected


def test_utilization_proposal_reports_percent_raw_average_and_timestamp() -> None:
    pods, source = even_pods(3, 150)
    proposal = run(utilization(50), source, pods)
    assert (proposal.replicas, proposal.utilization, proposal.raw_value) == (9, 150, 150)
    assert proposal.timestamp == STAMP
    trace = proposal.trace
    assert trace.metric == "cpu resource utilization (percentage of request)"
    assert (trace.target_type, trace.current_value, trace.target_value) == ("Utilization", 150, 50)
    assert (trace.usage_ratio, trace.ready_pod_count, trace.outcome) == (3.0, 3, "scaled by ratio")
    assert source.calls == [("resource", "cpu", "default", "app=web", None)]


def test_utilization_percent_is_truncated_before_the_ratio() -> None:
    # 1109m of 1000m is 110.9%, truncated to 110%: exactly at the 10% tolerance edge.
    pods, source = even_pods(2, 1109, cpu="1")
    proposal = run(utilization(100), source, pods)
    assert (proposal.replicas, proposal.utilization) == (2, 110)
    assert proposal.trace.within_tolerance


def test_average_value_reports_truncated_average_usage() -> None:
    pods = [make_pod("a"), make_pod("b")]
    source = FakeMetrics(resource={"a": 301, "b": 300})
    proposal = run(resource_spec(type="AverageValue", averageValue="100m"), source, pods)
    # 300.5m truncates to 300m, so the ratio is exactly 3 (not 3.005, which would give 7).
    assert (proposal.replicas, proposal.raw_value, proposal.utilization) == (6, 300, None)
    assert proposal.trace.metric == "cpu resource"


# -- rebalancing ------------------------------------------------------------------------

REBALANCE_CASES = [
    (
        "missing pod counts as idle on scale-up",
        utilization(100),
        {"p0": 200, "p1": 200},
        [],
        3,
        4,
        "scaled by rebalanced ratio",
    ),
    (
        "missing pod counts as fully used on scale-down",
        utilization(80),
        {"p0": 20, "p1": 20},
        [],
        3,
        2,
        "scaled by rebalanced ratio",
    ),
    (
        "missing pod counts at a target above 100%",
        utilization(200),
        {"p0": 50, "p1": 50},
        [],
        3,
        2,  # (50 + 50 + 200) / 3 = 100% of 200%; at 100% it would be 1
        "scaled by rebalanced ratio",
    ),
    (
        "scale-down flips to scale-up after rebalancing",
        utilization(50),
        {"p0": 40, "p1": 40},
        [],
        3,
        3,
        "direction flipped after rebalancing",
    ),
    (
        "rebalanced ratio within tolerance",
        utilization(100),
        {"p0": 140, "p1": 140},
        [],
        3,
        3,
        "within tolerance after rebalancing",
    ),
    (
        "unready pod counts as idle on scale-up",
        utilization(100),
        {"p0": 200, "p1": 200, "p2": 900},
        ["p2"],
        3,
        4,
        "scaled by rebalanced ratio",
    ),
    (
        "unready pod left out on scale-down",
        utilization(100),
        {"p0": 20, "p1": 20, "p2": 900},
        ["p2"],
        3,
        1,
        "scaled by ratio",
    ),
    (
        "rebalanced count below current on scale-up keeps current",
        utilization(100),
        {"p0": 200, "p1": 200},
        [],
        10,
        10,
        "pod count would move against the ratio",
    ),
]


@pytest.mark.parametrize(
    ("spec", "usage", "unready", "current", "expected", "outcome"),
    [case[1:] for case in REBALANCE_CASES],
    ids=[case[0] for case in REBALANCE_CASES],
)
def test_rebalancing(
    spec: dict[str, Any],
    usage: dict[str, int],
    unready: list[str],
    current: int,
    expected: int,
    outcome: str,
) -> None:
    pods = [make_pod(n, ready="False" if n in unready else "True") for n in pod_names(3)]
    # Unready since start: outside the cpu initialization period this sets a pod aside.
    for pod in pods:
        if pod["metadata"]["name"] in unready:
            pod["status"]["conditions"][0]["lastTransitionTime"] = "2024-05-01T10:00:00Z"
    proposal = run(spec, FakeMetrics(resource=usage), pods, current)
    assert (proposal.replicas, proposal.trace.outcome) == (expected, outcome)


def test_rebalancing_trace_names_the_pods() -> None:
    pods = [make_pod("a"), make_pod("b"), make_pod("c", phase="Pending")]
    pods.append(make_pod("d", phase="Failed"))
    source = FakeMetrics(resource={"a": 300, "c": 500, "d": 900})
    trace = run(utilization(100), source, pods).trace
    assert trace.missing_pods == ("b",)
    assert trace.unready_pods == {"c": "pending"}
    assert trace.ignored_pods == {"d": "failed"}
    assert trace.usage_ratio == 3.0
    assert trace.rebalanced_ratio == 1.0  # (300 + 0 + 0) / 300


def test_plain_metric_missing_pods_sit_at_target_on_scale_down() -> None:
    pods = [make_pod(n) for n in pod_names(3)]
    source = FakeMetrics(pods={"p0": 100, "p1": 100})
    spec = {
        "type": "Pods",
        "pods": {
            "metric": {"name": "qps"},
            "target": {"type": "AverageValue", "averageValue": "1"},
        },
    }
    proposal = run(spec, source, pods)
    # (100 + 100 + 1000) / 3 = 400m per pod, 0.4 of target: ceil(0.4 * 3) = 2.
    assert (proposal.replicas, proposal.raw_value) == (2, 100)
    assert proposal.trace.rebalanced_ratio == 0.4


def test_pods_metric_ignores_readiness_and_counts_unlisted_samples() -> None:
    pods = [make_pod("a", ready="False"), make_pod("b")]
    source = FakeMetrics(pods={"a": 3000, "b": 3000, "gone": 3000})
    selector = {"matchLabels": {"verb": "GET"}}
    spec = {
        "type": "Pods",
        "pods": {
            "metric": {"name": "qps", "selector": selector},
            "target": {"type": "AverageValue", "averageValue": "1"},
        },
    }
    proposal = run(spec, source, pods)
    assert (proposal.replicas, proposal.raw_value, proposal.trace.metric) == (
        6,
        3000,
        "pods metric qps",
    )
    assert source.calls == [("pods", "qps", "default", "app=web", selector)]


# -- requests and container resources ------------------------------------------------------


def test_sidecar_requests_count_toward_utilization() -> None:
    pod = make_pod("a", cpu="100m")
    sidecar = {
        "name": "proxy",
        "restartPolicy": "Always",
        "resources": {"requests": {"cpu": "100m"}},
    }
    pod["spec"]["initContainers"] = [sidecar, {"name": "setup"}]
    proposal = run(utilization(100), FakeMetrics(resource={"a": 100}), [pod], current=1)
    assert (proposal.utilization, proposal.replicas) == (50, 1)


def test_container_resource_uses_that_container_only() -> None:
    pod = make_pod("a")
    pod["spec"]["containers"].append({"name": "db", "resources": {"requests": {"cpu": "1"}}})
    spec = {
        "type": "ContainerResource",
        "containerResource": {
            "name": "cpu",
            "container": "db",
            "target": {"type": "Utilization", "averageUtilization": 50},
        },
    }
    source = FakeMetrics(resource={"a": 1000})
    proposal = run(spec, source, [pod], current=1)
    assert (proposal.replicas, proposal.utilization) == (2, 100)
    assert proposal.trace.metric == "cpu container resource utilization (percentage of request)"
    assert source.calls == [("resource", "cpu", "default", "app=web", "db")]


# -- object and external ----------------------------------------------------------------

SERVICE = {"kind": "Service", "name": "web", "apiVersion": "v1"}


def object_spec(target: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "Object",
        "object": {"describedObject": SERVICE, "metric": {"name": "rps"}, "target": target},
    }


def external_spec(target: dict[str, Any], selector: Any = None) -> dict[str, Any]:
    metric: dict[str, Any] = {"name": "queue"}
    if selector is not None:
        metric["selector"] = selector
    return {"type": "External", "external": {"metric": metric, "target": target}}


VALUE_CASES = [
    (
        "object value scales ready pods",
        object_spec({"type": "Value", "value": "100m"}),
        600,
        3,
        None,
        18,
        600,
    ),
    (
        "object value within tolerance",
        object_spec({"type": "Value", "value": "1"}),
        1050,
        3,
        None,
        3,
        1050,
    ),
    (
        "object value from zero",
        object_spec({"type": "Value", "value": "1"}),
        2500,
        0,
        None,
        3,
        2500,
    ),
    (
        "object value zero stays zero",
        object_spec({"type": "Value", "value": "1"}),
        0,
        0,
        None,
        0,
        0,
    ),
    (
        "object average value over status replicas",
        object_spec({"type": "AverageValue", "averageValue": "100m"}),
        1000,
        3,
        4,
        10,
        250,
    ),
    (
        "object average value within tolerance",
        object_spec({"type": "AverageValue", "averageValue": "100m"}),
        410,
        3,
        4,
        4,
        103,
    ),
    (
        "object average value needs type AverageValue",
        object_spec({"type": "Value", "averageValue": "100m", "value": "1"}),
        3000,
        3,
        4,
        9,
        3000,
    ),
]


@pytest.mark.parametrize(
    ("spec", "usage", "current", "status", "expected", "raw"),
    [case[1:] for case in VALUE_CASES],
    ids=[case[0] for case in VALUE_CASES],
)
def test_object_metrics(
    spec: dict[str, Any], usage: int, current: int, status: int | None, expected: int, raw: int
) -> None:
    pods = [make_pod(n) for n in pod_names(3)]
    source = FakeMetrics(object_value=usage)
    proposal = run(spec, source, pods, current, status_replicas=status)
    assert (proposal.replicas, proposal.raw_value, proposal.utilization) == (expected, raw, None)
    assert source.calls[0] == ("object", "rps", "default", SERVICE, None)


def test_object_value_counts_only_ready_running_pods_and_drops_timestamp() -> None:
    pods = [make_pod("a"), make_pod("b", ready="False"), make_pod("c", phase="Pending")]
    proposal = run(
        object_spec({"type": "Value", "value": "1"}), FakeMetrics(object_value=4000), pods
    )
    assert (proposal.replicas, proposal.trace.ready_pod_count) == (4, 1)
    assert proposal.timestamp is None
    assert proposal.trace.metric == "Service metric rps"


def test_object_average_value_keeps_timestamp_and_upstream_name() -> None:
    spec = object_spec({"type": "AverageValue", "averageValue": "1"})
    proposal = run(spec, FakeMetrics(object_value=8000), [make_pod("a")], 2, status_replicas=2)
    assert (proposal.replicas, proposal.timestamp) == (8, STAMP)
    assert proposal.trace.metric == "external metric rps(nil)"


EXTERNAL_CASES = [
    ("value sums samples", {"type": "Value", "value": "1"}, [1000, 2000, 3000], 2, 2, 12, 6000),
    ("value from zero", {"type": "Value", "value": "10"}, [15000], 0, 0, 2, 15000),
    ("value within tolerance", {"type": "Value", "value": "6"}, [3000, 3300], 2, 2, 2, 6300),
    (
        "average value per status replica",
        {"type": "AverageValue", "averageValue": "1"},
        [5000, 4000],
        2,
        3,
        9,
        3000,
    ),
    (
        "average value within tolerance",
        {"type": "AverageValue", "averageValue": "1"},
        [3100],
        2,
        3,
        3,
        1034,
    ),
    ("average value wins over value", {"averageValue": "1", "value": "100"}, [4000], 2, 2, 4, 2000),
]


@pytest.mark.parametrize(
    ("target", "values", "current", "status", "expected", "raw"),
    [case[1:] for case in EXTERNAL_CASES],
    ids=[case[0] for case in EXTERNAL_CASES],
)
def test_external_metrics(
    target: dict[str, Any], values: list[int], current: int, status: int, expected: int, raw: int
) -> None:
    pods = [make_pod(n) for n in pod_names(current)]
    selector = {"matchLabels": {"queue": "jobs"}}
    source = FakeMetrics(external=values)
    proposal = run(external_spec(target, selector), source, pods, current, status_replicas=status)
    assert (proposal.replicas, proposal.raw_value) == (expected, raw)
    assert source.calls == [("external", "queue", "default", selector)]
    averaged = "averageValue" in target
    assert proposal.timestamp == (STAMP if averaged else None)


def test_status_replicas_default_to_current_replicas() -> None:
    spec = external_spec({"type": "AverageValue", "averageValue": "1"})
    proposal = run(spec, FakeMetrics(external=[8000]), [make_pod("a")], current=4)
    assert (proposal.replicas, proposal.raw_value) == (8, 2000)


# -- tolerances -------------------------------------------------------------------------

TOLERANCE_CASES = [
    ("wide scale-up slack keeps", (0.1, 0.2), 115, 4),
    ("narrow scale-up slack scales", (0.1, 0.05), 108, 5),
    ("wide scale-down slack keeps", (0.3, 0.0), 75, 4),
    ("narrow scale-down slack scales", (0.25, 0.5), 70, 3),
    ("no slack at all", (0.0, 0.0), 101, 5),
]


@pytest.mark.parametrize(
    ("tolerances", "usage", "expected"),
    [case[1:] for case in TOLERANCE_CASES],
    ids=[case[0] for case in TOLERANCE_CASES],
)
def test_per_direction_tolerances(
    tolerances: tuple[float, float], usage: int, expected: int
) -> None:
    pods, source = even_pods(4, usage)
    proposal = run(utilization(100), source, pods, tolerances=tolerances)
    assert proposal.replicas == expected
    assert proposal.trace.tolerances == tolerances


def test_tolerances_default_to_config() -> None:
    pods, source = even_pods(4, 115)
    proposal = calculate_replicas(
        utilization(100),
        current_replicas=4,
        pods=pods,
        metrics=source,
        namespace="default",
        selector="app=web",
        now=NOW,
        config=Config(tolerance=0.2),
    )
    assert (proposal.replicas, proposal.trace.tolerances) == (4, (0.2, 0.2))


# -- errors -----------------------------------------------------------------------------

NO_METRICS = "no metrics returned from resource metrics API"
LABELS = {"matchLabels": {"b": "2", "a": "1"}}

ERROR_CASES = [
    (
        "resource metrics unavailable",
        utilization(50),
        NO_METRICS,
        [make_pod("a")],
        {"a": 1},
        f"unable to get metrics for resource cpu: {NO_METRICS}",
    ),
    (
        "no pods",
        utilization(50),
        None,
        [],
        {"a": 1},
        "no pods returned by selector while calculating replica count",
    ),
    (
        "only unready pods have samples",
        utilization(50),
        None,
        [make_pod("a", phase="Pending")],
        {"a": 1},
        "did not receive metrics for targeted pods (pods might be unready)",
    ),
    (
        "no samples at all",
        resource_spec(type="AverageValue", averageValue="1"),
        None,
        [make_pod("a")],
        {},
        "did not receive metrics for targeted pods (pods might be unready)",
    ),
    (
        "samples only for unlisted pods",
        utilization(50),
        None,
        [make_pod("a")],
        {"z": 1},
        "no metrics returned matched known pods",
    ),
    (
        "zero requests",
        utilization(50),
        None,
        [make_pod("a", cpu="0")],
        {"a": 1},
        "no metrics returned matched known pods",
    ),
    (
        "utilization beyond int32",
        utilization(50),
        None,
        [make_pod("a", cpu="1m")],
        {"a": 2**40},
        "resource utilization 109951162777600 is outside the int32 range",
    ),
    (
        "neither resource target",
        resource_spec(type="Utilization"),
        None,
        [make_pod("a")],
        {"a": 1},
        "invalid resource metric source: neither an average utilization target nor an "
        "average value (usage) target was set",
    ),
    (
        "pods metric unavailable",
        {"type": "Pods", "pods": {"metric": {"name": "qps"}, "target": {"averageValue": "1"}}},
        "boom",
        [make_pod("a")],
        {},
        "unable to get metric qps: boom",
    ),
    (
        "object metric unavailable",
        object_spec({"type": "Value", "value": "1"}),
        "boom",
        [make_pod("a")],
        {},
        "unable to get metric rps: Service on default web/boom",
    ),
    (
        "object ready pods",
        object_spec({"type": "Value", "value": "1"}),
        None,
        [],
        {},
        "unable to calculate ready pods: no pods returned by selector while calculating "
        "replica count",
    ),
    (
        "neither object target",
        object_spec({"type": "AverageValue", "value": "1"}),
        None,
        [make_pod("a")],
        {},
        "invalid object metric source: neither a value target nor an average value target was set",
    ),
    (
        "external metric unavailable, nil selector",
        external_spec({"type": "Value", "value": "1"}),
        "boom",
        [make_pod("a")],
        {},
        "unable to get external metric default/queue/nil: boom",
    ),
    (
        "external metric unavailable, with selector",
        external_spec({"averageValue": "1"}, LABELS),
        "boom",
        [make_pod("a")],
        {},
        "unable to get external metric default/queue/&LabelSelector{MatchLabels:"
        "map[string]string{a: 1,b: 2,},MatchExpressions:[]LabelSelectorRequirement{},}: boom",
    ),
    (
        "neither external target",
        external_spec({"type": "Value"}),
        None,
        [make_pod("a")],
        {},
        "invalid external metric source: neither a value target nor an average value target "
        "was set",
    ),
    (
        "unknown source type",
        {"type": "Cosmic"},
        None,
        [make_pod("a")],
        {},
        'unknown metric source type "Cosmic"',
    ),
]


@pytest.mark.parametrize(
    ("spec", "error", "pods", "usage", "message"),
    [case[1:] for case in ERROR_CASES],
    ids=[case[0] for case in ERROR_CASES],
)
def test_error_messages(
    spec: dict[str, Any],
    error: str | None,
    pods: list[dict[str, Any]],
    usage: dict[str, int],
    message: str,
) -> None:
    source = FakeMetrics(resource=usage, pods=usage, object_value=5000, error=error)
    with pytest.raises(MetricError) as caught:
        run(spec, source, pods, current=2)
    assert str(caught.value) == message


def test_missing_request_is_reported_even_for_ignored_pods() -> None:
    failed = make_pod("b", phase="Failed")
    failed["spec"]["containers"][0]["resources"] = {}
    with pytest.raises(MetricError, match=r"^missing request for cpu in container app of Pod b$"):
        run(utilization(50), FakeMetrics(resource={"a": 50}), [make_pod("a"), failed])


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        (None, "nil"),
        (
            {},
            "&LabelSelector{MatchLabels:map[string]string{},"
            "MatchExpressions:[]LabelSelectorRequirement{},}",
        ),
        (
            {"matchExpressions": [{"key": "env", "operator": "In", "values": ["a", "b"]}]},
            "&LabelSelector{MatchLabels:map[string]string{},"
            "MatchExpressions:[]LabelSelectorRequirement{"
            "LabelSelectorRequirement{Key:env,Operator:In,Values:[a b],},},}",
        ),
        (
            {"matchExpressions": [{"key": "x", "operator": "Exists"}]},
            "&LabelSelector{MatchLabels:map[string]string{},"
            "MatchExpressions:[]LabelSelectorRequirement{"
            "LabelSelectorRequirement{Key:x,Operator:Exists,Values:[],},},}",
        ),
    ],
    ids=["nil", "empty", "expression", "exists without values"],
)
def test_format_go_label_selector(selector: dict[str, Any] | None, expected: str) -> None:
    assert format_go_label_selector(selector) == expected


# -- overflow -----------------------------------------------------------------------------

OVERFLOW_CASES = [
    (
        "object value ratio beyond int32",
        object_spec({"type": "Value", "value": "1m"}),
        2**40,
        3,
        INT32_MAX,
    ),
    (
        "object value from zero beyond int32",
        object_spec({"type": "Value", "value": "1m"}),
        2**40,
        0,
        INT32_MAX,
    ),
    ("external per pod beyond int32", external_spec({"averageValue": "1m"}), 2**40, 3, INT32_MAX),
]


@pytest.mark.parametrize(
    ("spec", "usage", "current", "expected"),
    [case[1:] for case in OVERFLOW_CASES],
    ids=[case[0] for case in OVERFLOW_CASES],
)
def test_replica_counts_are_capped_at_int32(
    spec: dict[str, Any], usage: int, current: int, expected: int
) -> None:
    source = FakeMetrics(object_value=usage, external=[usage])
    pods = [make_pod(n) for n in pod_names(3)]
    assert run(spec, source, pods, current, status_replicas=3).replicas == expected


def test_utilization_scale_up_is_capped_at_int32() -> None:
    pods, source = even_pods(3, 10**10, cpu="1")  # 10^9 percent fits int32
    assert run(utilization(1), source, pods).replicas == INT32_MAX


@pytest.mark.parametrize(
    ("values", "expected"),
    [([1, 2, 3], 6), ([INT64_MAX, 1], INT64_MAX), ([INT64_MAX - 1, 1], INT64_MAX), ([5, -2], 3)],
    ids=["small", "overflow saturates", "exactly max", "negative sample subtracts"],
)
def test_sum_external_values(values: list[int], expected: int) -> None:
    assert sum_external_values(values) == expected


@pytest.mark.parametrize(
    ("values", "expected"),
    [([1, 2, 3], 6), ([INT64_MAX, 1], INT64_MAX), ([5, -2], 3), ([-1, 5], INT64_MAX)],
    ids=["small", "overflow saturates", "stays positive", "negative running sum saturates"],
)
def test_sum_external_values_per_pod(values: list[int], expected: int) -> None:
    assert sum_external_values_per_pod(values) == expected


def test_external_average_value_reports_saturated_total_as_is() -> None:
    spec = external_spec({"averageValue": "1"})
    proposal = run(
        spec, FakeMetrics(external=[INT64_MAX, 5]), [make_pod("a")], 2, status_replicas=2
    )
    assert (proposal.raw_value, proposal.replicas) == (INT64_MAX, INT32_MAX)


# -- invariants -----------------------------------------------------------------------------

POD_STATES = st.sampled_from(["ready", "missing", "pending", "unready"])


@st.composite
def pod_scenarios(draw: st.DrawFn) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Pods in mixed states (none deleted or failed) and their cpu samples."""
    states = draw(st.lists(POD_STATES, min_size=1, max_size=8))
    pods: list[dict[str, Any]] = []
    usage: dict[str, int] = {}
    for index, state in enumerate(states):
        name = f"p{index}"
        pod = make_pod(name, phase="Pending" if state == "pending" else "Running")
        if state == "unready":
            pod["status"]["conditions"] = []
        pods.append(pod)
        if state != "missing":
            usage[name] = draw(st.integers(0, 1000))
    return pods, usage


@given(
    scenario=pod_scenarios(),
    target=st.integers(1, 200),
    down=st.floats(0, 0.5),
    up=st.floats(0, 0.5),
)
def test_proposals_never_move_against_the_ratio(
    scenario: tuple[list[dict[str, Any]], dict[str, int]], target: int, down: float, up: float
) -> None:
    pods, usage = scenario
    try:
        proposal = run(
            utilization(target), FakeMetrics(resource=usage), pods, tolerances=(down, up)
        )
    except MetricError:
        return  # no ready pod had a sample
    current = len(pods)
    ratio = proposal.trace.usage_ratio
    assert proposal.replicas >= 0
    if ratio > 1.0:
        assert proposal.replicas >= current
    if ratio < 1.0:
        assert proposal.replicas <= current
    if proposal.trace.within_tolerance:
        assert proposal.replicas == current


@given(
    count=st.integers(1, 10),
    usage=st.integers(0, 10_000),
    target=st.integers(1, 10_000),
    down=st.floats(0, 1),
    up=st.floats(0, 1),
)
def test_ratio_within_tolerance_keeps_current_replicas(
    count: int, usage: int, target: int, down: float, up: float
) -> None:
    pods, source = even_pods(count, usage)
    spec = resource_spec(type="AverageValue", averageValue=f"{target}m")
    proposal = run(spec, source, pods, tolerances=(down, up))
    ratio = usage / target
    if 1.0 - down <= ratio <= 1.0 + up:
        assert proposal.replicas == count
    else:
        # Upstream rounds the float product up, so the expectation does too.
        assert proposal.replicas == math.ceil(usage / target * count)
