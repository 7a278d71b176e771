"""How an informer gets its watch back, as client-go's reflector does: a watch the server
refuses to start (connection refused, 429) is asked for again from the same resourceVersion
after the reflector backoff (800 ms doubling to 30 s, jittered, reset after 2 quiet
minutes), with no relist; a watch stream that breaks ends like a closed one, so the informer
watches again from the last resourceVersion it saw. Time is fake."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import orjson
import pytest

from podscale.api.kinds import kind_for
from podscale.client.connection import Connection
from podscale.client.http import ApiError, HttpApi, HttpListWatcher
from podscale.client.informer import Informer
from podscale.client.rewatch import (
    REFLECTOR_BACKOFF,
    RewatchState,
    next_rewatch_delay,
    watch_start_retriable,
)
from podscale.testing import FakeClock

JSON = dict[str, Any]
PODS = kind_for("v1", "Pod")
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _pod(name: str, version: int) -> JSON:
    return {"metadata": {"name": name, "namespace": "default", "resourceVersion": str(version)}}


def _delays(times: list[float], share: float = 0.0) -> list[float]:
    state: RewatchState | None = None
    got = []
    for at in times:
        state, delay = next_rewatch_delay(
            REFLECTOR_BACKOFF, state, T0 + timedelta(seconds=at), share
        )
        got.append(delay.total_seconds())
    return got


@pytest.mark.parametrize(
    ("times", "share", "expected"),
    [
        (list(range(9)), 0.0, [0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 30.0, 30.0, 30.0]),
        ([0, 1], 0.5, [1.2, 2.4]),
        ([0, 1], 0.999, [0.8 * 1.999, 1.6 * 1.999]),
        ([0, 1, 2, 123], 0.0, [0.8, 1.6, 3.2, 0.8]),
        ([0, 1, 2, 121], 0.0, [0.8, 1.6, 3.2, 6.4]),
    ],
    ids=[
        "800 ms doubling to the 30 s cap",
        "jitter stretches each wait by its random share",
        "jitter 1.0 stretches by almost a whole wait",
        "a backoff after 2 quiet minutes starts over",
        "within 2 minutes it keeps growing",
    ],
)
def test_next_rewatch_delay(times: list[float], share: float, expected: list[float]) -> None:
    assert _delays(times, share) == pytest.approx(expected)


def _refused() -> httpx.ConnectError:
    try:
        raise ConnectionRefusedError(111, "Connection refused")
    except ConnectionRefusedError as cause:
        try:
            raise httpx.ConnectError("All connection attempts failed") from cause
        except httpx.ConnectError as err:
            return err


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (_refused(), True),
        (httpx.ConnectError("[Errno 111] Connection refused"), True),
        (httpx.ConnectError("[Errno -2] Name or service not known"), False),
        (ApiError(429, {"reason": "TooManyRequests"}), True),
        (ApiError(500, {"reason": "InternalError"}), False),
        (ApiError(403, {"reason": "Forbidden"}), False),
        (httpx.ReadError("reset"), False),
    ],
    ids=[
        "refused, seen through the cause",
        "refused, in the message",
        "a DNS failure is not",
        "429",
        "500 is not",
        "403 is not",
        "a read error is not",
    ],
)
def test_watch_start_retriable(error: BaseException, expected: bool) -> None:
    assert watch_start_retriable(error) is expected


class FlakySource:
    """Lists once; the watch fails with ``failures`` first, then yields one event; the
    informer is stopped when the script runs out."""

    def __init__(self, failures: list[Exception]) -> None:
        self.failures = failures
        self.lists = 0
        self.watched_from: list[str] = []
        self.informer: Informer | None = None

    async def list(self) -> tuple[list[JSON], str]:
        self.lists += 1
        return [_pod("a", 3)], "3"

    async def watch(self, resource_version: str) -> AsyncIterator[tuple[str, JSON]]:
        self.watched_from.append(resource_version)
        if self.failures:
            raise self.failures.pop(0)
        assert self.informer is not None
        self.informer.stop()
        yield "ADDED", _pod("b", 4)


def _run(source: FlakySource) -> tuple[Informer, list[float]]:
    clock = FakeClock(T0)
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        clock.advance(seconds)

    informer = Informer(source, clock, sleep=sleep, jitter=lambda: 0.0)
    source.informer = informer
    asyncio.run(asyncio.wait_for(informer.run(), timeout=5))
    return informer, sleeps


def test_a_refused_or_throttled_watch_backs_off_and_resumes_without_a_relist() -> None:
    failures: list[Exception] = [_refused(), _refused(), ApiError(429, {})]
    source = FlakySource(failures)
    informer, sleeps = _run(source)
    assert sleeps == pytest.approx([0.8, 1.6, 3.2])
    assert source.lists == 1
    assert source.watched_from == ["3", "3", "3", "3"]
    assert sorted(p["metadata"]["name"] for p in informer.lister.list()) == ["a", "b"]


@pytest.mark.parametrize(
    "error",
    [ApiError(500, {"reason": "InternalError"}), httpx.ConnectError("Name or service not known")],
    ids=["a server error", "a DNS failure"],
)
def test_other_watch_failures_still_end_the_run(error: Exception) -> None:
    # The supervisor restarts the informer (a relist) on its own backoff.
    with pytest.raises(type(error)):
        _run(FlakySource([error]))


class BrokenStream(httpx.AsyncByteStream):
    """A watch body that delivers ``lines`` and then loses its connection."""

    def __init__(self, *lines: bytes) -> None:
        self.lines = lines

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for line in self.lines:
            yield line + b"\n"
        raise httpx.ReadError("connection reset by peer")


def _event(kind: str, name: str, version: int) -> bytes:
    return orjson.dumps({"type": kind, "object": _pod(name, version)})


def test_a_broken_watch_stream_ends_the_watch_and_the_informer_resumes_from_its_last_version() -> (
    None
):
    watched_from: list[str] = []
    lists: list[str] = []
    informer_box: list[Informer] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.params.get("watch") != "true":
            lists.append(str(request.url))
            return httpx.Response(
                200, json={"items": [_pod("a", 3)], "metadata": {"resourceVersion": "3"}}
            )
        watched_from.append(request.url.params["resourceVersion"])
        if len(watched_from) == 1:
            return httpx.Response(200, stream=BrokenStream(_event("ADDED", "b", 4)))
        informer_box[0].stop()
        return httpx.Response(200, stream=BrokenStream(_event("ADDED", "c", 5)))

    async def main() -> Informer:
        async with HttpApi(
            Connection("http://podscale"), transport=httpx.MockTransport(handler), qps=-1.0
        ) as api:
            informer = Informer(HttpListWatcher(api, PODS), FakeClock(T0))
            informer_box.append(informer)
            await asyncio.wait_for(informer.run(), timeout=5)
            return informer

    informer = asyncio.run(main())
    assert watched_from == ["3", "4"]
    assert len(lists) == 1
    assert sorted(p["metadata"]["name"] for p in informer.lister.list()) == ["a", "b", "c"]
