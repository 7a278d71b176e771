"""A realistic CustomResourceDefinition for the CRD-kind tests: two versions, nested schemas
with int-or-string, preserve-unknown-fields and a list-map, status and scale subresources and
printer columns. A fixture (not a module) because tests import with ``--import-mode=importlib``."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

JSON = dict[str, Any]


def _schema(with_shards: bool) -> JSON:
    spec: JSON = {
        "type": "object",
        "required": ["replicas"],
        "properties": {
            "replicas": {"type": "integer", "minimum": 0, "default": 1},
            "tier": {"type": "string", "enum": ["hot", "warm", "cold"], "default": "warm"},
            "memory": {"x-kubernetes-int-or-string": True, "pattern": "^[0-9]+(Mi|Gi)?$"},
            "engineConfig": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "selector": {"type": "string"},
        },
    }
    if with_shards:
        spec["properties"]["shards"] = {
            "type": "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["zone", "index"],
            "items": {
                "type": "object",
                "required": ["zone", "index"],
                "properties": {
                    "zone": {"type": "string"},
                    "index": {"type": "integer"},
                    "weight": {"type": "number", "example": 0.5},
                },
            },
        }
    return {
        "type": "object",
        "properties": {
            "spec": spec,
            "status": {
                "type": "object",
                "properties": {
                    "replicas": {"type": "integer"},
                    "selector": {"type": "string"},
                    "phase": {"type": "string"},
                },
            },
        },
    }


def _version(name: str, *, storage: bool) -> JSON:
    return {
        "name": name,
        "served": True,
        "storage": storage,
        "schema": {"openAPIV3Schema": _schema(with_shards=storage)},
        "subresources": {
            "status": {},
            "scale": {
                "specReplicasPath": ".spec.replicas",
                "statusReplicasPath": ".status.replicas",
                "labelSelectorPath": ".status.selector",
            },
        },
        "additionalPrinterColumns": [
            {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
            {"name": "Tier", "type": "string", "jsonPath": ".spec.tier", "priority": 1},
            {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
        ],
    }


_CRD: JSON = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "cacheclusters.caching.podscale.dev"},
    "spec": {
        "group": "caching.podscale.dev",
        "scope": "Namespaced",
        "names": {
            "plural": "cacheclusters",
            "singular": "cachecluster",
            "kind": "CacheCluster",
            "listKind": "CacheClusterList",
            "shortNames": ["cc"],
            "categories": ["all", "caching"],
        },
        "versions": [_version("v1", storage=True), _version("v1beta1", storage=False)],
    },
}


@pytest.fixture
def make_crd() -> Callable[[], JSON]:
    """A fresh deep copy of the CacheCluster CRD each call."""
    return lambda: copy.deepcopy(_CRD)
