"""The wire form of metric samples: MetricValue / ExternalMetricValue JSON and LabelSelectors.

Field names and omission rules are those of custom_metrics/v1beta2 and external_metrics/v1beta1
``types.go``; the selector conversion mirrors ``metav1.ParseToLabelSelector``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from podscale.api import parse_quantity, parse_selector
from podscale.apiserver.metricsapis.samples import (
    CustomSample,
    ExternalSample,
    described_kind,
    label_selector_json,
    render_custom,
    render_external,
    split_group_resource,
)

JSON = dict[str, Any]
MOMENT = datetime(2026, 3, 4, 5, 6, 7, 890000, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", None),
        ("app=web", {"matchLabels": {"app": "web"}}),
        ("app==web,tier=db", {"matchLabels": {"app": "web", "tier": "db"}}),
        (
            "zone in (b,a)",
            {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]},
        ),
        (
            "zone notin (a)",
            {"matchExpressions": [{"key": "zone", "operator": "NotIn", "values": ["a"]}]},
        ),
        ("gpu", {"matchExpressions": [{"key": "gpu", "operator": "Exists"}]}),
        ("!gpu", {"matchExpressions": [{"key": "gpu", "operator": "DoesNotExist"}]}),
        (
            "app=web,zone!=eu",
            {
                "matchLabels": {"app": "web"},
                "matchExpressions": [{"key": "zone", "operator": "NotIn", "values": ["eu"]}],
            },
        ),
    ],
    ids=["empty", "equals", "double-equals", "in", "notin", "exists", "not-exists", "not-equal"],
)
def test_label_selector_json(text: str, expected: JSON | None) -> None:
    assert label_selector_json(parse_selector(text)) == expected


@pytest.mark.parametrize(
    ("group_resource", "split", "kind"),
    [
        ("pods", ("", "pods"), ("v1", "Pod")),
        ("deployments.apps", ("apps", "deployments"), ("apps/v1", "Deployment")),
        (
            "horizontalpodautoscalers.autoscaling",
            ("autoscaling", "horizontalpodautoscalers"),
            ("autoscaling/v2", "HorizontalPodAutoscaler"),
        ),
        ("widgets.example.com", ("example.com", "widgets"), ("", "")),
    ],
    ids=["core", "apps", "preferred-version", "unknown"],
)
def test_group_resources_resolve_to_kinds(
    group_resource: str, split: tuple[str, str], kind: tuple[str, str]
) -> None:
    assert split_group_resource(group_resource) == split
    assert described_kind(group_resource) == kind


def test_custom_value_fields() -> None:
    sample = CustomSample(
        "pods",
        "default",
        "web-1",
        "rps",
        parse_quantity("0.25"),
        timestamp=MOMENT,
        kind="Pod",
        api_version="v1",
    )
    assert render_custom(sample, parse_selector("verb=GET")) == {
        "describedObject": {
            "kind": "Pod",
            "namespace": "default",
            "name": "web-1",
            "apiVersion": "v1",
        },
        "metric": {"name": "rps", "selector": {"matchLabels": {"verb": "GET"}}},
        "timestamp": "2026-03-04T05:06:07Z",
        "value": "250m",
    }


def test_custom_window_and_fallback_time() -> None:
    sample = CustomSample("nodes", None, "n1", "temp", parse_quantity("40"), window_seconds=30)
    east = timezone(timedelta(hours=2))
    rendered = render_custom(sample, parse_selector(""), MOMENT.astimezone(east))
    assert rendered["describedObject"] == {"name": "n1"}
    assert rendered["windowSeconds"] == 30
    assert rendered["timestamp"] == "2026-03-04T05:06:07Z"
    with pytest.raises(ValueError, match="written_at"):
        render_custom(sample, parse_selector(""))


def test_external_value_fields() -> None:
    bare = ExternalSample("default", "queue", parse_quantity("3k"), timestamp=MOMENT)
    assert render_external(bare) == {
        "metricName": "queue",
        "metricLabels": {},
        "timestamp": "2026-03-04T05:06:07Z",
        "value": "3k",
    }
    labelled = ExternalSample(
        "default", "queue", parse_quantity("1"), (("q", "jobs"),), window_seconds=60
    )
    rendered = render_external(labelled, MOMENT)
    assert (rendered["metricLabels"], rendered["window"]) == ({"q": "jobs"}, 60)
    with pytest.raises(ValueError, match="written_at"):
        render_external(labelled)
