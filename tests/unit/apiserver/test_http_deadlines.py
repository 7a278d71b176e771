"""Read deadlines over a raw socket: trickled headers and bodies do not pin a connection.

The server is the real API app on uvicorn with ``DeadlineH11Protocol``, its deadlines shortened
on a subclass so the test takes under a few seconds; each read has a 5 s socket timeout, so a
server that holds the connection (as before the deadlines) fails the test instead of hanging.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
import uvicorn

from podscale.apiserver.http.app import create_app
from podscale.apiserver.http.deadlines import (
    BODY_IDLE_TIMEOUT,
    BODY_TIMEOUT,
    HEADER_TIMEOUT,
    DeadlineH11Protocol,
)
from podscale.apiserver.http.server import bind_socket, start_in_thread
from podscale.store.memory import MemoryStore
from podscale.testing import FakeClock

PODS = "/api/v1/namespaces/default/pods"


class QuickDeadlines(DeadlineH11Protocol):
    header_timeout = 0.5
    body_idle_timeout = 0.5
    body_timeout = 1.5


@pytest.fixture
def port() -> Iterator[int]:
    clock = FakeClock(datetime(2026, 1, 2, tzinfo=UTC))
    sock = bind_socket("127.0.0.1", 0)
    config = uvicorn.Config(
        create_app(MemoryStore(clock), clock=clock),
        log_level="warning",
        lifespan="off",
        http=QuickDeadlines,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server.started
    yield int(sock.getsockname()[1])
    server.should_exit = True
    thread.join(10)
    sock.close()


def connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=5)


def read_all(conn: socket.socket) -> bytes:
    """Everything until the server closes (socket.timeout if it never does)."""
    data = b""
    while chunk := conn.recv(65536):
        data += chunk
    return data


def test_a_connection_that_sends_nothing_is_closed(port: int) -> None:
    with connect(port) as conn:
        assert read_all(conn) == b""


def test_trickled_headers_are_cut_without_an_answer(port: int) -> None:
    with connect(port) as conn:
        conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        assert read_all(conn) == b""


def read_response(conn: socket.socket) -> bytes:
    """One whole response (head and Content-Length body) off a kept-alive connection."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        body += conn.recv(65536)
    return head + b"\r\n\r\n" + body


def _head(path: str, length: int) -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {length}\r\n\r\n"
    ).encode()


def _status(reply: bytes) -> tuple[str, dict[str, object]]:
    head, _, body = reply.partition(b"\r\n\r\n")
    return head.split(b"\r\n", 1)[0].decode(), json.loads(body)


def test_a_body_that_stalls_gets_408_and_the_connection_closes(port: int) -> None:
    with connect(port) as conn:
        conn.sendall(_head(PODS, 1000) + b"{")
        line, status = _status(read_all(conn))
    assert line == "HTTP/1.1 408 Request Timeout"
    assert status == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "no request body data arrived for 0.5s",
        "reason": "Timeout",
        "code": 408,
    }


def test_a_body_that_trickles_forever_is_cut_by_the_total_deadline(port: int) -> None:
    with connect(port) as conn:
        conn.sendall(_head(PODS, 1000))
        conn.settimeout(0.2)
        reply = b""
        for _ in range(50):  # a byte every 0.2 s: never idle for 0.5 s
            try:
                conn.sendall(b" ")
                reply += conn.recv(65536)
                break
            except TimeoutError:
                continue
            except OSError:
                break
        conn.settimeout(5)
        with contextlib.suppress(OSError):
            reply += read_all(conn)
    line, status = _status(reply)
    assert line == "HTTP/1.1 408 Request Timeout"
    assert status["message"] == "the request body did not arrive within 1.5s"


def test_a_complete_request_is_answered_and_kept_alive(port: int) -> None:
    pod = json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]},
        }
    ).encode()
    with connect(port) as conn:
        conn.sendall(_head(PODS, len(pod)) + pod)
        assert read_response(conn).startswith(b"HTTP/1.1 201 ")
        conn.sendall(b"GET /api/v1/namespaces/default/pods/p HTTP/1.1\r\nHost: x\r\n\r\n")
        assert read_response(conn).startswith(b"HTTP/1.1 200 ")


def test_the_defaults_are_the_documented_ones() -> None:
    assert (HEADER_TIMEOUT, BODY_IDLE_TIMEOUT, BODY_TIMEOUT) == (10.0, 30.0, 60.0)


def test_servers_started_by_podscale_use_the_deadlines() -> None:
    clock = FakeClock(datetime(2026, 1, 2, tzinfo=UTC))
    running = start_in_thread(create_app(MemoryStore(clock), clock=clock))
    try:
        assert issubclass(running._server.config.http, DeadlineH11Protocol)  # type: ignore[arg-type]
    finally:
        running.stop()
