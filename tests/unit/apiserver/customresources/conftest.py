"""Fixtures for the custom resource tests: CRD builders and a server with a CRD installed.

CRDs are written straight into the store (as a restart finds them), so these tests do not
depend on how the CRD kind itself is admitted; the server picks them up on the next request.
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
