"""The official ``kubernetes`` Python client's ``ApiextensionsV1Api`` and ``CustomObjectsApi``
against a real uvicorn server: create a CRD, then every CustomObjectsApi verb on its
resources (create, get, list with a label selector, merge and JSON patch, replace, status,
scale, watch, delete, delete collection), and the CRD's deletion removing them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes import watch as k8s_watch
from kubernetes.client.rest import ApiException

from podscale.apiserver.http.app import create_app
from podscale.apiserver.http.server import start_in_thread
from podscale.store.clock import SystemClock
from podscale.store.memory import MemoryStore

JSON = dict[str, Any]
GROUP, VERSION, PLURAL, NS = "games.example.net", "v1", "boards", "default"

CRD: JSON = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": f"{PLURAL}.{GROUP}"},
    "spec": {
        "group": GROUP,
        "scope": "Namespaced",
        "names": {"plural": PLURAL, "singular": "board", "kind": "Board", "shortNames": ["bd"]},
        "versions": [
            {
                "name": VERSION,
                "served": True,
                "storage": True,
                "subresources": {
                    "status": {},
                    "scale": {
                        "specReplicasPath": ".spec.players",
                        "statusReplicasPath": ".status.players",
                    },
                },
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {
                                "type": "object",
                                "properties": {
                                    "players": {"type": "integer"},
                                    "game": {"type": "string"},
                                },
                            },
                            "status": {
                                "type": "object",
                                "properties": {"players": {"type": "integer"}},
                            },
                        },
                    }
                },
            }
        ],
    },
}


def _board(name: str, players: int = 2) -> JSON:
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "Board",
        "metadata": {"name": name, "labels": {"game": "chess"}},
        "spec": {"players": players, "game": "chess"},
    }


@pytest.fixture
def api_client() -> Iterator[k8s.ApiClient]:
    """A fresh server with the CRD (tests delete objects and the CRD: none shares them)."""
    clock = SystemClock()
    running = start_in_thread(create_app(MemoryStore(clock), clock=clock))
    configuration = k8s.Configuration()
    configuration.host = running.url
    try:
        with k8s.ApiClient(configuration) as api:
            k8s.ApiextensionsV1Api(api).create_custom_resource_definition(CRD)
            yield api
    finally:
        running.stop()


def test_crd_is_established(api_client: k8s.ApiClient) -> None:
    crd = k8s.ApiextensionsV1Api(api_client).read_custom_resource_definition(f"{PLURAL}.{GROUP}")
    conditions = {c.type: c.status for c in crd.status.conditions}
    assert conditions == {"NamesAccepted": "True", "Established": "True"}
    assert crd.status.accepted_names.short_names == ["bd"]
    assert crd.status.stored_versions == [VERSION]


def test_custom_objects_verbs(api_client: k8s.ApiClient) -> None:
    objects = k8s.CustomObjectsApi(api_client)
    created = objects.create_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, _board("b1"))
    assert created["metadata"]["generation"] == 1
    got = objects.get_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "b1")
    assert got["spec"] == {"players": 2, "game": "chess"}
    listed = objects.list_namespaced_custom_object(
        GROUP, VERSION, NS, PLURAL, label_selector="game=chess"
    )
    assert [i["metadata"]["name"] for i in listed["items"]] == ["b1"]
    # The client sends patches as merge patches unless told otherwise.
    merged = objects.patch_namespaced_custom_object(
        GROUP, VERSION, NS, PLURAL, "b1", {"spec": {"game": "go"}}
    )
    assert merged["spec"]["game"] == "go"
    json_patched = objects.patch_namespaced_custom_object(
        GROUP,
        VERSION,
        NS,
        PLURAL,
        "b1",
        [{"op": "replace", "path": "/spec/players", "value": 4}],
        _content_type="application/json-patch+json",
    )
    assert json_patched["metadata"]["generation"] == 3
    replaced = objects.replace_namespaced_custom_object(
        GROUP, VERSION, NS, PLURAL, "b1", dict(json_patched, spec={"players": 4, "game": "shogi"})
    )
    assert replaced["spec"]["game"] == "shogi"
    status = objects.patch_namespaced_custom_object_status(
        GROUP, VERSION, NS, PLURAL, "b1", {"status": {"players": 3}}
    )
    assert status["status"] == {"players": 3}
    scale = objects.get_namespaced_custom_object_scale(GROUP, VERSION, NS, PLURAL, "b1")
    assert (scale["spec"]["replicas"], scale["status"]["replicas"]) == (4, 3)
    objects.patch_namespaced_custom_object_scale(
        GROUP, VERSION, NS, PLURAL, "b1", {"spec": {"replicas": 6}}
    )
    assert (
        objects.get_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "b1")["spec"]["players"]
        == 6
    )
    objects.delete_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "b1")
    with pytest.raises(ApiException) as missing:
        objects.get_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "b1")
    assert missing.value.status == 404


def test_watch_and_delete_collection(api_client: k8s.ApiClient) -> None:
    objects = k8s.CustomObjectsApi(api_client)
    objects.create_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, _board("w1"))
    stream = k8s_watch.Watch().stream(
        objects.list_namespaced_custom_object, GROUP, VERSION, NS, PLURAL, timeout_seconds=2
    )
    first = next(stream)
    assert (first["type"], first["object"]["metadata"]["name"]) == ("ADDED", "w1")
    objects.delete_collection_namespaced_custom_object(GROUP, VERSION, NS, PLURAL)
    left = objects.list_namespaced_custom_object(GROUP, VERSION, NS, PLURAL)
    assert left["items"] == []


def test_deleting_the_crd_removes_its_objects(api_client: k8s.ApiClient) -> None:
    objects = k8s.CustomObjectsApi(api_client)
    objects.create_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, _board("last"))
    k8s.ApiextensionsV1Api(api_client).delete_custom_resource_definition(f"{PLURAL}.{GROUP}")
    with pytest.raises(ApiException) as gone:
        objects.list_namespaced_custom_object(GROUP, VERSION, NS, PLURAL)
    assert gone.value.status == 404
