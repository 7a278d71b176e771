"""The per-server registry of custom kinds: current with the CRDs, without relisting them on
writes of anything else (a custom resource PUT must not cost a list of every CRD)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from podscale.apiserver.customresources.definitions import CRD_RESOURCE
from podscale.apiserver.customresources.registry import CustomKindRegistry
from podscale.store.interface import ListResult
from podscale.store.memory import MemoryStore

JSON = dict[str, Any]


class CountingStore(MemoryStore):
    """A memory store that counts the lists of CRDs."""

    crd_lists = 0

    def list(self, resource: str, *args: Any, **kwargs: Any) -> ListResult:
        if resource == CRD_RESOURCE:
            self.crd_lists += 1
        return super().list(resource, *args, **kwargs)


def _accepted(crd: JSON) -> JSON:
    names = crd["spec"]["names"]
    crd["status"] = {"acceptedNames": {"plural": names["plural"], "kind": names["kind"]}}
    return crd


def test_writes_of_other_resources_keep_the_snapshot_without_a_list(
    clock: Any, crd_factory: Callable[..., JSON], widget_factory: Callable[..., JSON]
) -> None:
    store = CountingStore(clock)
    for index in range(20):
        store.create(CRD_RESOURCE, _accepted(crd_factory(plural=f"widgets{index}")))
    registry = CustomKindRegistry()
    first = registry.current(store)
    assert store.crd_lists == 1
    assert first.lookup("example.com", "v1", "widgets7") is not None
    assert first.definition("widgets7.example.com") is not None
    for index in range(5):
        body = widget_factory(f"w{index}") | {"apiVersion": "example.com/v1"}
        body["metadata"]["namespace"] = "default"
        store.create("widgets7.example.com", body)
    assert registry.current(store) is first
    assert store.crd_lists == 1, "custom resource writes relisted the CRDs"


def test_a_crd_write_is_seen_on_the_next_read(clock: Any, crd_factory: Callable[..., JSON]) -> None:
    store = CountingStore(clock)
    store.create(CRD_RESOURCE, _accepted(crd_factory()))
    registry = CustomKindRegistry()
    assert registry.current(store).lookup("example.com", "v1", "gadgets") is None
    store.create(CRD_RESOURCE, _accepted(crd_factory(plural="gadgets", kind="Gadget")))
    assert registry.current(store).lookup("example.com", "v1", "gadgets") is not None
    store.delete(CRD_RESOURCE, "", "gadgets.example.com")
    assert registry.current(store).lookup("example.com", "v1", "gadgets") is None
    assert registry.current(store).definition("gadgets.example.com") is None
    assert store.crd_lists == 3
