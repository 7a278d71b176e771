"""``podscale describe phpa``: the HPA's description of the object's HPA view, then the
PredictiveHorizontalPodAutoscaler's mode, prediction spec, schedules and prediction status,
then its conditions and events; end to end against a server with the CRD installed."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from podscale.apiserver.http.app import create_app
from podscale.apiserver.http.server import start_in_thread
from podscale.cli.describe_phpa import describe_phpa, is_phpa
from podscale.cli.main import cli
from podscale.controllers.phpa.kind import definition
from podscale.plane.files import write_kubeconfig
from podscale.store.memory import MemoryStore
from podscale.testing.clock import FakeClock

from .served import post

JSON = dict[str, Any]
NOW = datetime(2026, 11, 26, 1, 0, tzinfo=UTC)


def phpa(status: JSON | None = None, **spec: Any) -> JSON:
    obj: JSON = {
        "apiVersion": "autoscaling.podscale.dev/v1alpha1",
        "kind": "PredictiveHorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 2,
            "maxReplicas": 20,
            **spec,
        },
    }
    if status is not None:
        obj["status"] = status
    return obj


PREDICTION = {
    "history": "7d",
    "algorithm": "auto",
    "quantile": "0.9",
    "leadTime": "auto",
    "refreshInterval": "1h",
    "scaleDownLimit": "100%",
}
STATUS = {
    "currentReplicas": 4,
    "desiredReplicas": 6,
    "conditions": [
        {"type": "AbleToScale", "status": "True", "reason": "SucceededRescale", "message": "ok"},
        {
            "type": "PredictionReady",
            "status": "True",
            "reason": "ForecastAvailable",
            "message": "holtWinters beat the naive forecasts",
        },
    ],
    "prediction": {
        "model": "holtWinters",
        "backtestError": "0.12",
        "leadTimeSeconds": 165,
        "forecast": "2350m",
        "proactiveReplicas": 6,
        "passiveReplicas": 4,
        "schedule": "business-hours",
        "boundMinReplicas": 5,
        "boundMaxReplicas": 30,
        "finalReplicas": 6,
        "decidedBy": "proactive",
    },
}
WINDOW = {
    "name": "business-hours",
    "cron": "* 8-19 * * 1-5",
    "timeZone": "Asia/Shanghai",
    "minReplicas": 5,
    "maxReplicas": 30,
}


PHPAS = (
    "/apis/autoscaling.podscale.dev/v1alpha1/namespaces/default/predictivehorizontalpodautoscalers"
)


def lines(text: str) -> list[list[str]]:
    return [line.split() for line in text.splitlines()]


def test_every_part_is_shown_in_order() -> None:
    event = {
        "type": "Normal",
        "reason": "SuccessfulRescale",
        "message": "New size: 6; reason: proactive",
        "source": {"component": "predictive-horizontal-pod-autoscaler"},
        "lastTimestamp": "2026-11-26T00:59:00Z",
    }
    text = describe_phpa(phpa(STATUS, prediction=PREDICTION, schedules=[WINDOW]), [event], NOW)
    rows = lines(text)
    assert ["Reference:", "Deployment/web"] in rows
    assert ["Deployment", "pods:", "4", "current", "/", "6", "desired"] in rows
    assert ["Mode:", "Auto"] in rows
    for expected in (
        ["Metrics:", "<every", "forecastable", "metric>"],
        ["History:", "7d"],
        ["Quantile:", "0.9"],
        ["Lead", "time:", "auto"],
        ["Scale", "down", "limit:", "100%"],
        ["business-hours", "*", "8-19", "*", "*", "1-5", "Asia/Shanghai", "5", "30"],
        ["Model:", "holtWinters"],
        ["Backtest", "error:", "0.12"],
        ["Lead", "time:", "165s"],
        ["Forecast:", "2350m"],
        ["Proactive", "replicas:", "6"],
        ["Passive", "replicas:", "4"],
        ["Schedule:", "business-hours"],
        ["Bounds:", "5", "-", "30"],
        ["Final", "replicas:", "6"],
        ["Decided", "by:", "proactive"],
    ):
        assert expected in rows, (expected, text)
    titles = [row[0] for row in rows if row and row[0].endswith(":")]
    order = ["Name:", "Metrics:", "Mode:", "Prediction:", "Schedules:", "Prediction", "Events:"]
    positions = [text.index(title) for title in ("Name:", "Mode:", "Prediction:", "Schedules:")]
    assert positions == sorted(positions), titles
    assert text.index("Prediction status:") < text.index("Conditions:") < text.index("Events:")
    assert all(title in text for title in order)
    assert "PredictionReady" in text
    assert "ForecastAvailable" in text
    assert "predictive-horizontal-pod-autoscaler" in text
    assert text.count("Events:") == 1


def test_without_prediction_or_status() -> None:
    text = describe_phpa(phpa(mode="Preview"), [], NOW)
    rows = lines(text)
    assert ["Mode:", "Preview"] in rows
    assert ["Prediction:", "<none>", "(decides", "as", "an", "HPA)"] in rows
    assert ["Schedules:", "<none>"] in rows
    assert ["Prediction", "status:", "<none>"] in rows
    assert ["Events:", "<none>"] in rows
    assert "Conditions:" not in text


def test_a_status_without_a_model_says_so() -> None:
    status = {"prediction": {"passiveReplicas": 3, "finalReplicas": 3, "decidedBy": "passive"}}
    rows = lines(describe_phpa(phpa(status, prediction={}), [], NOW))
    assert ["Model:", "<none>"] in rows
    assert ["Proactive", "replicas:", "<unset>"] in rows
    assert ["Lead", "time:", "<unset>"] in rows
    assert ["Decided", "by:", "passive"] in rows


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("phpa", True),
        ("PHPA", True),
        ("predictivehorizontalpodautoscalers", True),
        ("predictivehorizontalpodautoscaler", True),
        ("predictivehorizontalpodautoscalers.autoscaling.podscale.dev", True),
        ("phpa.autoscaling.podscale.dev", False),
        ("hpa", False),
    ],
    ids=["short", "upper", "plural", "singular", "qualified", "short-qualified", "hpa"],
)
def test_which_names_mean_the_kind(name: str, expected: bool) -> None:
    assert is_phpa(name) is expected


def test_podscale_describe_phpa_against_a_server(tmp_path: Path) -> None:
    clock = FakeClock(NOW)
    server = start_in_thread(create_app(MemoryStore(clock), clock=clock))
    try:
        kubeconfig = tmp_path / "config"
        write_kubeconfig(kubeconfig, server=server.url, token=None)
        args = ["--kubeconfig", str(kubeconfig)]
        # podscale create knows only built-in kinds: the CRD and the PHPA go in over HTTP.
        post(f"{server.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions", definition())
        post(f"{server.url}{PHPAS}", phpa(prediction={}, schedules=[WINDOW]))
        described = CliRunner().invoke(cli, ["describe", "phpa", "web", *args])
        missing = CliRunner().invoke(cli, ["describe", "phpa", "nope", *args])
    finally:
        server.stop()
    assert described.exit_code == 0, described.output
    rows = lines(described.output)
    assert ["Name:", "web"] in rows
    assert ["History:", "7d"] in rows  # the schema's default, filled in by the server
    assert ["business-hours", "*", "8-19", "*", "*", "1-5", "Asia/Shanghai", "5", "30"] in rows
    assert missing.exit_code != 0
    assert 'predictivehorizontalpodautoscalers.autoscaling.podscale.dev "nope" not found' in (
        missing.output
    )
