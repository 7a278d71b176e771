"""The cron scaler's window as a reading, podscale's own podscale-push trigger (parse and
read through the plane's external metrics), and the factory's dispatch."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, cast

import pytest

from podscale.api.selectors import Selector
from podscale.apiserver.errors import ApiError
from podscale.apiserver.metricsapis.providers import (
    ExternalMetricInfo,
    external_metric_not_found,
)
from podscale.controllers.keda.scalers.base import ScalerEnv, ScalerError, ScalerReading
from podscale.controllers.keda.scalers.factory import build_scaler
from podscale.controllers.keda.triggers.registry import parse_trigger
from podscale.controllers.keda.triggers.spec import TriggerError
from podscale.controllers.runtime_api import ControllerApi

JSON = dict[str, Any]
CRON: JSON = {
    "type": "cron",
    "metadata": {
        "timezone": "UTC",
        "start": "0 6 * * *",
        "end": "0 20 * * *",
        "desiredReplicas": "7",
    },
}


class Provider:
    """An external metrics provider holding (labels, value) series per (namespace, metric)."""

    def __init__(self, series: dict[tuple[str, str], list[tuple[dict[str, str], str]]]):
        self.series = series
        self.selectors: list[str] = []

    def list_external_metrics(self) -> Sequence[ExternalMetricInfo]:
        return [ExternalMetricInfo(metric) for _, metric in self.series]

    async def get_external_metric(
        self, namespace: str, metric_selector: Selector, info: ExternalMetricInfo
    ) -> list[JSON]:
        self.selectors.append(str(metric_selector))
        if (namespace, info.metric) not in self.series:
            raise external_metric_not_found(info.metric)
        return [
            {"metricName": info.metric, "metricLabels": labels, "value": value}
            for labels, value in self.series[(namespace, info.metric)]
            if metric_selector.matches(labels)
        ]


def _read(trigger: JSON, now: datetime, external: Provider | None = None) -> ScalerReading:
    spec = parse_trigger(0, trigger, namespace="ns")
    env = ScalerEnv(api=cast(ControllerApi, object()), namespace="ns", external=external)

    async def run() -> ScalerReading:
        scaler = build_scaler(spec, env)
        try:
            return await scaler.read(now)
        finally:
            await scaler.close()

    return asyncio.run(run())


CRON_ROWS = [
    ("cron-inside-window-desired-replicas-active", datetime(2026, 1, 1, 12, tzinfo=UTC), 7.0, True),
    ("cron-outside-window-one-inactive", datetime(2026, 1, 1, 21, tzinfo=UTC), 1.0, False),
]


@pytest.mark.parametrize(
    ("now", "value", "active"), [r[1:] for r in CRON_ROWS], ids=[r[0] for r in CRON_ROWS]
)
def test_cron(now: datetime, value: float, active: bool) -> None:
    assert _read(CRON, now) == ScalerReading(value, active)


def test_cron_unknown_zone_fails_the_read_not_the_parse() -> None:
    trigger = {**CRON, "metadata": {**CRON["metadata"], "timezone": "Mars/Olympus"}}
    with pytest.raises(
        ScalerError, match=r"^unable to load timezone: unknown time zone Mars/Olympus$"
    ):
        _read(trigger, datetime(2026, 1, 1, tzinfo=UTC))


PUSH: JSON = {"type": "podscale-push", "metadata": {"metricName": "queue.depth", "value": "5"}}
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def test_push_parse_names_the_metric_by_index() -> None:
    spec = parse_trigger(2, PUSH, namespace="ns")
    assert (spec.metric_name, spec.metric_type, spec.target_value, spec.activation_target) == (
        "s2-queue-depth",
        "AverageValue",
        5.0,
        0.0,
    )


PUSH_REFUSALS = [
    (
        "push-missing-metric-name",
        {"value": "5"},
        "error parsing podscale-push metadata: "
        'missing required parameter "metricName" in [triggerMetadata]',
    ),
    (
        "push-value-not-positive",
        {"metricName": "m", "value": "0"},
        "error parsing podscale-push metadata: value must be greater than 0",
    ),
    (
        "push-bad-label-selector",
        {"metricName": "m", "value": "1", "labelSelector": "a in (b"},
        "error parsing podscale-push metadata: error parsing labelSelector: ",
    ),
]


@pytest.mark.parametrize(
    ("metadata", "message"), [r[1:] for r in PUSH_REFUSALS], ids=[r[0] for r in PUSH_REFUSALS]
)
def test_push_refusals(metadata: dict[str, str], message: str) -> None:
    with pytest.raises(TriggerError) as caught:
        parse_trigger(0, {"type": "podscale-push", "metadata": metadata})
    assert str(caught.value).startswith(message)


def test_push_sums_the_series_it_reads_and_passes_the_selector() -> None:
    provider = Provider({("ns", "queue.depth"): [({"q": "a"}, "3"), ({"q": "b"}, "1500m")]})
    assert _read(PUSH, NOW, provider) == ScalerReading(4.5, True)
    selected = {
        **PUSH,
        "metadata": {**PUSH["metadata"], "labelSelector": "q=b", "activationValue": "2"},
    }
    assert _read(selected, NOW, provider) == ScalerReading(1.5, False)
    assert provider.selectors == ["", "q=b"]


def test_push_no_matching_series_reads_zero() -> None:
    provider = Provider({("ns", "queue.depth"): []})
    assert _read(PUSH, NOW, provider) == ScalerReading(0.0, False)


def test_push_unknown_metric_fails_with_the_providers_message() -> None:
    with pytest.raises(ScalerError, match=r"could not find the metric queue\.depth"):
        _read(PUSH, NOW, Provider({}))


def test_push_without_provider_fails() -> None:
    with pytest.raises(ScalerError, match="no external metrics provider"):
        _read(PUSH, NOW, None)


def test_api_error_type_is_the_servers() -> None:
    assert isinstance(external_metric_not_found("m"), ApiError)
