"""The shipped PredictiveHorizontalPodAutoscaler CRD: it passes podscale's CRD validation on
create (through the API server), its schema admits the example with every prediction default
filled in, its CEL rules refuse bounds out of order, its printer columns print, and it ships
with its controller (``controllers.shipped_crds``)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from starlette.testclient import TestClient

from podscale.apiserver.http.app import create_app
from podscale.controllers.phpa.kind import CRD_NAME, PHPA, definition
from podscale.controllers.phpa.validation import validate_phpa
from podscale.controllers.shipped_crds import (
    INSTALLED_WITH,
    crds_to_install,
    shipped_definition,
)
from podscale.store.memory import MemoryStore
from podscale.testing.clock import FakeClock

JSON = dict[str, Any]
EXAMPLE = Path(__file__).parents[4] / "examples" / "phpa"
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
PHPAS = (
    "/apis/autoscaling.podscale.dev/v1alpha1/namespaces/default/predictivehorizontalpodautoscalers"
)
TABLE = {"accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}
CONTROLLER = "predictive-horizontal-pod-autoscaler-controller"


def example_phpa() -> JSON:
    loaded: JSON = yaml.safe_load((EXAMPLE / "phpa.yaml").read_text(encoding="utf-8"))
    return loaded


@pytest.fixture
def client() -> TestClient:
    clock = FakeClock(datetime(2026, 11, 26, 1, 0, tzinfo=UTC))
    client = TestClient(create_app(MemoryStore(clock), clock=clock), raise_server_exceptions=False)
    created = client.post(CRDS, json=definition())
    assert created.status_code == 201, created.text
    return client


def test_the_crd_names_the_kind() -> None:
    crd = definition()
    assert crd["metadata"]["name"] == CRD_NAME
    names = crd["spec"]["names"]
    assert (names["kind"], names["plural"], names["singular"]) == (
        PHPA.kind,
        PHPA.plural,
        PHPA.singular,
    )
    assert names["shortNames"] == ["phpa"]
    assert names["categories"] == ["all"]
    (version,) = crd["spec"]["versions"]
    assert version["name"] == PHPA.version
    assert version["subresources"] == {"status": {}}


def test_it_ships_installed_with_its_controller() -> None:
    assert shipped_definition(CRD_NAME) == definition()
    assert INSTALLED_WITH[CRD_NAME] == CONTROLLER
    assert CRD_NAME in crds_to_install((), (), {CONTROLLER})
    assert CRD_NAME not in crds_to_install((), (CRD_NAME,), {CONTROLLER})


def test_the_example_is_admitted_with_every_default(client: TestClient) -> None:
    created = client.post(PHPAS, json=example_phpa())
    assert created.status_code == 201, created.text
    spec = created.json()["spec"]
    assert spec["mode"] == "Auto"
    assert spec["prediction"] == {
        "history": "7d",
        "algorithm": "auto",
        "quantile": "0.95",
        "leadTime": "auto",
        "refreshInterval": "1h",
        "scaleDownLimit": "100%",
    }
    assert spec["schedules"][0]["timeZone"] == "Asia/Shanghai"
    # What the API server stored is what the controller validates: no errors.
    assert validate_phpa(created.json()) == []


def test_the_example_deployment_names_the_target() -> None:
    deployment = yaml.safe_load((EXAMPLE / "deployment.yaml").read_text(encoding="utf-8"))
    ref = example_phpa()["spec"]["scaleTargetRef"]
    assert (ref["kind"], ref["name"]) == (deployment["kind"], deployment["metadata"]["name"])


@pytest.mark.parametrize(
    ("change", "detail"),
    [
        (
            {"minReplicas": 9, "maxReplicas": 3},
            'spec: Invalid value: "object": maxReplicas must be greater than or equal to '
            "minReplicas",
        ),
        (
            {"schedules": [{"name": "a", "cron": "* * * * *", "minReplicas": 4, "maxReplicas": 2}]},
            'spec.schedules[0]: Invalid value: "object": maxReplicas must be greater than or '
            "equal to minReplicas",
        ),
        (
            {"schedules": [{"name": "a", "cron": "* * * * *"}, {"name": "a", "cron": "@daily"}]},
            'spec.schedules[1]: Duplicate value: map[string]interface {}{"name":"a"}',
        ),
        (
            {"mode": "Dry"},
            'spec.mode: Unsupported value: "Dry": supported values: "Auto", "Preview"',
        ),
        (
            {"prediction": {"algorithm": "arima"}},
            'spec.prediction.algorithm: Unsupported value: "arima": supported values: "auto", '
            '"holtWinters", "mstl", "dsp", "percentile"',
        ),
    ],
    ids=["bounds", "window-bounds", "window-names", "mode", "algorithm"],
)
def test_the_schema_refuses_at_admission(client: TestClient, change: JSON, detail: str) -> None:
    body = example_phpa()
    body["spec"].update(change)
    refused = client.post(PHPAS, json=body)
    assert refused.status_code == 422, refused.text
    causes = [f"{c['field']}: {c['message']}" for c in refused.json()["details"]["causes"]]
    assert detail in causes


def test_kubectl_get_prints_the_columns(client: TestClient) -> None:
    assert client.post(PHPAS, json=example_phpa()).status_code == 201
    status = {
        "currentReplicas": 4,
        "desiredReplicas": 6,
        "prediction": {"proactiveReplicas": 6, "passiveReplicas": 4, "decidedBy": "proactive"},
    }
    stored = client.get(f"{PHPAS}/web").json()
    stored["status"] = status
    updated = client.put(f"{PHPAS}/web/status", json=stored)
    assert updated.status_code == 200, updated.text
    table = client.get(PHPAS, headers=TABLE).json()
    names = [c["name"] for c in table["columnDefinitions"]]
    assert names == [
        "Name",
        "Reference",
        "MinPods",
        "MaxPods",
        "Replicas",
        "Predicted",
        "Mode",
        "Age",
    ]
    assert table["rows"][0]["cells"][:7] == ["web", "web", 2, 20, 4, 6, "Auto"]
