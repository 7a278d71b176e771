"""The run loop's seams: under an elector the controllers run only while leading; a lost
leadership ends the run with 1 and klog's "leaderelection lost"; a stop cancels the
elector (which releases the Lease) and ends with 0. The elector here is a stand-in with
``LeaderElector``'s interface; the API is the in-process server behind ``HttpApi``."""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Awaitable, Callable
from datetime import datetime

import httpx
import pytest

from podscale.api.kinds import kind_for
from podscale.apiserver.http.app import create_app
from podscale.client.connection import Connection
from podscale.client.http import ApiError, HttpApi
from podscale.controllermanager.election import Elector
from podscale.controllermanager.options import ManagerOptions
from podscale.controllermanager.run import EXIT_LEADERSHIP_LOST, run_controller_manager
from podscale.store.memory import MemoryStore
from podscale.testing import FakeClock


class StandInElector:
    """Leads at once; ``lose`` ends ``run`` as a failed renewal does."""

    def __init__(self) -> None:
        self.is_leader = False
        self.observed_time: datetime | None = None
        self.lost = asyncio.Event()
        self.released = False
        self.led = asyncio.Event()

    async def run(self, lead: Callable[[], Awaitable[None]]) -> None:
        self.is_leader = True
        task = asyncio.create_task(lead())
        self.led.set()
        try:
            await self.lost.wait()
            self.is_leader = False
            task.cancel()
        except asyncio.CancelledError:
            task.cancel()
            self.released = True
            raise


def api_over_app() -> HttpApi:
    clock = FakeClock()
    app = create_app(MemoryStore(clock), clock=clock)
    transport = httpx.ASGITransport(app=app)
    return HttpApi(Connection(server="http://podscale"), transport=transport)


OPTIONS = ManagerOptions(secure_port=0, controllers=frozenset({"cronhpa-controller"}))


async def scenario(lose: bool) -> tuple[int, StandInElector]:
    elector = StandInElector()
    stop = asyncio.Event()

    def make(_api: object, _clock: object) -> Elector:
        return elector

    async with api_over_app() as api:
        run = asyncio.create_task(run_controller_manager(api, OPTIONS, stop, elector_factory=make))
        await asyncio.wait_for(elector.led.wait(), timeout=10)
        if lose:
            elector.lost.set()
        else:
            stop.set()
        code = await asyncio.wait_for(run, timeout=20)
    return code, elector


def test_a_lost_leadership_ends_the_run_with_1_and_klogs_words(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.ERROR, logger="podscale.controllermanager"):
        code, elector = asyncio.run(scenario(lose=True))
    assert code == EXIT_LEADERSHIP_LOST
    assert "leaderelection lost" in caplog.text
    assert not elector.released


def test_a_stop_releases_the_lease_and_ends_with_0() -> None:
    code, elector = asyncio.run(scenario(lose=False))
    assert code == 0
    assert elector.released


def test_the_real_elector_holds_the_lease_while_leading_and_releases_it_on_stop() -> None:
    async def attempt() -> tuple[int, dict[str, object], dict[str, object]]:
        async with api_over_app() as api:
            stop = asyncio.Event()
            options = ManagerOptions(secure_port=0, controllers=frozenset({"cronhpa-controller"}))
            run = asyncio.create_task(run_controller_manager(api, options, stop))
            lease_kind = kind_for("coordination.k8s.io/v1", "Lease")
            held: dict[str, object] = {}
            for _ in range(200):
                try:
                    held = await api.get(lease_kind, "kube-system", "podscale-controller-manager")
                except ApiError:
                    await asyncio.sleep(0.05)
                    continue
                if (held.get("spec") or {}).get("holderIdentity"):  # type: ignore[union-attr]
                    break
                await asyncio.sleep(0.05)
            stop.set()
            code = await asyncio.wait_for(run, timeout=20)
            released = await api.get(lease_kind, "kube-system", "podscale-controller-manager")
            return code, held, released

    code, held, released = asyncio.run(attempt())
    assert code == 0
    spec = held["spec"]
    assert isinstance(spec, dict)
    assert str(spec["holderIdentity"]).startswith(socket.gethostname() + "_")
    assert spec["leaseDurationSeconds"] == 15
    # client-go's ReleaseOnCancel: no holder, a one-second lease.
    assert released["spec"] == {
        **spec,
        "holderIdentity": "",
        "leaseDurationSeconds": 1,
        "acquireTime": released["spec"]["acquireTime"],  # type: ignore[index]
        "renewTime": released["spec"]["renewTime"],
    }  # type: ignore[index]
