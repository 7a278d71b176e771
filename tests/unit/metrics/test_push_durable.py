"""Pushed metric values: only finite ones are taken, and with a journal they outlive the
provider (a restart of ``podscale up``) until their ttl after the push time."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from podscale.api import parse_quantity, parse_selector
from podscale.apiserver.http.app import create_app
from podscale.apiserver.metricsapis.providers import CustomMetricInfo, ExternalMetricInfo
from podscale.apiserver.metricsapis.samples import is_finite
from podscale.metrics.push import PushMetricsProvider
from podscale.metrics.push_journal import SqlitePushJournal
from podscale.store.memory import MemoryStore
from podscale.testing.clock import FakeClock

START = datetime(2026, 1, 1, tzinfo=UTC)
EXTERNAL = "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_depth"
CUSTOM = "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/rps"
EVERYTHING = parse_selector("")


def external_values(provider: PushMetricsProvider, metric: str = "queue_depth") -> list[str]:
    items = asyncio.run(
        provider.get_external_metric("default", EVERYTHING, ExternalMetricInfo(metric))
    )
    return [str(item["value"]) for item in items]


def client_for(provider: PushMetricsProvider, clock: FakeClock) -> TestClient:
    app = create_app(
        MemoryStore(clock),
        clock=clock,
        custom_metrics_provider=provider,
        external_metrics_provider=provider,
    )
    return TestClient(app, raise_server_exceptions=False)


def external_body(value: Any) -> dict[str, Any]:
    return {
        "kind": "ExternalMetricValueList",
        "apiVersion": "external.metrics.k8s.io/v1beta1",
        "items": [{"metricName": "queue_depth", "value": value}],
    }


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("1e400", 'items[0].value: Invalid value: "1e400": must be a finite number'),
        ("-2e308", 'items[0].value: Invalid value: "-2e308": must be a finite number'),
        ("1E999999999", 'items[0].value: Invalid value: "1E999999999": must be a finite number'),
    ],
    ids=["1e400", "negative", "huge-exponent"],
)
def test_non_finite_pushed_values_are_refused(value: str, message: str) -> None:
    clock = FakeClock(START)
    provider = PushMetricsProvider(clock)
    response = client_for(provider, clock).put(EXTERNAL, json=external_body(value))
    assert response.status_code == 400, response.text
    body = response.json()
    assert (body["kind"], body["reason"], body["code"]) == ("Status", "BadRequest", 400)
    assert body["message"] == message
    assert provider.list_external_metrics() == []


@pytest.mark.parametrize(
    "raw", [b'{"items":[{"value":1e400}]}', b'{"items":[{"value":NaN}]}'], ids=["inf", "nan"]
)
def test_non_finite_json_numbers_are_a_400(raw: bytes) -> None:
    clock = FakeClock(START)
    provider = PushMetricsProvider(clock)
    response = client_for(provider, clock).put(
        EXTERNAL, content=raw, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 400
    assert provider.list_external_metrics() == []


def test_the_largest_finite_values_are_still_taken() -> None:
    clock = FakeClock(START)
    provider = PushMetricsProvider(clock)
    response = client_for(provider, clock).put(EXTERNAL, json=external_body("1.7e308"))
    assert response.status_code == 200, response.text
    assert external_values(provider) == ["170e306"]


@pytest.mark.parametrize("value", ["1e400", float("inf"), float("nan")], ids=str)
def test_in_process_setters_refuse_non_finite_values(value: Any) -> None:
    provider = PushMetricsProvider(FakeClock(START))
    with pytest.raises(ValueError, match=r"finite|quantities must match"):
        provider.set_external_metric("default", "queue_depth", value)
    assert provider.list_external_metrics() == []


def test_is_finite_reads_the_decimal_magnitude() -> None:
    assert is_finite(parse_quantity("179769313486231570e291"))
    assert not is_finite(parse_quantity("179769313486231590e291"))


def test_pushed_values_survive_a_new_provider_over_the_same_journal(tmp_path: Path) -> None:
    clock = FakeClock(START)
    first = PushMetricsProvider(clock, journal=SqlitePushJournal(tmp_path / "m.db"))
    client = client_for(first, clock)
    assert client.put(EXTERNAL, json=external_body("250m")).status_code == 200
    pods = {
        "items": [
            {"describedObject": {"name": "web-1"}, "value": "3", "windowSeconds": 30},
            {
                "describedObject": {"name": "web-2"},
                "value": 4,
                "metric": {"selector": {"matchLabels": {"path": "a"}}},
            },
        ]
    }
    assert client.put(CUSTOM, json=pods).status_code == 200
    before = client.get(CUSTOM).json()["items"]
    first.close()

    clock.advance(timedelta(seconds=60))  # the restart takes a minute of the 2-minute ttl
    second = PushMetricsProvider(clock, journal=SqlitePushJournal(tmp_path / "m.db"))
    assert external_values(second) == ["250m"]
    after = client_for(second, clock).get(CUSTOM).json()["items"]
    assert after == before  # timestamps, windows and labels as pushed
    info = CustomMetricInfo("pods", True, "rps")
    labelled = asyncio.run(
        second.get_metric_by_name("default", "web-2", info, parse_selector("path=a"))
    )
    assert labelled["value"] == "4"
    second.close()


def test_values_whose_ttl_ran_out_during_the_restart_are_not_served(tmp_path: Path) -> None:
    clock = FakeClock(START)
    first = PushMetricsProvider(clock, journal=SqlitePushJournal(tmp_path / "m.db"))
    first.set_external_metric("default", "queue_depth", 5)
    clock.advance(timedelta(seconds=90))
    first.set_external_metric("default", "fresh", 7)
    first.close()

    clock.advance(timedelta(seconds=40))  # queue_depth is 130 s old, fresh 40 s
    second = PushMetricsProvider(clock, journal=SqlitePushJournal(tmp_path / "m.db"))
    assert [m.metric for m in second.list_external_metrics()] == ["fresh"]
    second.close()
    rows = sqlite3.connect(tmp_path / "m.db").execute("SELECT key FROM pushed").fetchall()
    assert [row[0] for row in rows] == ['["external","default","fresh",[]]']


def test_replacing_and_clearing_reach_the_journal(tmp_path: Path) -> None:
    clock = FakeClock(START)
    first = PushMetricsProvider(clock, journal=SqlitePushJournal(tmp_path / "m.db"))
    first.set_external_metric("default", "queue_depth", 1, labels={"q": "a"})
    first.set_external_metric("default", "queue_depth", 2, labels={"q": "b"})
    client = client_for(first, clock)
    assert client.put(EXTERNAL, json=external_body("9")).status_code == 200  # PUT replaces
    first.close()
    second = PushMetricsProvider(clock, journal=SqlitePushJournal(tmp_path / "m.db"))
    assert external_values(second) == ["9"]
    second.clear()
    second.close()
    third = PushMetricsProvider(clock, journal=SqlitePushJournal(tmp_path / "m.db"))
    assert third.list_external_metrics() == []
    third.close()


def test_the_journal_file_is_private(tmp_path: Path) -> None:
    SqlitePushJournal(tmp_path / "m.db").close()
    assert (tmp_path / "m.db").stat().st_mode & 0o077 == 0


def test_pod_metrics_set_at_once_reach_the_journal(tmp_path: Path) -> None:
    """``set_pod_metrics`` journals every pod it writes (and only a provider with a journal
    keeps the list of them): a new provider over the journal serves them all."""
    clock = FakeClock(START)
    first = PushMetricsProvider(clock, journal=SqlitePushJournal(tmp_path / "m.db"))
    first.set_pod_metrics("default", "rps", {"web-1": ("3", 30), "web-2": ("500m", None)})
    before = dict(first._custom)
    first.close()
    second = PushMetricsProvider(clock, journal=SqlitePushJournal(tmp_path / "m.db"))
    assert dict(second._custom) == before
    second.close()
