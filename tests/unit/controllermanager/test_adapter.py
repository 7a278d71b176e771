"""The adapter's guard on pushed metrics: answered while leading, a 503 otherwise.

The push provider is filled by the EHPA controller, which runs only in the leading
replica, so ``LeaderOnlyProvider`` answers for it only there; elsewhere reads, writes and
discovery say so rather than a 404. Served through ``adapter_app`` as the aggregator reads.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from starlette.testclient import TestClient

from podscale.apiserver.metricsapis.router import ExternalMetricsRouter
from podscale.controllermanager.adapter import LeaderOnlyProvider, adapter_app
from podscale.metrics.push import PushMetricsProvider

ROOT = "/apis/external.metrics.k8s.io/v1beta1"
METRIC = f"{ROOT}/namespaces/default/crane_autoscaling_prediction"


class Clock:
    def now(self) -> datetime:
        return datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def client(leading: bool) -> TestClient:
    push = PushMetricsProvider(Clock())
    sample = {"items": [{"metricName": "crane_autoscaling_prediction", "value": "3"}]}
    router = ExternalMetricsRouter(LeaderOnlyProvider(push, lambda: True))
    app = adapter_app(router, Clock())
    with TestClient(app) as writer:
        assert writer.put(METRIC, json=sample).status_code < 300
    guarded = ExternalMetricsRouter(LeaderOnlyProvider(push, lambda: leading))
    return TestClient(adapter_app(guarded, Clock()))


@pytest.mark.parametrize(
    ("leading", "code"), [(True, 200), (False, 503)], ids=["leader", "standby"]
)
def test_reads_of_pushed_metrics(leading: bool, code: int) -> None:
    answer = client(leading).get(METRIC)
    assert answer.status_code == code, answer.text
    if not leading:
        body = answer.json()
        assert body["reason"] == "ServiceUnavailable"
        assert "not the leader" in body["message"]


def test_a_standby_replica_refuses_writes_and_lists_none() -> None:
    standby = client(False)
    put = standby.put(METRIC, json={"items": []})
    assert put.status_code == 503, put.text
    listed = standby.get(ROOT).json()["resources"]
    assert "crane_autoscaling_prediction" not in [r["name"] for r in listed]
