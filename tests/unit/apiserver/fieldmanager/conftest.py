"""Fixtures for the field manager tests: a Deployment-shaped OpenAPI v3 schema with every merge
type the tests need (a fixture, as tests run with ``--import-mode=importlib``)."""

from __future__ import annotations

from typing import Any

import pytest

from podscale.apiserver.fieldmanager import TypeInfo, type_for

_STR: dict[str, Any] = {"type": "string"}
_INT: dict[str, Any] = {"type": "integer"}
_STR_MAP: dict[str, Any] = {"type": "object", "additionalProperties": _STR}

CONTAINER: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": _STR,
        "image": _STR,
        "args": {"type": "array", "items": _STR},
        "ports": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "containerPort": _INT,
                    "protocol": {"type": "string", "default": "TCP"},
                    "name": _STR,
                },
            },
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["containerPort", "protocol"],
        },
        "resources": {
            "type": "object",
            "properties": {"limits": _STR_MAP, "requests": _STR_MAP},
        },
    },
}

DEPLOYMENT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "apiVersion": _STR,
        "kind": _STR,
        "metadata": {
            "type": "object",
            "properties": {
                "name": _STR,
                "namespace": _STR,
                "uid": _STR,
                "resourceVersion": _STR,
                "generation": _INT,
                "labels": _STR_MAP,
                "annotations": _STR_MAP,
                "finalizers": {
                    "type": "array",
                    "items": _STR,
                    "x-kubernetes-list-type": "set",
                },
                "managedFields": {"type": "array", "items": {"type": "object"}},
            },
        },
        "spec": {
            "type": "object",
            "properties": {
                "replicas": _INT,
                "paused": {"type": "boolean"},
                "selector": {
                    "type": "object",
                    "properties": {"matchLabels": _STR_MAP},
                    "x-kubernetes-map-type": "atomic",
                },
                "nodeSelector": {**_STR_MAP, "x-kubernetes-map-type": "atomic"},
                "strategy": {
                    "type": "object",
                    "properties": {
                        "type": _STR,
                        "rollingUpdate": {
                            "type": "object",
                            "properties": {"maxSurge": _STR, "maxUnavailable": _STR},
                        },
                    },
                },
                "containers": {
                    "type": "array",
                    "items": CONTAINER,
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                },
                "config": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            },
        },
        "status": {"type": "object", "properties": {"replicas": _INT}},
    },
}


@pytest.fixture(scope="session")
def deployment() -> TypeInfo:
    return type_for(DEPLOYMENT)
