"""Pod grouping, requests and ready counts (``podscale.hpa.pods``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from podscale.hpa.pods import (
    ZERO_TIME,
    calculate_requests,
    count_ready_pods,
    group_pods,
    parse_time,
)
from podscale.hpa.types import MetricError, PodMetric

NOW = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
INIT_PERIOD = timedelta(minutes=5)
READINESS_DELAY = timedelta(seconds=30)
WINDOW = timedelta(seconds=30)


def iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def make_pod(
    name: str = "p",
    *,
    phase: str = "Running",
    ready: str | None = "True",
    started: timedelta | None = timedelta(minutes=10),
    transitioned: timedelta | None = timedelta(minutes=9),
    deleted: bool = False,
) -> dict[str, Any]:
    """A pod started ``started`` ago whose Ready condition last changed ``transitioned`` ago."""
    status: dict[str, Any] = {"phase": phase}
    if started is not None:
        status["startTime"] = iso(NOW - started)
    if ready is not None:
        condition: dict[str, Any] = {"type": "Ready", "status": ready}
        if transitioned is not None:
            condition["lastTransitionTime"] = iso(NOW - transitioned)
        status["conditions"] = [{"type": "PodScheduled", "status": "True"}, condition]
    metadata: dict[str, Any] = {"name": name}
    if deleted:
        metadata["deletionTimestamp"] = iso(NOW)
    return {"metadata": metadata, "spec": {}, "status": status}


def sample(age: timedelta = timedelta(seconds=10)) -> PodMetric:
    return PodMetric(100, NOW - age, WINDOW)


def group_one(pod: dict[str, Any], resource: str = "cpu", *, with_sample: bool = True) -> str:
    """Group a single pod and return where it landed: ready, missing, or its reason."""
    metrics = {pod["metadata"]["name"]: sample()} if with_sample else {}
    groups = group_pods(
        [pod],
        metrics,
        resource,
        now=NOW,
        cpu_initialization_period=INIT_PERIOD,
        initial_readiness_delay=READINESS_DELAY,
    )
    if groups.ready_count:
        return "ready"
    if groups.missing:
        return "missing"
    return {**groups.ignored, **groups.unready}["p"]


GROUPING_CASES = [
    ("running ready pod counts", make_pod(), "cpu", True, "ready"),
    ("deleted pod ignored", make_pod(deleted=True), "cpu", True, "deleted"),
    ("deleted wins over pending", make_pod(phase="Pending", deleted=True), "cpu", True, "deleted"),
    ("failed pod ignored", make_pod(phase="Failed"), "cpu", True, "failed"),
    ("pending pod unready", make_pod(phase="Pending"), "memory", True, "pending"),
    ("pending wins over missing", make_pod(phase="Pending"), "cpu", False, "pending"),
    ("no sample is missing", make_pod(ready="False"), "cpu", False, "missing"),
    ("cpu: no ready condition", make_pod(ready=None), "cpu", True, "no ready condition"),
    ("cpu: no start time", make_pod(started=None), "cpu", True, "no start time"),
    ("memory: readiness ignored", make_pod(ready=None, started=None), "memory", True, "ready"),
    ("custom metric: readiness ignored", make_pod(ready="False"), "", True, "ready"),
    (
        "cpu init period: not ready",
        make_pod(ready="False", started=timedelta(minutes=1), transitioned=timedelta(minutes=1)),
        "cpu",
        True,
        "not ready",
    ),
    (
        "cpu init period: sample older than transition + window",
        make_pod(started=timedelta(minutes=1), transitioned=timedelta(seconds=30)),
        "cpu",
        True,
        "inside cpu initialization period",
    ),
    (
        "cpu init period: sample a full window after transition",
        make_pod(started=timedelta(minutes=2), transitioned=timedelta(seconds=50)),
        "cpu",
        True,
        "ready",
    ),
    (
        "cpu init period: no transition time means zero time",
        make_pod(started=timedelta(minutes=1), transitioned=None),
        "cpu",
        True,
        "ready",
    ),
    (
        "after init: unready since start (within readiness delay)",
        make_pod(ready="False", started=timedelta(minutes=10), transitioned=timedelta(minutes=10)),
        "cpu",
        True,
        "not yet ready since start",
    ),
    (
        "after init: became unready later, sample still counts",
        make_pod(ready="False", started=timedelta(minutes=10), transitioned=timedelta(minutes=2)),
        "cpu",
        True,
        "ready",
    ),
    (
        "after init: ready condition true counts",
        make_pod(ready="True", started=timedelta(minutes=10), transitioned=timedelta(minutes=10)),
        "cpu",
        True,
        "ready",
    ),
]


@pytest.mark.parametrize(
    ("pod", "resource", "with_sample", "expected"),
    [case[1:] for case in GROUPING_CASES],
    ids=[case[0] for case in GROUPING_CASES],
)
def test_group_pods_sorts_each_pod(
    pod: dict[str, Any], resource: str, with_sample: bool, expected: str
) -> None:
    assert group_one(pod, resource, with_sample=with_sample) == expected


@pytest.mark.parametrize(
    ("started", "expected"),
    [
        (INIT_PERIOD - timedelta(seconds=1), "inside cpu initialization period"),
        (INIT_PERIOD, "ready"),
    ],
    ids=["one second before the period ends", "period ended exactly now"],
)
def test_cpu_initialization_period_boundary_is_strict(started: timedelta, expected: str) -> None:
    # The sample predates the last transition, so inside the period it must not count.
    pod = make_pod(started=started, transitioned=timedelta(seconds=5))
    assert group_one(pod) == expected


def test_group_pods_counts_and_collects_all_sets() -> None:
    pods = [
        make_pod("a"),
        make_pod("b"),
        make_pod("c", phase="Pending"),
        make_pod("d"),
        make_pod("e", phase="Failed"),
    ]
    metrics = {"a": sample(), "b": sample(), "c": sample(), "e": sample()}
    groups = group_pods(
        pods,
        metrics,
        "cpu",
        now=NOW,
        cpu_initialization_period=INIT_PERIOD,
        initial_readiness_delay=READINESS_DELAY,
    )
    assert groups.ready_count == 2
    assert groups.unready == {"c": "pending"}
    assert groups.missing == frozenset({"d"})
    assert groups.ignored == {"e": "failed"}


def container(name: str, **requests: str) -> dict[str, Any]:
    return {"name": name, "resources": {"requests": requests}}


def pod_with(containers: list[dict[str, Any]], init: list[dict[str, Any]] | None = None) -> Any:
    spec: dict[str, Any] = {"containers": containers}
    if init is not None:
        spec["initContainers"] = init
    return {"metadata": {"name": "web-1"}, "spec": spec}


SIDECAR = {**container("proxy", cpu="50m"), "restartPolicy": "Always"}
PLAIN_INIT = container("migrate", cpu="2")

REQUEST_CASES = [
    ("single container", [container("app", cpu="250m")], None, "", 250),
    ("containers summed", [container("a", cpu="1"), container("b", cpu="500m")], None, "", 1500),
    ("sidecar init container added", [container("app", cpu="100m")], [SIDECAR], "", 150),
    ("plain init container skipped", [container("app", cpu="100m")], [PLAIN_INIT], "", 100),
    ("named container only", [container("a", cpu="1"), container("b", cpu="3")], None, "b", 3000),
    ("named sidecar", [container("app", cpu="1")], [SIDECAR], "proxy", 50),
    (
        "named container ignores others' gaps",
        [container("a"), container("b", cpu="2")],
        None,
        "b",
        2000,
    ),
]


@pytest.mark.parametrize(
    ("containers", "init", "name", "expected"),
    [case[1:] for case in REQUEST_CASES],
    ids=[case[0] for case in REQUEST_CASES],
)
def test_calculate_requests(
    containers: list[dict[str, Any]], init: list[dict[str, Any]] | None, name: str, expected: int
) -> None:
    assert calculate_requests([pod_with(containers, init)], name, "cpu") == {"web-1": expected}


REQUEST_ERROR_CASES = [
    (
        "missing request",
        [container("app", cpu="1"), container("log")],
        None,
        "",
        "missing request for cpu in container log of Pod web-1",
    ),
    (
        "missing request on sidecar",
        [container("app", cpu="1")],
        [{"name": "proxy", "restartPolicy": "Always"}],
        "",
        "missing request for cpu in container proxy of Pod web-1",
    ),
    (
        "missing request on named container",
        [container("app", memory="1Gi")],
        None,
        "app",
        "missing request for cpu in container app of Pod web-1",
    ),
    (
        "named container absent",
        [container("app", cpu="1")],
        None,
        "worker",
        "container worker not found in Pod web-1",
    ),
]


@pytest.mark.parametrize(
    ("containers", "init", "name", "message"),
    [case[1:] for case in REQUEST_ERROR_CASES],
    ids=[case[0] for case in REQUEST_ERROR_CASES],
)
def test_calculate_requests_errors(
    containers: list[dict[str, Any]], init: list[dict[str, Any]] | None, name: str, message: str
) -> None:
    with pytest.raises(MetricError) as caught:
        calculate_requests([pod_with(containers, init)], name, "cpu")
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("pods", "expected"),
    [
        ([make_pod("a"), make_pod("b")], 2),
        ([make_pod("a"), make_pod("b", ready="False")], 1),
        ([make_pod("a", phase="Pending"), make_pod("b", ready=None)], 0),
        ([make_pod("a", deleted=True)], 1),
    ],
    ids=["all ready", "one not ready", "pending and no condition", "deleted but ready counts"],
)
def test_count_ready_pods(pods: list[dict[str, Any]], expected: int) -> None:
    assert count_ready_pods(pods) == expected


def test_count_ready_pods_rejects_empty_list() -> None:
    with pytest.raises(MetricError, match=r"^no pods returned by selector while calculating"):
        count_ready_pods([])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-05-01T12:00:00Z", NOW),
        ("2024-05-01T14:00:00+02:00", NOW),
        ("2024-05-01T12:00:00", NOW),
        ("2024-05-01T12:00:00.5Z", NOW + timedelta(milliseconds=500)),
    ],
    ids=["zulu", "offset", "naive is utc", "fractional seconds"],
)
def test_parse_time(text: str, expected: datetime) -> None:
    assert parse_time(text) == expected


def test_zero_time_is_before_everything() -> None:
    assert parse_time("0001-01-01T00:00:00Z") == ZERO_TIME
