"""Running the API server app with uvicorn, in this process.

``serve`` blocks (the CLI's ``podscale up`` wraps it later, adding kubeconfig, tokens and TLS);
``start_in_thread`` runs it on a background thread and returns once it accepts connections,
which is what tests use. Both bind 127.0.0.1 by default; port 0 picks a free port, and the
socket is bound before uvicorn starts so the real port is known up front.

``HTTP_PROTOCOL`` is the HTTP/1.1 protocol every podscale server runs: uvicorn's h11
protocol that never upgrades a connection. kubectl asks for a websocket (then SPDY) upgrade
for ``exec``, ``attach`` and ``portforward``; uvicorn without a websocket library would log
"Unsupported upgrade request" on the user's terminal and pass the request on anyway. Here
the request goes to the app as plain HTTP at once, which answers it with a Status
(``pod_logs``), and the client sees its upgrade refused as from kube-apiserver. It also has
the read deadlines of ``http.deadlines``.
"""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass
from typing import Final

import uvicorn
from starlette.types import ASGIApp
from uvicorn.protocols.http.h11_impl import H11Protocol

from podscale.apiserver.http.deadlines import DeadlineH11Protocol
from podscale.apiserver.http.fairness import shorten_switch_interval

__all__ = [
    "DEFAULT_HOST",
    "HTTP_PROTOCOL",
    "RunningServer",
    "bind_socket",
    "serve",
    "start_in_thread",
]

DEFAULT_HOST: Final = "127.0.0.1"
# Open watches would otherwise hold a shutdown until their clients go away.
_GRACEFUL_SHUTDOWN_SECONDS: Final = 2


class _NoUpgradeH11Protocol(DeadlineH11Protocol):
    """uvicorn's h11 protocol with read deadlines, serving upgrade requests as plain HTTP
    requests."""

    def _should_upgrade(self) -> bool:
        return False


HTTP_PROTOCOL: Final[type[H11Protocol]] = _NoUpgradeH11Protocol


def bind_socket(host: str = DEFAULT_HOST, port: int = 0) -> socket.socket:
    """A listening-ready TCP socket bound to ``host``:``port`` (IPv6 when ``host`` has ':')."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP explicitly: asyncio enables TCP_NODELAY only on accepted sockets whose
    # protocol says TCP, and without it every keep-alive response waits ~40 ms for the
    # client's delayed ACK (uvicorn writes head and body separately).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()  # a failed bind must not leak the socket
        raise
    return sock


def _server(app: ASGIApp) -> uvicorn.Server:
    shorten_switch_interval()  # heavy requests run on a thread (``fairness``)
    config = uvicorn.Config(
        app,
        http=HTTP_PROTOCOL,
        ws="none",
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=_GRACEFUL_SHUTDOWN_SECONDS,
        lifespan="off",
    )
    return uvicorn.Server(config)


def serve(app: ASGIApp, host: str = DEFAULT_HOST, port: int = 0) -> None:
    """Serve ``app`` until interrupted (uvicorn handles SIGINT/SIGTERM on the main thread)."""
    sock = bind_socket(host, port)
    try:
        _server(app).run(sockets=[sock])
    finally:
        sock.close()


@dataclass
class RunningServer:
    """A server on a background thread. ``url`` is ``http://host:port``."""

    host: str
    port: int
    _server: uvicorn.Server
    _thread: threading.Thread
    _socket: socket.socket

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def stop(self, timeout: float = 10.0) -> None:
        """Ask uvicorn to exit and wait for the thread (open watches are cut short)."""
        self._server.should_exit = True
        self._thread.join(timeout)
        if self._thread.is_alive():
            self._server.force_exit = True
            self._thread.join(timeout)
        self._socket.close()


def start_in_thread(
    app: ASGIApp, host: str = DEFAULT_HOST, port: int = 0, *, startup_timeout: float = 10.0
) -> RunningServer:
    """Start ``app`` on a daemon thread; returns once it is serving. RuntimeError otherwise."""
    sock = bind_socket(host, port)
    server = _server(app)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="podscale-apiserver", daemon=True
    )
    thread.start()
    started = threading.Event()
    # Bounded polling: uvicorn exposes readiness only as a flag.
    for _ in range(int(startup_timeout / 0.01)):
        if server.started or not thread.is_alive():
            break
        started.wait(0.01)
    if not server.started:
        server.should_exit = True
        thread.join(startup_timeout)
        sock.close()
        raise RuntimeError("the API server did not start")
    bound_port = int(sock.getsockname()[1])
    return RunningServer(host, bound_port, server, thread, sock)
