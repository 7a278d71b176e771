"""``usagehistory.points``: targets, metric values and the points of a minute."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.quantity import QuantityError, parse_quantity
from podscale.controllers.usagehistory.points import (
    Target,
    Usage,
    _number,
    build_points,
    metric_values,
    minute_of,
    next_minute,
    targets_of,
)
from podscale.history import Point, SeriesKey

JSON = dict[str, Any]
AT = datetime(2026, 3, 1, 9, 30, 42, 500000, tzinfo=UTC)
MINUTE = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)


def autoscaler(
    name: str,
    target: str,
    *,
    kind: str = "Deployment",
    namespace: str = "default",
    metrics: list[JSON] | None = None,
    current: list[JSON] | None = None,
) -> JSON:
    obj: JSON = {
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": kind, "name": target},
            "metrics": metrics or [],
        },
    }
    if current is not None:
        obj["status"] = {"currentMetrics": current}
    return obj


def cpu_spec(target_type: str) -> JSON:
    target: JSON = {"type": target_type}
    return {"type": "Resource", "resource": {"name": "cpu", "target": target}}


CPU_STATUS = {
    "type": "Resource",
    "resource": {"name": "cpu", "current": {"averageUtilization": 72, "averageValue": "144m"}},
}
PODS_STATUS = {
    "type": "Pods",
    "pods": {"metric": {"name": "rps"}, "current": {"averageValue": "1500m"}},
}
OBJECT_STATUS = {
    "type": "Object",
    "object": {"metric": {"name": "hits"}, "current": {"value": "2k"}},
}
EXTERNAL_STATUS = {
    "type": "External",
    "external": {"metric": {"name": "queue"}, "current": {"averageValue": "30"}},
}
CONTAINER_STATUS = {
    "type": "ContainerResource",
    "containerResource": {
        "name": "memory",
        "container": "app",
        "current": {"averageValue": "64Mi"},
    },
}


@pytest.mark.parametrize(
    ("specs", "statuses", "expected"),
    [
        ([cpu_spec("Utilization")], [CPU_STATUS], {"metric/0/cpu": 72.0}),
        ([cpu_spec("AverageValue")], [CPU_STATUS], {"metric/0/cpu": 0.144}),
        ([], [CPU_STATUS], {"metric/0/cpu": 0.144}),
        ([], [PODS_STATUS, OBJECT_STATUS], {"metric/0/rps": 1.5, "metric/1/hits": 2000.0}),
        ([], [EXTERNAL_STATUS], {"metric/0/queue": 30.0}),
        ([], [CONTAINER_STATUS], {"metric/0/memory": 64.0 * 1024 * 1024}),
        ([], [{"type": ""}, PODS_STATUS], {"metric/1/rps": 1.5}),
        (
            [],
            [{"type": "Pods", "pods": {"metric": {"name": "rps"}, "current": {}}}],
            {},
        ),
        (
            [],
            [{"type": "Pods", "pods": {"metric": {"name": "rps"}, "current": {"value": "x"}}}],
            {},
        ),
        ([], [], {}),
    ],
    ids=[
        "utilization-target-reads-utilization",
        "average-value-target-reads-average-value",
        "no-spec-prefers-average-value",
        "pods-and-object-by-index",
        "external",
        "container-resource-bytes",
        "failed-slot-keeps-indexes",
        "no-current-value",
        "unparsable-quantity",
        "no-status",
    ],
)
def test_metric_values(specs: list[JSON], statuses: list[JSON], expected: dict[str, float]) -> None:
    obj = autoscaler("web", "web", metrics=specs, current=statuses)
    values = {k: v for k, v in metric_values(obj).items() if k.startswith("metric/")}
    assert values == pytest.approx(expected)


def average_value(kind: str, target_type: str = "AverageValue") -> JSON:
    field = kind.lower()
    target: JSON = {"type": target_type}
    return {"type": kind, field: {"metric": {"name": "rps"}, "target": target}}


def current(kind: str, **values: str) -> JSON:
    return {"type": kind, kind.lower(): {"metric": {"name": "rps"}, "current": values}}


@pytest.mark.parametrize(
    ("spec", "status", "replicas", "expected"),
    [
        (average_value("Pods"), current("Pods", averageValue="1500m"), 4, 6.0),
        (average_value("External"), current("External", averageValue="30"), 3, 90.0),
        (average_value("Object"), current("Object", averageValue="250m"), 2, 0.5),
        (
            average_value("Object", "Value"),
            current("Object", value="2k", averageValue="1k"),
            2,
            2000.0,
        ),
        (average_value("External", "Value"), current("External", value="12"), None, 12.0),
        (average_value("Pods"), current("Pods", averageValue="1500m"), None, None),
        (average_value("Pods"), current("Pods", averageValue="1500m"), 0, 0.0),
        (cpu_spec("AverageValue"), CPU_STATUS, 4, None),
        (cpu_spec("Utilization"), CPU_STATUS, 4, None),
    ],
    ids=[
        "pods-average-times-current-replicas",
        "external-average-times-current-replicas",
        "object-average-times-current-replicas",
        "object-value-is-the-total",
        "external-value-needs-no-replicas",
        "average-without-current-replicas-has-no-total",
        "zero-replicas-zero-total",
        "resource-average-value-has-cpu-usage-instead",
        "resource-utilization-has-cpu-usage-instead",
    ],
)
def test_metric_totals(
    spec: JSON, status: JSON, replicas: int | None, expected: float | None
) -> None:
    obj = autoscaler("web", "web", metrics=[spec], current=[status])
    if replicas is not None:
        obj["status"]["currentReplicas"] = replicas
    values = metric_values(obj)
    name = "rps" if spec["type"] != "Resource" else "cpu"
    assert values.get(f"metric_total/0/{name}") == (
        None if expected is None else pytest.approx(expected)
    )
    assert f"metric/0/{name}" in values  # the status value is recorded as well


@pytest.mark.parametrize(
    ("autoscalers", "expected"),
    [
        ([autoscaler("a", "web")], [Target("default", "Deployment", "web", "apps/v1")]),
        (
            [autoscaler("a", "web"), autoscaler("b", "web")],
            [Target("default", "Deployment", "web", "apps/v1")],
        ),
        (
            [autoscaler("a", "web"), autoscaler("b", "web", kind="StatefulSet")],
            [
                Target("default", "Deployment", "web", "apps/v1"),
                Target("default", "StatefulSet", "web", "apps/v1"),
            ],
        ),
        (
            [autoscaler("a", "web"), autoscaler("a", "web", namespace="prod")],
            [
                Target("default", "Deployment", "web", "apps/v1"),
                Target("prod", "Deployment", "web", "apps/v1"),
            ],
        ),
        ([{"metadata": {"name": "bad", "namespace": "default"}, "spec": {}}], []),
        ([autoscaler("a", "")], []),
    ],
    ids=[
        "one",
        "two-autoscalers-one-target",
        "same-name-other-kind",
        "same-name-other-namespace",
        "no-reference",
        "reference-without-name",
    ],
)
def test_targets_of(autoscalers: list[JSON], expected: list[Target]) -> None:
    assert targets_of(autoscalers) == expected


WEB = Target("default", "Deployment", "web", "apps/v1")


def key(series: str, name: str = "web") -> SeriesKey:
    return SeriesKey("default", "Deployment", name, series)


@pytest.mark.parametrize(
    ("usage", "autoscalers", "expected"),
    [
        (
            {WEB: Usage(1500, 512 * 1024 * 1024 * 1000)},
            [],
            {
                key("cpu_usage"): Point(MINUTE, 1.5),
                key("memory_usage"): Point(MINUTE, 512.0 * 1024 * 1024),
            },
        ),
        ({WEB: Usage(None, 2000)}, [], {key("memory_usage"): Point(MINUTE, 2.0)}),
        ({WEB: Usage(None, None)}, [], {}),
        (
            {},
            [autoscaler("a", "web", current=[PODS_STATUS])],
            {key("metric/0/rps"): Point(MINUTE, 1.5)},
        ),
        (
            {},
            [
                autoscaler("a", "web", current=[PODS_STATUS]),
                autoscaler(
                    "b",
                    "web",
                    current=[
                        {
                            "type": "Pods",
                            "pods": {"metric": {"name": "rps"}, "current": {"averageValue": "9"}},
                        }
                    ],
                ),
            ],
            {key("metric/0/rps"): Point(MINUTE, 1.5)},
        ),
        (
            {WEB: Usage(250, None)},
            [autoscaler("a", "web", current=[CPU_STATUS])],
            {key("cpu_usage"): Point(MINUTE, 0.25), key("metric/0/cpu"): Point(MINUTE, 0.144)},
        ),
    ],
    ids=[
        "cores-and-bytes",
        "cpu-unknown",
        "nothing-known",
        "metric-of-an-autoscaler",
        "first-autoscaler-wins-a-shared-series",
        "usage-and-metrics",
    ],
)
def test_build_points(
    usage: dict[Target, Usage], autoscalers: list[JSON], expected: dict[SeriesKey, Point]
) -> None:
    assert build_points(AT, usage, autoscalers) == expected


@given(st.datetimes(timezones=st.just(UTC)))
def test_minute_grid(at: datetime) -> None:
    minute = minute_of(at)
    assert minute <= at < minute + timedelta(minutes=1)
    assert (minute.second, minute.microsecond) == (0, 0)
    assert next_minute(at) == minute + timedelta(minutes=1)
    assert next_minute(at) > at


@pytest.mark.parametrize(
    "value",
    [
        *("250m", "1.5", "2Gi", "100", "0", "junk", "", " 1", "1e3"),
        *(7, 0, -3, 10**30, True, False, 1.0, 2.5, None, ["1"]),
    ],
    ids=lambda v: repr(v),
)
def test_a_value_read_again_is_read_as_the_first_time(value: Any) -> None:
    """``_number`` keeps what each text and int parsed to: reading one again (from the kept
    parse) answers what parsing it afresh does, a text that does not parse included, and a
    bool (which does not parse) is never taken for the int it equals."""
    try:
        fresh = None if value is None else parse_quantity(value).as_approximate_float()
    except (QuantityError, ValueError, TypeError):
        fresh = None
    assert _number(value) == fresh
    assert _number(value) == fresh  # kept


def test_an_int_kept_is_not_answered_for_its_bool_or_float() -> None:
    assert _number(1) == 1.0
    assert _number(True) is None  # a bool is no quantity, though True == 1
    assert _number(1.0) == 1.0


def _pairwise_targets(autoscalers: list[JSON]) -> list[Target]:
    """The first-seen distinct targets by comparing with every one found (the reference)."""
    found: list[Target] = []
    for obj in autoscalers:
        [target] = targets_of([obj]) or [None]
        if target is not None and not any(
            (target.namespace, target.kind, target.name) == (t.namespace, t.kind, t.name)
            for t in found
        ):
            found.append(target)
    return found


_REFS = st.tuples(
    st.sampled_from(["default", "prod"]),
    st.sampled_from(["Deployment", "StatefulSet", ""]),
    st.sampled_from(["web", "api", ""]),
    st.sampled_from(["apps/v1", "apps/v1beta1", ""]),
)


@given(st.lists(_REFS, max_size=12))
def test_targets_of_keeps_the_first_of_each_workload(refs: list[tuple[str, ...]]) -> None:
    autoscalers = [
        {
            "metadata": {"name": f"a{i}", "namespace": namespace},
            "spec": {"scaleTargetRef": {"apiVersion": version, "kind": kind, "name": name}},
        }
        for i, (namespace, kind, name, version) in enumerate(refs)
    ]
    assert targets_of(autoscalers) == _pairwise_targets(autoscalers)
