"""``HttpApi`` retries as client-go's ``rest.Request`` does: a 429 or a 5xx carrying an
integer ``Retry-After`` is tried again after that many seconds (any verb: the body is kept),
at most 10 times; a GET cut off by a broken connection after 1 s; never a refused
connection nor a write that got no answer. Watches retry their start the same way. All
waits go through a fake sleep."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx
import pytest

from podscale.api.kinds import kind_for
from podscale.client.connection import Connection
from podscale.client.http import ApiError, HttpApi
from podscale.client.informer import Gone
from podscale.client.throttle import retry_after, retryable_transport_error

PODS = kind_for("v1", "Pod")
Reply = httpx.Response | Exception


class Script:
    """A transport answering each request with the next scripted reply (the last repeats)."""

    def __init__(self, *replies: Reply) -> None:
        self.replies = list(replies)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        if isinstance(reply, Exception):
            raise reply
        return reply


def _status(code: int, retry: str | None = None) -> httpx.Response:
    headers = {"Retry-After": retry} if retry is not None else {}
    body = {"kind": "Status", "status": "Failure", "code": code, "message": f"code {code}"}
    return httpx.Response(code, json=body, headers=headers)


OK = httpx.Response(200, json={"kind": "Pod", "metadata": {"name": "p"}})
POD = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "i"}]}}


def _run(
    script: Script, call: Callable[[HttpApi], object], **kwargs: object
) -> tuple[object, list[float]]:
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    async def main() -> object:
        async with HttpApi(
            Connection("http://podscale"),
            transport=httpx.MockTransport(script),
            qps=-1.0,
            sleep=sleep,
            **kwargs,  # type: ignore[arg-type]
        ) as api:
            return await call(api)  # type: ignore[misc]

    return asyncio.run(main()), sleeps


@pytest.mark.parametrize(
    ("status", "header", "expected"),
    [
        (429, "3", 3),
        (500, "1", 1),
        (503, "0", 0),
        (504, "+2", 2),
        (429, None, None),
        (500, None, None),
        (404, "1", None),
        (409, "1", None),
        (503, "Wed, 21 Oct 2015 07:28:00 GMT", None),
        (503, "1.5", None),
        (503, "-4", 0),
    ],
    ids=[
        "429 with Retry-After",
        "500 with Retry-After",
        "503 asking for no wait",
        "signed integer as strconv.Atoi reads it",
        "429 without Retry-After is not retried",
        "500 without Retry-After is not retried",
        "a 4xx other than 429 is never retried",
        "a conflict is never retried",
        "an HTTP date is not an integer",
        "a fraction is not an integer",
        "a negative wait sleeps not at all",
    ],
)
def test_retry_after(status: int, header: str | None, expected: int | None) -> None:
    headers = {} if header is None else {"Retry-After": header}
    assert retry_after(status, headers) == expected


@pytest.mark.parametrize(
    ("method", "error", "watch", "expected"),
    [
        ("GET", httpx.ReadError("connection reset by peer"), False, True),
        ("GET", httpx.RemoteProtocolError("Server disconnected"), False, True),
        ("GET", httpx.WriteError("broken pipe"), False, True),
        ("POST", httpx.ReadError("connection reset by peer"), False, False),
        ("DELETE", httpx.RemoteProtocolError("Server disconnected"), False, False),
        ("GET", httpx.ConnectError("connection refused"), False, False),
        ("GET", httpx.ReadTimeout("timed out"), False, False),
        ("GET", httpx.ReadTimeout("timed out"), True, True),
        ("GET", httpx.ConnectError("connection refused"), True, False),
    ],
    ids=[
        "GET reset by peer",
        "GET closed before the answer (EOF)",
        "GET on a broken connection",
        "a write is not idempotent",
        "a delete neither",
        "a refused connection is not retried",
        "a plain request's timeout is not retried",
        "a watch's timeout is",
        "a watch's refused connection is not",
    ],
)
def test_retryable_transport_error(
    method: str, error: Exception, watch: bool, expected: bool
) -> None:
    assert retryable_transport_error(method, error, watch=watch) is expected


@pytest.mark.parametrize(
    ("verb", "call"),
    [
        ("GET", lambda api: api.get(PODS, "default", "p")),
        ("POST", lambda api: api.create(PODS, "default", POD)),
        ("PUT", lambda api: api.update(PODS, "default", POD)),
        ("PATCH", lambda api: api.patch(PODS, "default", "p", {"metadata": {}})),
        ("DELETE", lambda api: api.delete(PODS, "default", "p")),
    ],
    ids=["get", "create", "update", "patch", "delete"],
)
def test_every_verb_is_retried_on_429_with_retry_after(
    verb: str, call: Callable[[HttpApi], object]
) -> None:
    script = Script(_status(429, "2"), _status(503, "1"), OK)
    result, sleeps = _run(script, call)
    assert result == {"kind": "Pod", "metadata": {"name": "p"}}
    assert sleeps == [2.0, 1.0]
    assert [r.method for r in script.requests] == [verb] * 3
    bodies = {r.content for r in script.requests}
    assert len(bodies) == 1  # the same body replayed


def test_retries_stop_after_ten_and_the_last_answer_is_the_error() -> None:
    script = Script(_status(429, "1"))
    with pytest.raises(ApiError) as caught:
        _run(script, lambda api: api.get(PODS, "default", "p"))
    assert caught.value.status == 429
    assert len(script.requests) == 11  # the first attempt and 10 retries


def test_max_retries_zero_never_retries() -> None:
    script = Script(_status(503, "1"), OK)
    with pytest.raises(ApiError) as caught:
        _run(script, lambda api: api.get(PODS, "default", "p"), max_retries=0)
    assert caught.value.status == 503
    assert len(script.requests) == 1


@pytest.mark.parametrize(
    "reply",
    [_status(500), _status(429), _status(404, "1")],
    ids=["500 without Retry-After", "429 without Retry-After", "404 with Retry-After"],
)
def test_an_answer_without_a_retry_is_raised_at_once(reply: httpx.Response) -> None:
    script = Script(reply, OK)
    with pytest.raises(ApiError):
        _run(script, lambda api: api.get(PODS, "default", "p"))
    assert len(script.requests) == 1


def test_a_get_on_a_broken_connection_is_retried_after_a_second() -> None:
    script = Script(httpx.ReadError("connection reset by peer"), OK)
    result, sleeps = _run(script, lambda api: api.get(PODS, "default", "p"))
    assert result == {"kind": "Pod", "metadata": {"name": "p"}}
    assert sleeps == [1.0]


@pytest.mark.parametrize(
    ("error", "call"),
    [
        (httpx.ReadError("reset"), lambda api: api.create(PODS, "default", POD)),
        (httpx.ConnectError("refused"), lambda api: api.get(PODS, "default", "p")),
    ],
    ids=["a write that got no answer", "a refused connection"],
)
def test_transport_errors_client_go_does_not_retry_are_raised(
    error: Exception, call: Callable[[HttpApi], object]
) -> None:
    script = Script(error, OK)
    with pytest.raises(type(error)):
        _run(script, call)
    assert len(script.requests) == 1


def test_each_retry_takes_a_token() -> None:
    script = Script(_status(429, "0"), OK)
    now = [0.0]
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        now[0] += seconds

    async def main() -> None:
        async with HttpApi(
            Connection("http://podscale"),
            transport=httpx.MockTransport(script),
            qps=1.0,
            burst=1,
            now=lambda: now[0],
            sleep=sleep,
        ) as api:
            await api.get(PODS, "default", "p")

    asyncio.run(main())
    assert sleeps == [0.0, 1.0]  # Retry-After 0, then the retry waits for its token


def _events(*lines: bytes) -> httpx.Response:
    return httpx.Response(200, content=b"".join(line + b"\n" for line in lines))


ADDED = b'{"type":"ADDED","object":{"metadata":{"name":"p","resourceVersion":"5"}}}'


def _watch(api: HttpApi) -> object:
    async def collect() -> list[str]:
        return [kind async for kind, _ in api.watch(PODS, resource_version="4")]

    return collect()


@pytest.mark.parametrize(
    ("first", "sleeps"),
    [
        (_status(429, "2"), [2.0]),
        (_status(500, "1"), [1.0]),
        (httpx.ReadTimeout("timed out"), [1.0]),
        (httpx.RemoteProtocolError("Server disconnected"), [1.0]),
    ],
    ids=["429 with Retry-After", "500 with Retry-After", "timeout", "EOF"],
)
def test_a_watch_start_is_retried(first: Reply, sleeps: list[float]) -> None:
    script = Script(first, _events(ADDED))
    result, slept = _run(script, _watch)
    assert result == ["ADDED"]
    assert slept == sleeps
    assert all(r.url.params["resourceVersion"] == "4" for r in script.requests)


@pytest.mark.parametrize(
    ("first", "error"),
    [
        (_status(410), Gone),
        (_status(429), ApiError),
        (httpx.ConnectError("refused"), httpx.ConnectError),
    ],
    ids=["410 is Gone", "429 without Retry-After", "a refused connection"],
)
def test_a_watch_start_client_go_does_not_retry_is_raised(
    first: Reply, error: type[Exception]
) -> None:
    script = Script(first, _events(ADDED))
    with pytest.raises(error):
        _run(script, _watch)
    assert len(script.requests) == 1
