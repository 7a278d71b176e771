"""``podscale describe ehpa``: the HPA's description of the object's HPA view, then Crane's
scale strategy, the generated HPA, the prediction settings with their defaults, the crons
with the active one, the status, then the conditions and events; end to end against a
server with the CRD installed."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from podscale.apiserver.http.app import create_app
from podscale.apiserver.http.server import start_in_thread
from podscale.cli.describe_ehpa import describe_ehpa, is_ehpa
from podscale.cli.main import cli
from podscale.controllers.ehpa.kind import definition
from podscale.plane.files import write_kubeconfig
from podscale.store.memory import MemoryStore
from podscale.testing.clock import FakeClock

from .served import post

JSON = dict[str, Any]
NOW = datetime(2026, 11, 26, 1, 30, tzinfo=UTC)  # a Thursday, 01:30 UTC
EHPAS = "/apis/autoscaling.crane.io/v1alpha1/namespaces/default/effectivehorizontalpodautoscalers"
CPU = {
    "type": "Resource",
    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}},
}
CRONS = [
    {"name": "night", "start": "0 1 * * *", "end": "0 2 * * *", "targetReplicas": 4},
    {
        "name": "morning",
        "timezone": "Asia/Shanghai",
        "start": "0 8 * * *",
        "end": "0 9 * * *",
        "targetReplicas": 6,
    },
]
STATUS = {
    "expectReplicas": 4,
    "currentReplicas": 3,
    "lastScaleTime": "2026-11-26T01:00:00Z",
    "conditions": [
        {
            "type": "Ready",
            "status": "True",
            "reason": "EffectiveHorizontalPodAutoscalerReady",
            "message": "Effective HPA is ready",
        },
        {
            "type": "PredictionReady",
            "status": "False",
            "reason": "PredictPartial",
            "message": "not all metric predicted: resource.cpu: no history",
        },
    ],
}


def ehpa(status: JSON | None = None, **spec: Any) -> JSON:
    obj: JSON = {
        "apiVersion": "autoscaling.crane.io/v1alpha1",
        "kind": "EffectiveHorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 1,
            "maxReplicas": 10,
            "metrics": [CPU],
            **spec,
        },
    }
    if status is not None:
        obj["status"] = status
    return obj


def lines(text: str) -> list[list[str]]:
    return [line.split() for line in text.splitlines()]


def test_every_part_is_shown_in_order() -> None:
    event = {
        "type": "Normal",
        "reason": "HPACreated",
        "message": "Create HorizontalPodAutoscaler successfully",
        "source": {"component": "effective-hpa-controller"},
        "lastTimestamp": "2026-11-26T01:00:00Z",
    }
    prediction = {
        "predictionWindowSeconds": 3600,
        "predictionAlgorithm": {"algorithmType": "dsp", "dsp": {"historyLength": "3d"}},
    }
    text = describe_ehpa(ehpa(STATUS, prediction=prediction, crons=CRONS), [event], NOW)
    rows = lines(text)
    for expected in (
        ["Reference:", "Deployment/web"],
        ["Deployment", "pods:", "3", "current", "/", "4", "desired"],
        ["Scale", "strategy:", "Auto"],
        ["Generated", "HPA:", "ehpa-web"],
        ["Window:", "3600s"],
        ["Algorithm:", "dsp"],
        ["Sample", "interval:", "60s", "(default)"],
        ["History", "length:", "3d"],
        ["night", "UTC", "0", "1", "*", "*", "*", "0", "2", "*", "*", "*", "4", "yes"],
        ["morning", "Asia/Shanghai", "0", "8", "*", "*", "*", "0", "9", "*", "*", "*", "6", "no"],
        ["Expect", "replicas:", "4"],
        ["Current", "replicas:", "3"],
    ):
        assert expected in rows, (expected, text)
    assert "Specific replicas" not in text  # Auto: there is none
    assert "Last scale time:" in text
    order = [
        "Name:",
        "Scale strategy:",
        "Generated HPA:",
        "Prediction:",
        "Crons:",
        "Status:",
        "Conditions:",
        "Events:",
    ]
    positions = [text.index(title) for title in order]
    assert positions == sorted(positions), text
    assert "PredictPartial" in text
    assert "effective-hpa-controller" in text
    assert text.count("Events:") == 1


def test_percentile_settings_show_their_defaults() -> None:
    prediction = {
        "predictionWindowSeconds": 600,
        "predictionAlgorithm": {"algorithmType": "percentile", "percentile": {"percentile": "0.9"}},
    }
    rows = lines(describe_ehpa(ehpa(prediction=prediction), [], NOW))
    for expected in (
        ["Algorithm:", "percentile"],
        ["History", "length:", "7d", "(default)"],
        ["Percentile:", "0.9"],
        ["Margin", "fraction:", "0", "(default)"],
        ["Half-life:", "24h", "(default)"],
    ):
        assert expected in rows, (expected, rows)
    assert any(row[:2] == ["Histogram:", "linear,"] for row in rows)


def test_preview_without_prediction_crons_or_status() -> None:
    text = describe_ehpa(ehpa(scaleStrategy="Preview", specificReplicas=2), [], NOW)
    rows = lines(text)
    assert ["Scale", "strategy:", "Preview"] in rows
    assert ["Specific", "replicas:", "2"] in rows
    assert ["Prediction:", "<none>"] in rows
    assert ["Crons:", "<none>"] in rows
    assert ["Expect", "replicas:", "<unset>"] in rows
    assert ["Last", "scale", "time:", "<none>"] in rows
    assert ["Events:", "<none>"] in rows
    assert "Conditions:" not in text


def test_a_cron_that_does_not_parse_is_shown_as_invalid() -> None:
    bad = [{"name": "x", "start": "not a cron", "end": "0 2 * * *", "targetReplicas": 2}]
    text = describe_ehpa(ehpa(crons=bad), [], NOW)
    assert "<invalid:" in text


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("ehpa", True),
        ("EHPA", True),
        ("effectivehorizontalpodautoscalers", True),
        ("effectivehorizontalpodautoscaler", True),
        ("effectivehorizontalpodautoscalers.autoscaling.crane.io", True),
        ("effectivehorizontalpodautoscalers.v1alpha1.autoscaling.crane.io", True),
        ("ehpa.autoscaling.crane.io", False),
        ("hpa", False),
    ],
    ids=[
        "short",
        "upper",
        "plural",
        "singular",
        "qualified",
        "versioned",
        "short-qualified",
        "hpa",
    ],
)
def test_which_names_mean_the_kind(name: str, expected: bool) -> None:
    assert is_ehpa(name) is expected


def test_podscale_describe_ehpa_against_a_server(tmp_path: Path) -> None:
    clock = FakeClock(NOW)
    server = start_in_thread(create_app(MemoryStore(clock), clock=clock))
    try:
        kubeconfig = tmp_path / "config"
        write_kubeconfig(kubeconfig, server=server.url, token=None)
        args = ["--kubeconfig", str(kubeconfig)]
        post(f"{server.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions", definition())
        post(f"{server.url}{EHPAS}", ehpa(crons=CRONS[:1]))
        described = CliRunner().invoke(cli, ["describe", "ehpa", "web", *args])
        every = CliRunner().invoke(cli, ["describe", "effectivehorizontalpodautoscalers", *args])
        missing = CliRunner().invoke(cli, ["describe", "ehpa", "nope", *args])
    finally:
        server.stop()
    assert described.exit_code == 0, described.output
    rows = lines(described.output)
    assert ["Name:", "web"] in rows
    assert ["Scale", "strategy:", "Auto"] in rows  # the schema's default, filled in
    assert ["Min", "replicas:", "1"] in rows
    assert every.exit_code == 0, every.output
    assert ["Generated", "HPA:", "ehpa-web"] in lines(every.output)
    assert missing.exit_code != 0
    assert 'effectivehorizontalpodautoscalers.autoscaling.crane.io "nope" not found' in (
        missing.output
    )
