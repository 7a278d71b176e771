"""Scenario documents the replay tests share: one Deployment ``web`` (100m CPU request, 500m
limit, 10m per request/s, no noise) whose pods need 90 s from creation to Ready."""

from __future__ import annotations

from typing import Any

HPA: dict[str, Any] = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "web"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
        "minReplicas": 1,
        "maxReplicas": 100,
        "metrics": [
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 50},
                },
            }
        ],
    },
}

# Scale-up without limits worth the name: 10x every 15 s.
FAST_HPA: dict[str, Any] = {
    **HPA,
    "spec": {
        **HPA["spec"],
        "behavior": {
            "scaleUp": {
                "stabilizationWindowSeconds": 0,
                "policies": [{"type": "Percent", "value": 900, "periodSeconds": 15}],
            }
        },
    },
}


def step_scenario(steps: list[dict[str, Any]], duration: str) -> dict[str, Any]:
    """The scenario with a step load (``[{at, rate}]``) and the default HPA."""
    container = {
        "name": "web",
        "image": "web",
        "resources": {"requests": {"cpu": "100m"}, "limits": {"cpu": "500m"}},
    }
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [container]},
            },
        },
    }
    return {
        "apiVersion": "podscale.dev/v1alpha1",
        "kind": "Scenario",
        "metadata": {"name": "step"},
        "spec": {
            "seed": 7,
            "duration": duration,
            "nodes": {"count": 2, "capacity": {"cpu": "16", "memory": "64Gi"}},
            "pods": {"startupDelay": "90s", "readinessDelay": "0s"},
            "manifests": [deployment, HPA],
            "workloads": [
                {
                    "target": {"kind": "Deployment", "name": "web"},
                    "load": {"type": "step", "steps": steps},
                    "containers": [{"name": "web", "perRequest": {"cpu": "10m"}}],
                    "noise": {"stddev": 0},
                }
            ],
        },
    }
