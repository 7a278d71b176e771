"""Fixtures for the custom resource tests: CRD builders and a server with a CRD installed.

CRDs are written straight into the store (as a restart finds them), so these tests do not
depend on how the CRD kind itself is admitted; the server picks them up on the next request.

``kiln_crd`` is a made-up CustomResourceDefinition, ``Kiln`` (a pottery kiln's firing
schedule) in ``ceramics.podscale.test``, namespaced, served as v1 (storage) and v1alpha1,
with status and scale subresources and a schema exercising nullable, int-or-string,
preserve-unknown-fields, embedded resources, defaults, enums and CEL rules.
Helpers are fixtures because tests run with ``--import-mode=importlib``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from starlette.testclient import TestClient

from podscale.apiserver.customresources.definitions import CRD_RESOURCE
from podscale.apiserver.http.app import create_app
from podscale.client.inprocess import InProcessApi
from podscale.store.memory import MemoryStore

JSON = dict[str, Any]

_SCHEMA: JSON = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "replicas": {"type": "integer"},
                "selector": {"type": "string"},
                "size": {"type": "string"},
                "color": {"type": "string", "default": "blue"},
            },
        },
        "status": {
            "type": "object",
            "properties": {"replicas": {"type": "integer"}, "selector": {"type": "string"}},
        },
    },
}


def make_crd(
    *,
    group: str = "example.com",
    plural: str = "widgets",
    kind: str = "Widget",
    versions: tuple[str, ...] = ("v1",),
    storage: str = "v1",
    scope: str = "Namespaced",
    short_names: tuple[str, ...] = ("wd",),
    categories: tuple[str, ...] = ("all",),
    status: bool = True,
    scale: bool = True,
) -> JSON:
    """A CRD as written by a user (no status yet)."""
    subresources: JSON = {}
    if status:
        subresources["status"] = {}
    if scale:
        subresources["scale"] = {
            "specReplicasPath": ".spec.replicas",
            "statusReplicasPath": ".status.replicas",
            "labelSelectorPath": ".status.selector",
        }
    names: JSON = {
        "plural": plural,
        "singular": kind.lower(),
        "kind": kind,
        "listKind": f"{kind}List",
    }
    if short_names:
        names["shortNames"] = list(short_names)
    if categories:
        names["categories"] = list(categories)
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "names": names,
            "scope": scope,
            "versions": [
                {
                    "name": version,
                    "served": True,
                    "storage": version == storage,
                    "schema": {"openAPIV3Schema": copy.deepcopy(_SCHEMA)},
                    "subresources": copy.deepcopy(subresources),
                }
                for version in versions
            ],
        },
    }


class FixedClock:
    def __init__(self) -> None:
        self.current = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)

    def now(self) -> datetime:
        return self.current


@pytest.fixture
def crd_factory() -> Callable[..., JSON]:
    return make_crd


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


@pytest.fixture
def store(clock: FixedClock) -> MemoryStore:
    store = MemoryStore(clock)
    store.create(CRD_RESOURCE, make_crd(versions=("v1", "v1beta1")))
    return store


@pytest.fixture
def client(store: MemoryStore, clock: FixedClock) -> TestClient:
    return TestClient(create_app(store, clock=clock), raise_server_exceptions=False)


@pytest.fixture
def api(store: MemoryStore, clock: FixedClock) -> InProcessApi:
    return InProcessApi.for_store(store, clock)


def widget(name: str = "w1", replicas: int = 2, version: str = "v1", **extra: Any) -> JSON:
    body: JSON = {
        "apiVersion": f"example.com/{version}",
        "kind": "Widget",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {"replicas": replicas, "size": "big"},
    }
    body.update(extra)
    return body


@pytest.fixture
def widget_factory() -> Callable[..., JSON]:
    return widget


_KILN_SCHEMA: JSON = {
    "type": "object",
    "description": "Kiln is a kiln and its firing schedule.",
    "required": ["spec"],
    "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"type": "object"},
        "spec": {
            "type": "object",
            "description": "What the kiln should do.",
            "required": ["cone", "glaze"],
            "x-kubernetes-validations": [
                {"rule": "self.cone <= 10", "message": "cone too hot"},
            ],
            "properties": {
                "cone": {
                    "type": "integer",
                    "format": "int32",
                    "minimum": 1,
                    "description": "Pyrometric cone to fire to.",
                    "example": 6,
                },
                "glaze": {
                    "type": "string",
                    "nullable": True,
                    "description": "Glaze name; null for a bisque firing.",
                },
                "ramp": {
                    "x-kubernetes-int-or-string": True,
                    "description": "Degrees per hour, or a named ramp.",
                },
                "replicas": {"type": "integer", "default": 1},
                "mode": {"type": "string", "enum": ["oxidation", "reduction"]},
                "shelves": {
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["level"],
                    "items": {
                        "type": "object",
                        "required": ["level"],
                        "properties": {
                            "level": {"type": "integer"},
                            "pieces": {"type": "array", "items": {"type": "string"}},
                        },
                    },
                },
                "notes": {
                    "type": "object",
                    "x-kubernetes-preserve-unknown-fields": True,
                    "properties": {"author": {"type": "string"}},
                },
                "controller": {
                    "type": "object",
                    "x-kubernetes-embedded-resource": True,
                    "x-kubernetes-preserve-unknown-fields": True,
                },
                "labelsToCopy": {
                    "type": "object",
                    "additionalProperties": {"type": "string"},
                },
                "either": {
                    "type": "object",
                    "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                    "oneOf": [{"required": ["a"]}, {"required": ["b"]}],
                },
            },
        },
        "status": {
            "type": "object",
            "properties": {
                "celsius": {"type": "number"},
                "replicas": {"type": "integer"},
                "selector": {"type": "string"},
            },
        },
    },
}

KILN_CRD: JSON = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "kilns.ceramics.podscale.test", "resourceVersion": "7"},
    "spec": {
        "group": "ceramics.podscale.test",
        "names": {
            "plural": "kilns",
            "singular": "kiln",
            "kind": "Kiln",
            "listKind": "KilnList",
            "shortNames": ["kl"],
        },
        "scope": "Namespaced",
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {"openAPIV3Schema": _KILN_SCHEMA},
                "subresources": {
                    "status": {},
                    "scale": {
                        "specReplicasPath": ".spec.replicas",
                        "statusReplicasPath": ".status.replicas",
                        "labelSelectorPath": ".status.selector",
                    },
                },
                "additionalPrinterColumns": [
                    {"name": "Cone", "type": "integer", "jsonPath": ".spec.cone"},
                ],
            },
            {
                "name": "v1alpha1",
                "served": True,
                "storage": False,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "x-kubernetes-preserve-unknown-fields": True,
                    }
                },
            },
            {
                "name": "v0",
                "served": False,
                "storage": False,
                "schema": {"openAPIV3Schema": {"type": "object"}},
            },
        ],
    },
    "status": {
        "conditions": [
            {"type": "NamesAccepted", "status": "True"},
            {"type": "Established", "status": "True"},
        ],
        "acceptedNames": {"plural": "kilns", "kind": "Kiln"},
    },
}


@pytest.fixture
def kiln_crd() -> JSON:
    """A private copy of the Kiln CRD."""
    return copy.deepcopy(KILN_CRD)
