"""The WebApp example operator on an embedded plane, on virtual time: idle until its CRD is
installed, then one owned ReplicaSet per WebApp, sized by spec.replicas (and so by the scale
subresource), with the status reported from it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

import pytest

from podscale.api.kinds import kind_for
from podscale.client.http import ApiError
from podscale.controllers.webapp.kind import NAME_LABEL, WEBAPP, definition
from podscale.plane.embedded import EmbeddedControlPlane
from podscale.runtime import run_virtual
from podscale.runtime.clocks import VirtualClock
from podscale.runtime.virtual_time import DEFAULT_START

JSON = dict[str, Any]
CRD = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
RS = kind_for("apps/v1", "ReplicaSet")
POD = kind_for("v1", "Pod")
EVENT = kind_for("v1", "Event")


def webapp(name: str = "web", replicas: int = 2, **spec: Any) -> JSON:
    return {
        "apiVersion": "examples.podscale.dev/v1alpha1",
        "kind": "WebApp",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"image": "nginx:1", "replicas": replicas, **spec},
    }


def on_plane(body: Callable[[EmbeddedControlPlane], Awaitable[None]]) -> None:
    """Run ``body`` against a started plane (simulated nodes and kubelets) on virtual time."""

    async def main() -> None:
        plane = EmbeddedControlPlane(VirtualClock(DEFAULT_START), metrics=False)
        task = asyncio.create_task(plane.run())
        try:
            await plane.wait_started()
            await body(plane)
        finally:
            plane.stop()
            await task

    run_virtual(main(), until=timedelta(hours=1))


async def install(plane: EmbeddedControlPlane) -> None:
    await plane.api.create(CRD, None, definition())


async def ready_pods(plane: EmbeddedControlPlane, name: str) -> int:
    listed = await plane.api.list(POD, "default", label_selector=f"{NAME_LABEL}={name}")
    return sum(
        1
        for pod in listed["items"]
        for c in (pod.get("status") or {}).get("conditions") or ()
        if c["type"] == "Ready" and c["status"] == "True"
    )


def test_a_webapp_runs_as_an_owned_replica_set_with_status() -> None:
    async def body(plane: EmbeddedControlPlane) -> None:
        await install(plane)
        created = await plane.api.create(WEBAPP, "default", webapp())
        await asyncio.sleep(60)
        rs = await plane.api.get(RS, "default", "web")
        (ref,) = rs["metadata"]["ownerReferences"]
        assert ref["uid"] == created["metadata"]["uid"]
        assert ref["controller"] is True
        assert rs["spec"]["replicas"] == 2
        assert await ready_pods(plane, "web") == 2
        status = (await plane.api.get(WEBAPP, "default", "web"))["status"]
        assert status == {
            "replicas": 2,
            "readyReplicas": 2,
            "selector": f"{NAME_LABEL}=web",
            "observedGeneration": 1,
        }

    on_plane(body)


def test_the_controller_waits_for_its_crd() -> None:
    async def body(plane: EmbeddedControlPlane) -> None:
        # The plane started without the CRD; nothing is served yet.
        with pytest.raises(ApiError) as caught:
            await plane.api.create(WEBAPP, "default", webapp())
        assert caught.value.status == 404
        await asyncio.sleep(900)  # long past the 5 min recheck: still nothing breaks
        await install(plane)
        await plane.api.create(WEBAPP, "default", webapp(replicas=1))
        await asyncio.sleep(30)
        assert (await plane.api.get(RS, "default", "web"))["spec"]["replicas"] == 1

    on_plane(body)


def test_scaling_through_the_scale_subresource_resizes_the_replica_set() -> None:
    async def body(plane: EmbeddedControlPlane) -> None:
        await install(plane)
        await plane.api.create(WEBAPP, "default", webapp())
        await asyncio.sleep(30)
        await plane.api.patch(
            WEBAPP, "default", "web", {"spec": {"replicas": 5}}, subresource="scale"
        )
        await asyncio.sleep(60)
        assert (await plane.api.get(RS, "default", "web"))["spec"]["replicas"] == 5
        assert await ready_pods(plane, "web") == 5
        scale = await plane.api.get(WEBAPP, "default", "web", "scale")
        assert scale["spec"]["replicas"] == 5
        assert scale["status"] == {"replicas": 5, "selector": f"{NAME_LABEL}=web"}

    on_plane(body)


def test_a_changed_template_reaches_the_replica_set() -> None:
    async def body(plane: EmbeddedControlPlane) -> None:
        await install(plane)
        await plane.api.create(WEBAPP, "default", webapp(port=8080))
        await asyncio.sleep(30)
        patch = {"spec": {"image": "nginx:2", "port": None}}
        await plane.api.patch(WEBAPP, "default", "web", patch)
        await asyncio.sleep(30)
        rs = await plane.api.get(RS, "default", "web")
        (container,) = rs["spec"]["template"]["spec"]["containers"]
        assert container["image"] == "nginx:2"
        assert "ports" not in container
        status = (await plane.api.get(WEBAPP, "default", "web"))["status"]
        assert status["observedGeneration"] == 2

    on_plane(body)


def test_a_replica_set_it_does_not_control_is_reported_not_taken() -> None:
    async def body(plane: EmbeddedControlPlane) -> None:
        await install(plane)
        squatter = {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {
                "replicas": 0,
                "selector": {"matchLabels": {"app": "other"}},
                "template": {
                    "metadata": {"labels": {"app": "other"}},
                    "spec": {"containers": [{"name": "c", "image": "busybox"}]},
                },
            },
        }
        await plane.api.create(RS, "default", squatter)
        await plane.api.create(WEBAPP, "default", webapp())
        await asyncio.sleep(30)
        rs = await plane.api.get(RS, "default", "web")
        assert "ownerReferences" not in rs["metadata"]
        assert rs["spec"]["replicas"] == 0
        reasons = {
            (e["reason"], e["message"]) for e in (await plane.api.list(EVENT, "default"))["items"]
        }
        assert (
            "ReplicaSetNotOwned",
            'ReplicaSet "web" already exists and is not controlled by WebApp "web"',
        ) in reasons

    on_plane(body)
