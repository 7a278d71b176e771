"""``StoreObjectLabels``: labels of live objects from the store, None for missing ones."""

from __future__ import annotations

import pytest

from podscale.metrics.object_labels import StoreObjectLabels
from podscale.store.memory import MemoryStore
from podscale.testing.clock import FakeClock


@pytest.fixture
def labels() -> StoreObjectLabels:
    store = MemoryStore(FakeClock())
    pod = {"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [{"name": "c"}]}}
    store.create(
        "pods",
        {**pod, "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}}},
    )
    store.create("pods", {**pod, "metadata": {"name": "bare", "namespace": "default"}})
    store.create(
        "nodes",
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"zone": "a"}}},
    )
    return StoreObjectLabels(store)


@pytest.mark.parametrize(
    ("resource", "namespace", "name", "expected"),
    [
        ("pods", "default", "web", {"app": "web"}),
        ("pods", "default", "bare", {}),
        ("pods", "other", "web", None),
        ("pods", "default", "gone", None),
        ("nodes", None, "n1", {"zone": "a"}),
        ("widgets.example.com", "default", "web", None),
    ],
    ids=["labelled", "no-labels", "other-namespace", "missing", "root-scoped", "unknown-resource"],
)
def test_labels_of(
    labels: StoreObjectLabels,
    resource: str,
    namespace: str | None,
    name: str,
    expected: dict[str, str] | None,
) -> None:
    assert labels.labels_of(resource, namespace, name) == expected


def test_labels_follow_updates_and_deletes_of_the_object() -> None:
    store = MemoryStore(FakeClock())
    pod = {"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [{"name": "c"}]}}
    created = store.create(
        "pods", {**pod, "metadata": {"name": "web", "namespace": "default", "labels": {"a": "1"}}}
    )
    labels = StoreObjectLabels(store)
    assert labels.labels_of("pods", "default", "web") == {"a": "1"}
    created["metadata"]["labels"] = {"a": "2"}
    store.update("pods", created)
    assert labels.labels_of("pods", "default", "web") == {"a": "2"}  # re-read at a new revision
    store.delete("pods", "default", "web")
    assert labels.labels_of("pods", "default", "web") is None
