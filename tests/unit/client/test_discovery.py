"""``served_kinds``: both transports list the same resources (built-in and custom) from one
server, and ``discover_kinds`` reads discovery documents into kinds, naming group versions
that did not answer."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from podscale.api.kinds import KindInfo, kind_for
from podscale.apiserver.http.app import create_app
from podscale.client.connection import Connection
from podscale.client.discovery import ServedKinds, discover_kinds
from podscale.client.http import HttpApi
from podscale.client.inprocess import InProcessApi
from podscale.store.memory import MemoryStore
from podscale.testing import FakeClock

JSON = dict[str, Any]
CRD = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")


def _crd() -> JSON:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "gizmos.toys.podscale.test"},
        "spec": {
            "group": "toys.podscale.test",
            "scope": "Cluster",
            "names": {"plural": "gizmos", "singular": "gizmo", "kind": "Gizmo"},
            "versions": [
                {
                    "name": name,
                    "served": True,
                    "storage": name == "v1",
                    "schema": {"openAPIV3Schema": {"type": "object"}},
                    "subresources": {"status": {}},
                }
                for name in ("v1", "v1beta1")
            ],
        },
    }


def _summary(kinds: ServedKinds) -> set[tuple[Any, ...]]:
    return {
        (k.group, k.version, k.plural, k.kind, k.namespaced, k.preferred, k.verbs, *k.subresources)
        for k in kinds.kinds
        if "list" in k.verbs  # the create-only self reviews are answered, never stored
    }


def test_both_transports_serve_the_same_kinds() -> None:
    clock = FakeClock()
    store = MemoryStore(clock)
    local = InProcessApi.for_store(store, clock)

    async def main() -> tuple[ServedKinds, ServedKinds, ServedKinds]:
        before = await local.served_kinds()
        await local.create(CRD, None, _crd())
        transport = httpx.ASGITransport(app=create_app(store, clock=clock))
        async with HttpApi(Connection("http://podscale"), transport=transport) as http:
            return before, await local.served_kinds(), await http.served_kinds()

    before, in_process, over_http = asyncio.run(main())
    assert _summary(in_process) == _summary(over_http)
    assert over_http.failed == frozenset()
    added = _summary(in_process) - _summary(before)
    assert {(k[0], k[1], k[2], k[4], k[5]) for k in added} == {
        ("toys.podscale.test", "v1", "gizmos", False, True),
        ("toys.podscale.test", "v1beta1", "gizmos", False, False),
    }
    assert all(k[-1].name == "status" for k in added)


def test_in_process_answers_one_object_per_crd_snapshot() -> None:
    """The same CRDs give the very same answer (the garbage collector skips remapping on
    it); a CRD change gives a new one that lists the new kinds."""
    clock = FakeClock()
    store = MemoryStore(clock)
    local = InProcessApi.for_store(store, clock)
    other_manager = local.with_field_manager("someone-else")

    async def main() -> tuple[ServedKinds, ServedKinds, ServedKinds, ServedKinds]:
        first = await local.served_kinds()
        again = await other_manager.served_kinds()
        await local.create(CRD, None, _crd())
        changed = await local.served_kinds()
        return first, again, changed, await local.served_kinds()

    first, again, changed, changed_again = asyncio.run(main())
    assert again is first
    assert changed is not first
    assert changed_again is changed
    assert ("toys.podscale.test", "gizmos") in {(k.group, k.plural) for k in changed.kinds}
    assert ("toys.podscale.test", "gizmos") not in {(k.group, k.plural) for k in first.kinds}


def test_a_group_version_that_does_not_answer_is_named_failed() -> None:
    documents: dict[str, JSON] = {
        "/api": {"versions": ["v1"]},
        "/apis": {
            "groups": [
                {
                    "name": "toys.podscale.test",
                    "versions": [{"groupVersion": "toys.podscale.test/v1", "version": "v1"}],
                    "preferredVersion": {"version": "v1"},
                }
            ]
        },
        "/api/v1": {
            "resources": [
                {"name": "pods", "namespaced": True, "kind": "Pod", "verbs": ["get", "list"]}
            ]
        },
    }

    async def fetch(path: str) -> JSON | None:
        return documents.get(path)

    served = asyncio.run(discover_kinds(fetch))
    assert served.failed == frozenset({("toys.podscale.test", "v1")})
    pods: KindInfo = served.kinds[0]
    assert (pods.kind, pods.verbs, pods.preferred) == ("Pod", ("get", "list"), True)
    assert pods.subresources == kind_for("v1", "Pod").subresources  # the registry's kind


def test_discovery_without_its_roots_knows_nothing() -> None:
    async def fetch(path: str) -> JSON | None:
        return None

    with pytest.raises(LookupError):
        asyncio.run(discover_kinds(fetch))
