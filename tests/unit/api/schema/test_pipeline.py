"""A realistic CRD schema (a made-up "Autoscaled worker pool") through admit_custom_object."""

from __future__ import annotations

import copy
from typing import Any

from podscale.api.schema import admit_custom_object, apply_read_defaults

_QUANTITY: dict[str, Any] = {
    "anyOf": [{"type": "integer"}, {"type": "string"}],
    "x-kubernetes-int-or-string": True,
    "pattern": r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE])?$",
}

WORKER_POOL: dict[str, Any] = {
    "type": "object",
    "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"type": "object"},
        "spec": {
            "type": "object",
            "required": ["image", "scaling"],
            "properties": {
                "image": {"type": "string", "minLength": 1},
                "paused": {"type": "boolean", "default": False},
                "scaling": {
                    "type": "object",
                    "required": ["maxReplicas"],
                    "properties": {
                        "minReplicas": {"type": "integer", "minimum": 0, "default": 1},
                        "maxReplicas": {"type": "integer", "minimum": 1, "maximum": 1000},
                        "maxSurge": {"x-kubernetes-int-or-string": True, "default": "25%"},
                        "policy": {
                            "type": "string",
                            "enum": ["Aggressive", "Balanced", "Conservative"],
                            "default": "Balanced",
                        },
                    },
                },
                "resources": {
                    "type": "object",
                    "properties": {
                        "limits": {"type": "object", "additionalProperties": _QUANTITY},
                        "requests": {"type": "object", "additionalProperties": _QUANTITY},
                    },
                },
                "ports": {
                    "type": "array",
                    "maxItems": 8,
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {
                        "type": "object",
                        "required": ["name", "port"],
                        "properties": {
                            "name": {"type": "string", "pattern": "^[a-z][a-z0-9-]*$"},
                            "port": {"type": "integer", "minimum": 1, "maximum": 65535},
                            "protocol": {
                                "type": "string",
                                "enum": ["TCP", "UDP"],
                                "default": "TCP",
                            },
                        },
                    },
                },
                "tags": {
                    "type": "array",
                    "x-kubernetes-list-type": "set",
                    "items": {"type": "string"},
                },
                "endpoint": {"type": "string", "format": "hostname"},
                "schedule": {
                    "type": "object",
                    "nullable": True,
                    "properties": {"window": {"type": "string", "format": "duration"}},
                },
                "config": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                "template": {
                    "type": "object",
                    "x-kubernetes-embedded-resource": True,
                    "x-kubernetes-preserve-unknown-fields": True,
                },
            },
        },
        "status": {
            "type": "object",
            "properties": {
                "replicas": {"type": "integer"},
                "conditions": {
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["type"],
                    "items": {
                        "type": "object",
                        "properties": {
                            "type": {"type": "string"},
                            "status": {"type": "string", "enum": ["True", "False", "Unknown"]},
                            "lastTransitionTime": {"type": "string", "format": "date-time"},
                        },
                    },
                },
            },
        },
    },
}


def _pool(**spec: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "image": "registry.example.com/worker:1.4",
        "scaling": {"maxReplicas": 20},
    }
    return {
        "apiVersion": "pools.example.com/v1",
        "kind": "WorkerPool",
        "metadata": {"name": "batch", "namespace": "jobs"},
        "spec": {**base, **spec},
    }


