"""StaticMetricsSource answers like the metrics APIs for one moment in time."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from podscale.hpa import MetricsUnavailable, StaticMetricsSource

NOW = datetime(2026, 11, 22, 10, tzinfo=UTC)
SOURCE = StaticMetricsSource(
    timestamp=NOW,
    resources={"cpu": {"a": {"app": 100, "sidecar": 20}, "b": {"app": 50}}},
    pods={"rps": {"a": 3000}},
    objects={("hits", "Ingress", "main"): 12000},
    externals={"queue": [1000, 2000]},
    failures={"pods/broken": "adapter down"},
)


def test_resource_sums_containers_or_picks_one() -> None:
    whole, stamp = SOURCE.resource_metric("cpu", "default", "app=web", None)
    assert stamp == NOW
    assert {name: m.value for name, m in whole.items()} == {"a": 120, "b": 50}
    sidecar, _ = SOURCE.resource_metric("cpu", "default", "app=web", "sidecar")
    assert {name: m.value for name, m in sidecar.items()} == {"a": 20}


def test_answers_are_fresh_copies() -> None:
    first, _ = SOURCE.resource_metric("cpu", "default", "", None)
    first["intruder"] = first["a"]
    again, _ = SOURCE.resource_metric("cpu", "default", "", None)
    assert "intruder" not in again


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: SOURCE.resource_metric("memory", "default", "", None),
            "no metrics returned from resource metrics API",
        ),
        (lambda: SOURCE.pods_metric("broken", "default", "", None), "adapter down"),
        (
            lambda: SOURCE.pods_metric("absent", "default", "", None),
            "the server could not find the metric absent for pods",
        ),
        (
            lambda: SOURCE.object_metric(
                "hits", "default", {"kind": "Ingress", "name": "other"}, None
            ),
            "the server could not find the metric hits for ingress other",
        ),
        (
            lambda: SOURCE.external_metric("none", "default", None),
            "the server could not find the requested resource",
        ),
    ],
    ids=["no-resource", "told-to-fail", "no-pods-metric", "no-object", "no-external"],
)
def test_failures(call: object, message: str) -> None:
    with pytest.raises(MetricsUnavailable) as caught:
        call()  # type: ignore[operator]
    assert str(caught.value).startswith(message)


def test_values() -> None:
    assert SOURCE.pods_metric("rps", "default", "", None)[0]["a"].value == 3000
    assert SOURCE.object_metric("hits", "default", {"kind": "Ingress", "name": "main"}, None) == (
        12000,
        NOW,
    )
    assert SOURCE.external_metric("queue", "default", None) == ([1000, 2000], NOW)
