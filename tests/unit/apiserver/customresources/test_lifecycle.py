"""Deleting a CRD: the cleanup finalizer, Terminating, and its custom resources going first.

The CRD is deleted through the generic delete operation (what both transports call), with
the CRD kind's ``KindInfo``; ``settle`` is what the transports run after the write.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from starlette.testclient import TestClient

from podscale.api.kinds import resource_for
from podscale.apiserver.customresources.definitions import CLEANUP_FINALIZER, CRD_RESOURCE
from podscale.apiserver.customresources.lifecycle import settle
from podscale.apiserver.operations.delete import delete_object
from podscale.apiserver.operations.types import DeleteOptions
from podscale.apiserver.state import ServerState
from podscale.store.interface import NotFoundError
from podscale.store.memory import MemoryStore

JSON = dict[str, Any]
BASE = "/apis/example.com/v1/namespaces/default/widgets"
CRD_KIND = resource_for("apiextensions.k8s.io", "v1", "customresourcedefinitions")


def _state(client: TestClient) -> ServerState:
    state = client.app.state.podscale  # type: ignore[attr-defined]
    assert isinstance(state, ServerState)
    return state


def _delete_crd(client: TestClient) -> JSON:
    state = _state(client)
    reply = delete_object(state, CRD_KIND, None, "widgets.example.com", DeleteOptions())
    settle(state, CRD_KIND)
    return reply.body


def _conditions(crd: JSON) -> dict[str, JSON]:
    return {c["type"]: c for c in crd["status"]["conditions"]}


def test_deleting_a_crd_deletes_its_resources_then_itself(
    client: TestClient, store: MemoryStore, widget_factory: Callable[..., JSON]
) -> None:
    for name in ("a", "b"):
        assert client.post(BASE, json=widget_factory(name=name)).status_code == 201
    reply = _delete_crd(client)
    assert reply["kind"] == "CustomResourceDefinition"
    assert CLEANUP_FINALIZER in reply["metadata"]["finalizers"]
    assert reply["metadata"]["deletionTimestamp"]
    pending = _conditions(reply)["Terminating"]
    assert (pending["status"], pending["reason"]) == ("True", "InstanceDeletionPending")
    assert store.list("widgets.example.com").items == []
    with pytest.raises(NotFoundError):
        store.get(CRD_RESOURCE, "", "widgets.example.com")
    assert client.get(BASE).status_code == 404
    groups = [g["name"] for g in client.get("/apis").json()["groups"]]
    assert "example.com" not in groups


def test_resources_with_finalizers_keep_the_crd_terminating(
    client: TestClient, store: MemoryStore, widget_factory: Callable[..., JSON]
) -> None:
    body = widget_factory()
    body["metadata"]["finalizers"] = ["example.com/hold"]
    client.post(BASE, json=body)
    _delete_crd(client)
    crd = store.get(CRD_RESOURCE, "", "widgets.example.com")
    progress = _conditions(crd)["Terminating"]
    assert (progress["status"], progress["reason"], progress["message"]) == (
        "True",
        "InstanceDeletionInProgress",
        "CustomResource deletion is in progress",
    )
    # Still served: the remaining resource can be read and released, but not created anew.
    assert client.get(f"{BASE}/w1").json()["metadata"]["deletionTimestamp"]
    refused = client.post(BASE, json=widget_factory(name="new"))
    assert refused.status_code == 405
    assert refused.json()["message"] == (
        "create not allowed while custom resource definition is terminating"
    )
    released = client.patch(
        f"{BASE}/w1",
        content=json.dumps({"metadata": {"finalizers": None}}),
        headers={"content-type": "application/merge-patch+json"},
    )
    assert released.status_code == 200, released.text
    with pytest.raises(NotFoundError):
        store.get(CRD_RESOURCE, "", "widgets.example.com")


def test_a_crd_that_never_served_goes_at_once(
    store: MemoryStore, client: TestClient, crd_factory: Callable[..., JSON]
) -> None:
    state = _state(client)
    reply = delete_object(state, CRD_KIND, None, "widgets.example.com", DeleteOptions())
    assert reply.body["metadata"]["deletionTimestamp"]
    # No request read the CRD before, so it never got names: nothing to clean up.
    assert not reply.body["status"]["acceptedNames"]["plural"]
    settle(state, CRD_KIND)
    with pytest.raises(NotFoundError):
        store.get(CRD_RESOURCE, "", "widgets.example.com")


CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def test_whole_lifecycle_over_http(
    client: TestClient, crd_factory: Callable[..., JSON], widget_factory: Callable[..., JSON]
) -> None:
    crd = crd_factory(group="shop.example.org", plural="orders", kind="Order", short_names=())
    created = client.post(CRDS, json=crd)
    assert created.status_code == 201, created.text
    # The controllers' status follows the write at once.
    stored = client.get(f"{CRDS}/orders.shop.example.org").json()
    conditions = _conditions(stored)
    assert conditions["Established"]["status"] == "True"
    assert conditions["NamesAccepted"]["status"] == "True"
    assert stored["status"]["acceptedNames"]["kind"] == "Order"
    url = "/apis/shop.example.org/v1/namespaces/default/orders"
    order = widget_factory(name="o1")
    order.update(apiVersion="shop.example.org/v1", kind="Order")
    assert client.post(url, json=order).status_code == 201
    deleted = client.delete(f"{CRDS}/orders.shop.example.org")
    assert deleted.status_code == 200, deleted.text
    assert deleted.json()["metadata"]["finalizers"] == [CLEANUP_FINALIZER]
    assert client.get(f"{CRDS}/orders.shop.example.org").status_code == 404
    assert client.get(url).status_code == 404