def test_a_valid_pool_is_pruned_and_defaulted() -> None:
    body = _pool(
        ports=[
            {"name": "http", "port": 8080},
            {"name": "metrics", "port": 9090, "protocol": "UDP"},
        ],
        resources={"limits": {"cpu": "500m", "memory": "1Gi"}, "requests": {"cpu": 1}},
        tags=["batch", "gpu"],
        endpoint="workers.jobs.svc",
        schedule=None,
        config={"anything": {"goes": [1, 2]}},
        template={
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"labels": {"app": "w"}},
            "spec": {},
        },
        colour="blue",
    )
    body["metadata"]["mystery"] = True
    body["status"] = {
        "replicas": 3,
        "observed": 1,
        "conditions": [
            {"type": "Ready", "status": "True", "lastTransitionTime": "2024-03-20T14:30:00Z"}
        ],
    }
    original = copy.deepcopy(body)

    outcome = admit_custom_object(body, WORKER_POOL)

    assert body == original, "the input is never modified"
    assert outcome.errors == ()
    assert outcome.unknown_fields == ("spec.colour", "status.observed", "metadata.mystery")
    spec = outcome.object["spec"]
    assert "colour" not in spec
    assert spec["paused"] is False
    assert spec["scaling"] == {
        "maxReplicas": 20,
        "minReplicas": 1,
        "maxSurge": "25%",
        "policy": "Balanced",
    }
    assert spec["ports"][0]["protocol"] == "TCP"
    assert spec["ports"][1]["protocol"] == "UDP"
    assert spec["schedule"] is None, "nullable nulls stay"
    assert spec["config"] == {"anything": {"goes": [1, 2]}}
    assert spec["template"]["metadata"] == {"labels": {"app": "w"}}
    assert outcome.object["metadata"] == {"name": "batch", "namespace": "jobs"}


def test_a_broken_pool_reports_every_error_with_upstream_texts() -> None:
    body = _pool(
        image="",
        scaling={"maxReplicas": "lots", "maxSurge": 1.5, "policy": "Reckless"},
        ports=[
            {"name": "http", "port": 80},
            {"name": "Bad_Name", "port": 70000},
            {"name": "http", "port": 81},
        ],
        resources={"limits": {"cpu": "lots"}},
        tags=["a", "a"],
        endpoint="-nope-",
        schedule={"window": "whenever"},
        template={"kind": "Pod"},
    )
    del body["spec"]["scaling"]["maxReplicas"]

    outcome = admit_custom_object(body, WORKER_POOL)

    messages = sorted(str(e) for e in outcome.errors)
    assert messages == sorted(
        [
            'spec.image: Invalid value: "": spec.image in body should be at least 1 chars long',
            "spec.scaling.maxReplicas: Required value",
            'spec.scaling.maxSurge: Invalid value: "number": '
            'spec.scaling.maxSurge in body must be of type integer,string: "number"',
            'spec.scaling.policy: Unsupported value: "Reckless": '
            'supported values: "Aggressive", "Balanced", "Conservative"',
            'spec.ports[1].name: Invalid value: "Bad_Name": '
            "spec.ports[1].name in body should match '^[a-z][a-z0-9-]*$'",
            "spec.ports[1].port: Invalid value: 70000: "
            "spec.ports[1].port in body should be less than or equal to 65535",
            'spec.resources.limits.cpu: Invalid value: "lots": spec.resources.limits.cpu in body '
            "should match '" + _QUANTITY["pattern"] + "'",
            'spec.endpoint: Invalid value: "-nope-": '
            'spec.endpoint in body must be of type hostname: "-nope-"',
            'spec.schedule.window: Invalid value: "whenever": '
            'spec.schedule.window in body must be of type duration: "whenever"',
            "spec.template.apiVersion: Required value",
            'spec.ports[2]: Duplicate value: map[string]interface {}{"name":"http"}',
            'spec.tags[1]: Duplicate value: "a"',
        ]
    )
    assert outcome.unknown_fields == ()


def test_read_defaults_fill_fields_added_to_the_schema_later() -> None:
    stored = _pool()
    served = apply_read_defaults(stored, WORKER_POOL)
    assert served["spec"]["scaling"]["policy"] == "Balanced"
    assert "policy" not in stored["spec"]["scaling"]


def test_admission_is_stable_on_its_own_output() -> None:
    first = admit_custom_object(_pool(ports=[{"name": "a", "port": 1}]), WORKER_POOL)
    second = admit_custom_object(first.object, WORKER_POOL)
    assert second.object == first.object
    assert second.unknown_fields == ()
    assert second.errors == ()
