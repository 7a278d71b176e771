"""``pod_facts.scan_pods``: a utilization target's proposal through the one-pass scan equals
the general path's (``calculator_pods.calculate_utilization_replicas`` without a reader),
result and failure alike, for any pods, samples and targets."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.hpa.calculator_pods import calculate_utilization_replicas
from podscale.hpa.pod_facts import PLAIN_READER, scan_pods
from podscale.hpa.types import Config, MetricInputs, PodMetric

NOW = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
CONFIG = Config()

_VALID_TIME = st.integers(-30, 30).map(
    lambda s: (NOW + timedelta(seconds=30 * s)).isoformat().replace("+00:00", "Z")
)
_TIMES = st.sampled_from(["valid"] * 12 + ["", "not a time", None]).flatmap(
    lambda kind: _VALID_TIME if kind == "valid" else st.just(kind)
)


@st.composite
def _pod(draw: st.DrawFn, index: int) -> Any:
    if draw(st.sampled_from([False] * 60 + [True])):
        return draw(st.sampled_from([{}, {"metadata": {}}, {"metadata": None}]))
    name = draw(st.sampled_from([f"p{index}"] * 6 + ["p0", "shared"]))
    metadata: dict[str, Any] = {"name": name}
    if draw(st.integers(0, 5)) == 0:
        metadata["deletionTimestamp"] = "2024-05-01T12:00:00Z"
    status: dict[str, Any] = {}
    phase = draw(st.sampled_from(["Running"] * 4 + [None, "Pending", "Failed", "Succeeded"]))
    if phase is not None:
        status["phase"] = phase
    start = draw(_TIMES)
    if start is not None:
        status["startTime"] = start
    conditions: list[Any] = []
    for _ in range(draw(st.integers(0, 2))):
        condition: dict[str, Any] = {
            "type": draw(st.sampled_from(["Ready", "Ready", "PodScheduled"])),
            "status": draw(st.sampled_from(["True", "True", "False", "Unknown"])),
        }
        transition = draw(_TIMES)
        if transition is not None:
            condition["lastTransitionTime"] = transition
        conditions.append(condition)
    if conditions or draw(st.booleans()):
        status["conditions"] = conditions
    containers: list[dict[str, Any]] = []
    for container_name in draw(st.sampled_from([["app"], ["app", "side"], ["side"], []])):
        cpu = draw(st.sampled_from(["100m", "250m", "1", "0", None]))
        container: dict[str, Any] = {"name": container_name}
        if cpu is not None:
            container["resources"] = {"requests": {"cpu": cpu, "memory": "64Mi"}}
        containers.append(container)
    return {"metadata": metadata, "spec": {"containers": containers}, "status": status}


@st.composite
def _case(draw: st.DrawFn) -> tuple[list[Any], dict[str, PodMetric]]:
    pods = [draw(_pod(i)) for i in range(draw(st.integers(0, 7)))]
    names = [p["metadata"]["name"] for p in pods if (p.get("metadata") or {}).get("name")]
    extra = draw(st.lists(st.sampled_from(["p0", "shared", "x", "y"]), max_size=2))
    metrics: dict[str, PodMetric] = {}
    for name in [n for n in names if draw(st.integers(0, 4))] + extra:
        age = timedelta(seconds=draw(st.integers(-60, 900)))
        window = timedelta(seconds=draw(st.sampled_from([15, 30, 60])))
        metrics[name] = PodMetric(draw(st.integers(0, 2000)), NOW - age, window)
    return pods, metrics


def _inputs(pods: list[Any], current: int, reader: Any) -> MetricInputs:
    return MetricInputs(
        current_replicas=current,
        status_replicas=current,
        pods=pods,
        metrics=None,  # type: ignore[arg-type]  # the samples are handed in directly
        namespace="default",
        selector="app=web",
        now=NOW,
        config=CONFIG,
        tolerances=(0.1, 0.1),
        pod_reader=reader,
    )


def _outcome(
    pods: list[Any],
    metrics: dict[str, PodMetric],
    reader: Any,
    *,
    target: int = 50,
    resource: str = "cpu",
    container: str = "",
    current: int = 3,
) -> tuple[str, Any]:
    try:
        result = calculate_utilization_replicas(
            _inputs(pods, current, reader),
            metrics,
            target_utilization=target,
            resource=resource,
            container=container,
        )
    except Exception as err:
        return type(err).__name__, str(err)
    # Dict order is part of the result (the trace lists the pods in it).
    groups = result.groups
    return "ok", (
        result._replace(groups=None),
        groups.ready_count,
        list(groups.unready.items()),
        groups.missing,
        list(groups.ignored.items()),
    )


@given(
    _case(),
    st.sampled_from(["cpu", "memory"]),
    st.sampled_from(["", "app", "side"]),
    st.sampled_from([1, 50, 80, 100, 150]),
    st.integers(1, 8),
)
@settings(max_examples=500, deadline=None)
def test_scan_equals_the_general_path(
    case: tuple[list[Any], dict[str, PodMetric]],
    resource: str,
    container: str,
    target: int,
    current: int,
) -> None:
    pods, metrics = case
    options: dict[str, Any] = {
        "target": target,
        "resource": resource,
        "container": container,
        "current": current,
    }
    general = _outcome(pods, metrics, None, **options)
    assert _outcome(pods, metrics, PLAIN_READER, **options) == general


def _running(name: str, *, cpu: str = "200m", phase: str = "Running") -> dict[str, Any]:
    started = (NOW - timedelta(minutes=20)).isoformat().replace("+00:00", "Z")
    condition = {"type": "Ready", "status": "True", "lastTransitionTime": started}
    return {
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": cpu}}}]},
        "status": {"phase": phase, "startTime": started, "conditions": [condition]},
    }


def _sample(value: int) -> PodMetric:
    return PodMetric(value, NOW - timedelta(seconds=10), timedelta(seconds=30))


_TWO = [_running("a"), _running("b")]
# Its start time cannot be read: no facts, the general rules sort it (here: they fail).
_UNPARSEABLE = {
    "metadata": {"name": "a"},
    "status": {"phase": "Running", "startTime": "bad", "conditions": [{"type": "Ready"}]},
}


@pytest.mark.parametrize(
    ("pods", "metrics", "scanned"),
    [
        (_TWO, {"a": _sample(150), "b": _sample(50)}, True),
        (_TWO, {"a": _sample(300)}, True),  # b missing: rebalanced
        ([*_TWO, _running("c", phase="Pending")], {"a": _sample(300), "b": _sample(300)}, True),
        (_TWO, {"a": _sample(100), "b": _sample(100), "z": _sample(900)}, True),
        ([_running("a"), _running("a")], {"a": _sample(100)}, False),
        ([_running("a", cpu="lots")], {"a": _sample(100)}, False),
        ([_UNPARSEABLE, _running("b")], {"b": _sample(100)}, False),
        (_TWO, {}, False),
        ([], {"a": _sample(100)}, False),
    ],
    ids=[
        "all-ready",
        "missing-pod",
        "unready-on-scale-up",
        "unlisted-sample",
        "shared-name",
        "bad-request",
        "facts-not-extracted",
        "no-samples",
        "no-pods",
    ],
)
def test_scan_answers_the_usual_case_only(
    pods: list[Any], metrics: dict[str, PodMetric], scanned: bool
) -> None:
    reader = PLAIN_READER
    options: dict[str, Any] = {
        "now": NOW,
        "cpu_initialization_period": CONFIG.cpu_initialization_period,
        "initial_readiness_delay": CONFIG.initial_readiness_delay,
    }
    scan = scan_pods(pods, metrics, "cpu", "", reader, **options)
    assert (scan is not None) == scanned
    assert _outcome(pods, metrics, reader) == _outcome(pods, metrics, None)
