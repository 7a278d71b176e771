"""The php-apache example that ``podscale demo`` applies: the walkthrough's objects, valid.

Like ``kubectl apply -f src/podscale/demo/scenarios/php-apache/`` against the API server,
each object gets the request's namespace (the walkthrough's manifests name none), then
upstream defaulting and validation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from podscale.api import apply_defaults, validate

EXAMPLE = (
    Path(__file__).resolve().parents[3] / "src" / "podscale" / "demo" / "scenarios" / "php-apache"
)


def load(name: str) -> dict[str, Any]:
    documents = [d for d in yaml.safe_load_all((EXAMPLE / name).read_text("utf-8")) if d]
    assert len(documents) == 1
    document = documents[0]
    assert isinstance(document, dict)
    return document


def as_created(obj: dict[str, Any]) -> dict[str, Any]:
    created = apply_defaults(obj)
    created["metadata"].setdefault("namespace", "default")
    return created


@pytest.mark.parametrize(
    ("file", "api_version", "kind"),
    [
        ("deployment.yaml", "apps/v1", "Deployment"),
        ("hpa.yaml", "autoscaling/v2", "HorizontalPodAutoscaler"),
    ],
    ids=["deployment", "hpa"],
)
def test_example_validates_after_defaulting(file: str, api_version: str, kind: str) -> None:
    obj = load(file)
    assert (obj["apiVersion"], obj["kind"], obj["metadata"]["name"]) == (
        api_version,
        kind,
        "php-apache",
    )
    assert [str(error) for error in validate(as_created(obj))] == []


def test_directory_applies_only_the_two_objects() -> None:
    # What `kubectl apply -f src/podscale/demo/scenarios/php-apache/` would read.
    manifests = [p.name for p in EXAMPLE.iterdir() if p.suffix in (".yaml", ".yml", ".json")]
    assert sorted(manifests) == ["deployment.yaml", "hpa.yaml"]


def test_deployment_is_the_walkthrough_one() -> None:
    deployment = as_created(load("deployment.yaml"))
    spec = deployment["spec"]
    assert spec["replicas"] == 1  # defaulted, as upstream does
    assert spec["selector"] == {"matchLabels": {"run": "php-apache"}}
    assert spec["template"]["metadata"]["labels"] == {"run": "php-apache"}
    (container,) = spec["template"]["spec"]["containers"]
    assert container["image"] == "registry.k8s.io/hpa-example"
    assert container["resources"] == {"requests": {"cpu": "200m"}, "limits": {"cpu": "500m"}}


def test_hpa_targets_the_deployment_at_half_its_cpu_request() -> None:
    spec = load("hpa.yaml")["spec"]
    assert spec["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": "php-apache",
    }
    assert (spec["minReplicas"], spec["maxReplicas"]) == (1, 10)
    assert spec["metrics"] == [
        {
            "type": "Resource",
            "resource": {
                "name": "cpu",
                "target": {"type": "Utilization", "averageUtilization": 50},
            },
        }
    ]


def test_hpa_without_a_namespace_is_invalid_as_upstream() -> None:
    # The namespace really does come from the request: the objects carry none.
    errors = validate(apply_defaults(load("hpa.yaml")))
    assert [str(error) for error in errors] == ["metadata.namespace: Required value"]
