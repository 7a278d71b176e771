"""``pods/log`` and ``pods/exec`` over HTTP (the ASGI app) against the simulated kubelets on
virtual time: the lifecycle lines at their simulated times, the options, ``previous`` after
a crash, upstream's errors, a follower that ends when the pod is deleted, exec refused."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx
import pytest

from podscale.apiserver.http.app import create_app
from podscale.apiserver.operations.pod_log_options import PodLogOptions
from podscale.client.inprocess import InProcessApi
from podscale.plane.embedded import EmbeddedControlPlane
from podscale.runtime import VirtualClock, run_virtual
from podscale.store.memory import MemoryStore

from .sim_plane import POD, PROFILE, RS, START, UNTIL, replica_set

T = TypeVar("T")
BASE = "/api/v1/namespaces/default/pods"
STARTED = 'podscale: simulated container "app" started (image "nginx")'
READY = 'podscale: container "app" is ready'
OOM = 'podscale: container "app" exited with code 137 (OOMKilled)'


class Plane:
    def __init__(self, plane: EmbeddedControlPlane, http: httpx.AsyncClient) -> None:
        self.api, self.http = plane.api, http
        assert plane.cluster is not None
        self.cluster = plane.cluster

    async def only_pod(self) -> str:
        [pod] = (await self.api.list(POD, "default"))["items"]
        return str(pod["metadata"]["name"])

    async def log(self, name: str, **params: Any) -> httpx.Response:
        return await self.http.get(f"{BASE}/{name}/log", params=params)


def run(scenario: Callable[[Plane], Awaitable[T]]) -> T:
    clock = VirtualClock(START)

    async def main() -> tuple[T]:
        app = create_app(MemoryStore(clock), clock=clock)
        plane = EmbeddedControlPlane(clock, api=InProcessApi.for_app(app), profile=PROFILE)
        task = asyncio.create_task(plane.run())
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://podscale") as http:
            try:
                await plane.wait_started()
                return (await scenario(Plane(plane, http)),)
            finally:
                plane.stop()
                await task

    result = run_virtual(main(), start=START, until=UNTIL)
    assert result is not None
    return result[0]


def started_pod(containers: tuple[str, ...] = ("app",), at: float = 30) -> Callable[..., Any]:
    """A scenario step: one pod of RS web, ``at`` seconds after its creation."""

    async def step(p: Plane) -> str:
        await p.api.create(RS, "default", replica_set("web", 1, containers=containers))
        await asyncio.sleep(at)
        return await p.only_pod()

    return step


@pytest.mark.parametrize(
    ("params", "body"),
    [
        ({}, f"{STARTED}\n{READY}\n"),
        (
            {"timestamps": "true"},
            f"2026-03-01T00:00:10.000000000Z {STARTED}\n2026-03-01T00:00:15.000000000Z {READY}\n",
        ),
        ({"tailLines": "1"}, f"{READY}\n"),
        ({"tailLines": "0"}, ""),
        ({"sinceSeconds": "16"}, f"{READY}\n"),  # read at t=30: the cut-off is t=14
        ({"sinceTime": "2026-03-01T00:00:15Z"}, f"{READY}\n"),
        ({"limitBytes": "10"}, STARTED[:10]),
        ({"container": "app"}, f"{STARTED}\n{READY}\n"),
    ],
    ids=[
        "plain",
        "timestamps",
        "tail",
        "tail-zero",
        "since-seconds",
        "since-time",
        "limit",
        "named",
    ],
)
def test_log_options(params: dict[str, str], body: str) -> None:
    async def scenario(p: Plane) -> httpx.Response:
        return await p.log(await started_pod()(p), **params)

    response = run(scenario)
    assert (response.status_code, response.text) == (200, body)
    assert response.headers["content-type"].startswith("text/plain")


def test_previous_after_a_crash_reads_the_dead_instance() -> None:
    async def scenario(p: Plane) -> tuple[str, str, str]:
        name = await started_pod()(p)
        before = (await p.log(name, previous="true")).json()["message"]
        await p.cluster.crash_container("default", name, "app", reason="OOMKilled", exit_code=137)
        await asyncio.sleep(30)
        return before, (await p.log(name)).text, (await p.log(name, previous="true")).text

    before, current, previous = run(scenario)
    assert (
        before
        == f'previous terminated container "app" in pod "{before.split(chr(34))[3]}" not found'
    )
    assert current == f"{STARTED}, restart 1\n{READY}\n"
    assert previous == f"{STARTED}\n{READY}\n{OOM}\n"


@pytest.mark.parametrize(
    ("containers", "at", "params", "code", "message"),
    [
        (
            ("app",),
            1,
            {},
            400,
            'container "app" in pod "{}" is waiting to start: ContainerCreating',
        ),
        (
            ("a", "b"),
            30,
            {},
            400,
            "a container name must be specified for pod {}, choose one of: [a b]",
        ),
        (("app",), 30, {"container": "nope"}, 400, "container nope is not valid for pod {}"),
        (
            ("app",),
            30,
            {"tailLines": "-1"},
            422,
            'PodLogOptions "{}" is invalid: tailLines: Invalid value: -1: '
            "must be greater than or equal to 0",
        ),
        (
            ("app",),
            30,
            {"tailLines": "x"},
            400,
            'tailLines: Invalid value: "x": must be an integer',
        ),
    ],
    ids=["waiting", "which-container", "unknown-container", "negative-tail", "not-a-number"],
)
def test_log_errors(
    containers: tuple[str, ...], at: float, params: dict[str, str], code: int, message: str
) -> None:
    async def scenario(p: Plane) -> tuple[str, httpx.Response]:
        name = await started_pod(containers, at)(p)
        return name, await p.log(name, **params)

    name, response = run(scenario)
    assert response.status_code == code
    assert response.json()["message"] == message.format(name)


def test_missing_pod_is_not_found() -> None:
    async def scenario(p: Plane) -> httpx.Response:
        return await p.log("nope")

    response = run(scenario)
    assert (response.status_code, response.json()["message"]) == (404, 'pods "nope" not found')


def test_follow_streams_new_lines_and_ends_when_the_pod_is_deleted() -> None:
    async def scenario(p: Plane) -> list[str]:
        name = await started_pod(at=12)(p)  # started at 10, ready at 15
        pod = await p.api.get(POD, "default", name)
        logs = p.cluster.kubelets.logs
        seen: list[str] = []

        async def follow() -> None:
            async for chunk in logs.open(pod, "app", PodLogOptions(follow=True)):
                seen.append(chunk.decode())

        follower = asyncio.create_task(follow())
        await asyncio.sleep(5)
        seen.append("-- t=17")
        await p.api.delete(POD, "default", name)
        await asyncio.wait_for(follower, 60)
        return seen

    seen = run(scenario)
    marker = seen.index("-- t=17")
    # Streamed as they appeared: the ready line came after the follower started (t=12).
    assert "".join(seen[:marker]) == f"{STARTED}\n{READY}\n"
    assert [s for s in seen[:marker] if s] == [f"{STARTED}\n", f"{READY}\n"]
    after = "".join(seen[marker + 1 :]).splitlines()
    assert after[0] == (
        'podscale: container "app" received SIGTERM: the pod is being deleted (grace period 30s)'
    )
    assert after[1:] == ['podscale: container "app" exited with code 0 (Completed)']


@pytest.mark.parametrize("sub", ["exec", "attach", "portforward"])
@pytest.mark.parametrize("method", ["GET", "POST"])
def test_exec_attach_portforward_are_refused(sub: str, method: str) -> None:
    async def scenario(p: Plane) -> tuple[str, httpx.Response]:
        name = await started_pod()(p)
        headers = {"Connection": "Upgrade", "Upgrade": "websocket"}
        url = f"{BASE}/{name}/{sub}?command=ls&stdout=true"
        return name, await p.http.request(method, url, headers=headers)

    name, response = run(scenario)
    status = response.json()
    assert (response.status_code, status["reason"]) == (400, "BadRequest")
    assert status["message"].startswith(f"pod {name} is simulated by podscale")
    assert "has no process" in status["message"]
