"""The system namespaces exist from the start, once."""

from __future__ import annotations

from podscale.apiserver.registry.bootstrap import SYSTEM_NAMESPACES, ensure_system_namespaces
from podscale.store.memory import MemoryStore
from podscale.testing import FakeClock


def test_system_namespaces_are_created_once() -> None:
    store = MemoryStore(FakeClock())
    assert ensure_system_namespaces(store) == list(SYSTEM_NAMESPACES)
    assert ensure_system_namespaces(store) == []
    names = [ns["metadata"]["name"] for ns in store.list("namespaces").items]
    assert names == sorted(SYSTEM_NAMESPACES)
    default = store.get("namespaces", "", "default")
    assert default["status"]["phase"] == "Active"
    assert default["metadata"]["labels"]["kubernetes.io/metadata.name"] == "default"
