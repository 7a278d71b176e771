"""Server-side apply on a custom resource: the CRD's structural schema decides the merge.

The Kiln CRD's ``spec.shelves`` is ``x-kubernetes-list-type: map`` keyed by ``level``, so two
appliers own one shelf each and both survive each other's applies; a manager that stops
applying its shelf loses it (nobody else owned it); the same field applied with another
value by a second manager is a 409 naming the first; ``pieces`` (no list type) is atomic.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from starlette.testclient import TestClient

from podscale.apiserver.customresources.definitions import CRD_RESOURCE
from podscale.apiserver.http.app import create_app
from podscale.store.memory import MemoryStore

from .conftest import KILN_CRD, FixedClock

JSON = dict[str, Any]
APPLY = "application/apply-patch+yaml"
PATH = "/apis/ceramics.podscale.test/v1/namespaces/default/kilns/k1"


def kiln(shelves: list[JSON]) -> JSON:
    # cone and glaze are required: every applier states them (same values: shared owners).
    return {
        "apiVersion": "ceramics.podscale.test/v1",
        "kind": "Kiln",
        "metadata": {"name": "k1"},
        "spec": {"cone": 6, "glaze": "celadon", "shelves": shelves},
    }


@pytest.fixture
def kilns() -> Iterator[TestClient]:
    clock = FixedClock()
    store = MemoryStore(clock)
    crd = {k: v for k, v in KILN_CRD.items() if k != "status"}
    crd["metadata"] = {"name": crd["metadata"]["name"]}
    store.create(CRD_RESOURCE, crd)
    return TestClient(create_app(store, clock=clock), raise_server_exceptions=False)


def apply(client: TestClient, body: JSON, manager: str, **query: str) -> Any:
    return client.patch(
        PATH,
        content=orjson.dumps(body),
        headers={"content-type": APPLY},
        params={"fieldManager": manager, **query},
    )


def owned(obj: JSON, manager: str) -> str:
    entry = next(e for e in obj["metadata"]["managedFields"] if e["manager"] == manager)
    return orjson.dumps(entry["fieldsV1"]).decode()


def test_list_map_items_are_owned_per_key_and_pruned_when_no_longer_applied(
    kilns: TestClient,
) -> None:
    first = apply(kilns, kiln([{"level": 1, "pieces": ["bowl"]}]), "potter")
    assert first.status_code == 201, first.text
    second = apply(kilns, kiln([{"level": 2, "pieces": ["mug"]}]), "glazer")
    assert second.status_code == 200, second.text
    both = second.json()
    assert [s["level"] for s in both["spec"]["shelves"]] == [1, 2]
    assert both["spec"]["cone"] == 6
    assert '"k:{\\"level\\":1}"' in owned(both, "potter")
    assert '"k:{\\"level\\":2}"' in owned(both, "glazer")
    # The potter stops applying its shelf: it owned it alone, so it goes.
    third = apply(kilns, kiln([]), "potter").json()
    assert [s["level"] for s in third["spec"]["shelves"]] == [2]


def test_another_value_for_an_owned_field_conflicts_until_forced(kilns: TestClient) -> None:
    assert apply(kilns, kiln([{"level": 1, "pieces": ["bowl"]}]), "potter").status_code == 201
    clash = apply(kilns, kiln([{"level": 1, "pieces": ["vase"]}]), "glazer")
    assert clash.status_code == 409
    body = clash.json()
    assert body["reason"] == "Conflict"
    assert 'conflict with "potter"' in body["message"]
    assert ".spec.shelves[level=1].pieces" in body["message"]
    forced = apply(kilns, kiln([{"level": 1, "pieces": ["vase"]}]), "glazer", force="true")
    assert forced.status_code == 200, forced.text
    assert forced.json()["spec"]["shelves"] == [{"level": 1, "pieces": ["vase"]}]
    assert "f:pieces" not in owned(forced.json(), "potter")
