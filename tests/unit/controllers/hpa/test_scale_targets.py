"""Resolving and reading an HPA's ``scaleTargetRef`` (``scale_target``) over what the API
serves: built-in kinds and the kinds of CustomResourceDefinitions, through the in-process
API (the server's registries) and over HTTP (discovery), with upstream's error texts."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any, TypeVar

import httpx
import pytest

from podscale.api.kinds import KindInfo
from podscale.apiserver.customresources.definitions import CRD_RESOURCE
from podscale.apiserver.http.app import create_app
from podscale.client.http import HttpApi
from podscale.client.inprocess import InProcessApi
from podscale.client.kubeconfig import Connection
from podscale.controllers.hpa.scale_target import ScaleTargetError, read_scale, resolve_target
from podscale.controllers.runtime_api import ControllerApi
from podscale.hpa import decide
from podscale.store.memory import MemoryStore
from podscale.testing import make_hpa
from podscale.testing.clock import FakeClock

JSON = dict[str, Any]
T = TypeVar("T")
NOW = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
TRANSPORTS = ["in-process", "http"]
CRD_PLURAL = "customresourcedefinitions"

_SCHEMA: JSON = {
    "type": "object",
    "properties": {
        "spec": {"type": "object", "properties": {"replicas": {"type": "integer"}}},
        "status": {
            "type": "object",
            "properties": {"replicas": {"type": "integer"}, "selector": {"type": "string"}},
        },
    },
}
_SCALE_PATHS = {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}


def crd(kind: str, plural: str, versions: tuple[str, ...], subresources: JSON) -> JSON:
    """A namespaced CRD in example.com serving ``versions`` (the first one stored)."""
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"plural": plural, "singular": kind.lower(), "kind": kind},
            "scope": "Namespaced",
            "versions": [
                {
                    "name": version,
                    "served": True,
                    "storage": version == versions[0],
                    "schema": {"openAPIV3Schema": copy.deepcopy(_SCHEMA)},
                    "subresources": copy.deepcopy(subresources),
                }
                for version in versions
            ],
        },
    }


# Widgets scale with a selector; sprockets scale without one; gadgets have no scale at all.
DEFINITIONS = [
    crd(
        "Widget",
        "widgets",
        ("v1", "v1beta1"),
        {"status": {}, "scale": {**_SCALE_PATHS, "labelSelectorPath": ".status.selector"}},
    ),
    crd("Sprocket", "sprockets", ("v1",), {"status": {}, "scale": dict(_SCALE_PATHS)}),
    crd("Gadget", "gadgets", ("v1",), {"status": {}}),
]


@asynccontextmanager
async def serving(transport: str) -> AsyncIterator[tuple[InProcessApi, ControllerApi]]:
    """A server with the CRDs above and one object of each custom kind; yields the
    in-process API (for setup) and the API under test."""
    clock = FakeClock(NOW)
    store = MemoryStore(clock)
    for definition in DEFINITIONS:
        store.create(CRD_RESOURCE, copy.deepcopy(definition))
    local = InProcessApi.for_store(store, clock)
    for kind, name, status in [
        ("widgets", "w1", {"replicas": 2, "selector": "app=w1"}),
        ("sprockets", "s1", {"replicas": 2}),
        ("gadgets", "g1", {}),
    ]:
        info = await local.resolve_kind("example.com", "v1", kind)
        body = {
            "apiVersion": "example.com/v1",
            "kind": info.kind,
            "metadata": {"name": name},
            "spec": {"replicas": 3},
        }
        created = await local.create(info, "default", body)
        if status:
            await local.update(info, "default", {**created, "status": status}, "status")
    if transport == "in-process":
        yield local, local
        return
    app = create_app(store, clock=clock)
    asgi = httpx.ASGITransport(app=app)
    async with HttpApi(Connection(server="http://podscale"), transport=asgi) as http:
        yield local, http


def run(transport: str, body: Callable[[ControllerApi], Awaitable[T]]) -> T:
    async def main() -> T:
        async with serving(transport) as (_, api):
            return await body(api)

    return asyncio.run(main())


def _shape(info: KindInfo) -> tuple[str, str, str, bool, bool, tuple[str, ...]]:
    subs = tuple(sorted(sub.name for sub in info.subresources))
    return (info.group, info.version, info.plural, info.preferred, info.namespaced, subs)


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        (
            {"apiVersion": "apps/v1", "kind": "ReplicaSet"},
            [("apps", "v1", "replicasets", True, True, ("scale", "status"))],
        ),
        (
            {"apiVersion": "apps/v9", "kind": "Deployment"},
            [("apps", "v1", "deployments", True, True, ("scale", "status"))],
        ),
        (
            {"apiVersion": "v1", "kind": "ConfigMap"},
            [("", "v1", "configmaps", True, True, ())],
        ),
        (
            {"apiVersion": "example.com/v1", "kind": "Widget"},
            [
                ("example.com", "v1", "widgets", True, True, ("scale", "status")),
                ("example.com", "v1beta1", "widgets", False, True, ("scale", "status")),
            ],
        ),
        (
            {"apiVersion": "example.com/v1beta1", "kind": "Widget"},
            [
                ("example.com", "v1", "widgets", True, True, ("scale", "status")),
                ("example.com", "v1beta1", "widgets", False, True, ("scale", "status")),
            ],
        ),
        (
            {"apiVersion": "example.com/v1", "kind": "Gadget"},
            [("example.com", "v1", "gadgets", True, True, ("status",))],
        ),
    ],
    ids=[
        "built-in",
        "built-in-version-ignored",
        "core-group",
        "custom",
        "custom-version-ignored",
        "custom-without-scale",
    ],
)
def test_resolve_target(transport: str, ref: JSON, expected: list[tuple[Any, ...]]) -> None:
    mappings = run(transport, lambda api: resolve_target(api, ref))
    assert [_shape(info) for info in mappings] == expected


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(
    ("ref", "message", "spec"),
    [
        (
            {"apiVersion": "a/b/c", "kind": "ReplicaSet"},
            "unexpected GroupVersion string: a/b/c",
            True,
        ),
        (
            {"apiVersion": "v1", "kind": "ReplicaSet"},
            'no matches for kind "ReplicaSet" in group ""',
            False,
        ),
        (
            {"apiVersion": "apps/v1", "kind": "Foo"},
            'no matches for kind "Foo" in group "apps"',
            False,
        ),
        (
            {"apiVersion": "example.com/v1", "kind": "Gizmo"},
            'no matches for kind "Gizmo" in group "example.com"',
            False,
        ),
        (
            {"apiVersion": "apps/v1", "kind": "Widget"},
            'no matches for kind "Widget" in group "apps"',
            False,
        ),
        (
            {"apiVersion": "nowhere.io/v1", "kind": "Widget"},
            'no matches for kind "Widget" in group "nowhere.io"',
            False,
        ),
    ],
    ids=[
        "bad-api-version",
        "wrong-group",
        "unknown-kind",
        "unknown-custom-kind",
        "custom-kind-in-other-group",
        "unknown-group",
    ],
)
def test_resolve_target_errors(transport: str, ref: JSON, message: str, spec: bool) -> None:
    async def body(api: ControllerApi) -> ScaleTargetError:
        with pytest.raises(ScaleTargetError) as caught:
            await resolve_target(api, ref)
        return caught.value

    error = run(transport, body)
    assert (error.message, error.spec) == (message, spec)


def test_a_definition_created_later_resolves_without_a_restart() -> None:
    """The mapping is asked for on every sync, so a CRD created after the HPA is found."""

    async def main() -> tuple[str, list[str]]:
        async with serving("in-process") as (local, api):
            ref = {"apiVersion": "late.example.com/v1", "kind": "Late"}
            with pytest.raises(ScaleTargetError) as before:
                await resolve_target(api, ref)
            definition = crd("Late", "lates", ("v1",), {"scale": dict(_SCALE_PATHS)})
            definition["metadata"]["name"] = "lates.late.example.com"
            definition["spec"]["group"] = "late.example.com"
            crd_kind = await local.resolve_kind("apiextensions.k8s.io", "v1", CRD_PLURAL)
            await local.create(crd_kind, None, definition)
            after = await resolve_target(api, ref)
            return before.value.message, [info.plural for info in after]

    message, plurals = asyncio.run(main())
    assert message == 'no matches for kind "Late" in group "late.example.com"'
    assert plurals == ["lates"]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(
    ("api_version", "kind", "name", "outcome"),
    [
        (
            "example.com/v1",
            "Widget",
            "w1",
            {"spec": {"replicas": 3}, "status": {"replicas": 2, "selector": "app=w1"}},
        ),
        ("example.com/v1", "Sprocket", "s1", {"spec": {"replicas": 3}, "status": {"replicas": 2}}),
        ("example.com/v1", "Widget", "nope", 'widgets.example.com "nope" not found'),
        # The CRD handler's NotFound for a subresource the CRD does not define.
        ("example.com/v1", "Gadget", "g1", 'gadgets.example.com "g1" not found'),
        # An unknown path for a built-in kind without one.
        ("v1", "ConfigMap", "cm", "the server could not find the requested resource"),
        ("apps/v1", "Deployment", "nope", 'deployments.apps "nope" not found'),
    ],
    ids=[
        "custom",
        "custom-without-selector",
        "custom-missing",
        "custom-without-scale",
        "built-in-without-scale",
        "built-in-missing",
    ],
)
def test_read_scale(
    transport: str, api_version: str, kind: str, name: str, outcome: JSON | str
) -> None:
    async def body(api: ControllerApi) -> JSON | str:
        ref = {"apiVersion": api_version, "kind": kind}
        mappings = await resolve_target(api, ref)
        try:
            scale, served_by = await read_scale(api, mappings, "default", name)
        except ScaleTargetError as err:
            return err.message
        assert served_by.preferred
        assert (scale["apiVersion"], scale["kind"]) == ("autoscaling/v1", "Scale")
        return {"spec": scale["spec"], "status": scale["status"]}

    assert run(transport, body) == outcome


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_custom_scale_without_selector_is_an_invalid_selector(transport: str) -> None:
    """A CRD without ``labelSelectorPath``: the Scale has no selector, and the HPA reports
    upstream's SelectorRequired event and InvalidSelector condition."""

    async def body(api: ControllerApi) -> JSON:
        mappings = await resolve_target(api, {"apiVersion": "example.com/v1", "kind": "Sprocket"})
        scale, _ = await read_scale(api, mappings, "default", "s1")
        return scale

    scale = run(transport, body)
    hpa = make_hpa("s1", target_kind="Sprocket")
    hpa["spec"]["scaleTargetRef"]["apiVersion"] = "example.com/v1"
    decision = decide(hpa, scale=scale, pods=[], metrics=_NoMetrics(), history=None, now=NOW)
    conditions = {c["type"]: c for c in decision.status["conditions"]}
    active = conditions["ScalingActive"]
    assert (active["status"], active["reason"], active["message"]) == (
        "False",
        "InvalidSelector",
        "the HPA target's scale is missing a selector",
    )
    assert conditions["AbleToScale"]["status"] == "True"
    assert [(e.type, e.reason, e.message) for e in decision.events] == [
        ("Warning", "SelectorRequired", "selector is required"),
        ("Warning", "FailedComputeMetricsReplicas", "selector is required"),
    ]
    assert decision.status["currentReplicas"] == 3  # upstream counts the spec replicas
    assert not decision.rescale


class _NoMetrics:
    """A metrics source the engine must not ask (it stops at the missing selector)."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"asked for {name}")


def test_mappings_kept_per_definitions_follow_a_deleted_definition() -> None:
    """``rest_mappings`` is kept per snapshot of the CRDs: asked again it answers the same
    (a list of the caller's own); once a CRD is deleted, the next answer lacks its kind."""

    async def main() -> tuple[list[str], list[str], list[str]]:
        async with serving("in-process") as (local, api):
            first = await api.rest_mappings("example.com", "Widget")
            first_plurals = [info.plural for info in first]
            first.clear()
            again = [info.plural for info in await api.rest_mappings("example.com", "Widget")]
            crd_kind = await local.resolve_kind("apiextensions.k8s.io", "v1", CRD_PLURAL)
            await local.delete(crd_kind, None, "widgets.example.com")
            after = [info.plural for info in await api.rest_mappings("example.com", "Widget")]
            return first_plurals, again, after

    first, again, after = asyncio.run(main())
    assert first == again == ["widgets", "widgets"]
    assert after == []
