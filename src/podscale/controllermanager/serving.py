"""Serving the controller manager's ASGI apps (health and metrics, the metrics adapter).

kube-controller-manager serves its endpoints over https on ``--bind-address``:``--secure-port``
(0.0.0.0:10257), with ``--tls-cert-file``/``--tls-private-key-file`` or, without them, a
self-signed certificate it makes at start. ``serve_app`` does the same with uvicorn: the
given files, else a private CA and certificate made in a temporary directory that lives as
long as the server (``podscale.apiserver.auth.tls.ensure_certificates``); ``insecure``
serves plain http (tests, or a proxy that terminates TLS). Signals are left to the caller
(``podscale.controllermanager.run``): uvicorn's own handlers would stop only the server.
"""

from __future__ import annotations

import contextlib
import socket
import tempfile
from collections.abc import Generator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import uvicorn
from starlette.types import ASGIApp

from podscale.apiserver.auth.tls import ensure_certificates
from podscale.apiserver.http.server import HTTP_PROTOCOL, bind_socket

__all__ = ["Listener", "ServedApp", "serve_app"]


@dataclass(frozen=True, slots=True)
class Listener:
    """Where and how to serve: address, port (0: a free one), TLS files or plain http."""

    address: str
    port: int
    insecure: bool = False
    cert_file: Path | None = None
    key_file: Path | None = None


class _Server(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield  # the controller manager handles SIGTERM/SIGINT itself


class ServedApp:
    """A bound socket and the uvicorn server for it; ``serve`` runs until ``stop``."""

    def __init__(self, app: ASGIApp, listener: Listener) -> None:
        self._directory: tempfile.TemporaryDirectory[str] | None = None
        cert, key = listener.cert_file, listener.key_file
        if not listener.insecure and (cert is None or key is None):
            self._directory = tempfile.TemporaryDirectory(prefix="podscale-serving-")
            names = {listener.address} if listener.address not in ("", "0.0.0.0", "::") else set()
            files = ensure_certificates(
                Path(self._directory.name), names | {socket.gethostname()}, now=datetime.now(UTC)
            )
            cert, key = files.server_cert, files.server_key
        self.socket = bind_socket(listener.address, listener.port)
        self.port = int(self.socket.getsockname()[1])
        self.scheme = "http" if listener.insecure else "https"
        config = uvicorn.Config(
            app,
            http=HTTP_PROTOCOL,
            ws="none",
            lifespan="off",
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=1,
            ssl_certfile=None if listener.insecure else str(cert),
            ssl_keyfile=None if listener.insecure else str(key),
        )
        self._server = _Server(config)

    async def serve(self) -> None:
        try:
            await self._server.serve(sockets=[self.socket])
        finally:
            self.close()

    def stop(self) -> None:
        self._server.should_exit = True

    def close(self) -> None:
        self.socket.close()
        if self._directory is not None:
            self._directory.cleanup()
            self._directory = None


def serve_app(app: ASGIApp, listener: Listener) -> ServedApp:
    """Bind ``listener`` now (so a busy port fails at start) and return the server."""
    return ServedApp(app, listener)
