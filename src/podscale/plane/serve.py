"""``podscale up``: assembling and running the embedded control plane.

Plain functions the CLI (``podscale.cli.main``) calls after parsing arguments:
``assemble_control_plane`` prepares the private data directory and the bearer token
(``files``), opens the SQLite store, builds the API server app
(``podscale.apiserver.http.app.create_app``) and wraps it in the ``AccessGuard``
(``podscale.apiserver.auth.access``); ``UpOptions`` and ``ControlPlane`` are in ``options``;
``run_control_plane`` runs uvicorn and the embedded controllers (``workloads``) on one
event loop, writes the kubeconfig once
uvicorn accepts connections, tells the user how to point kubectl at it, serves until
SIGINT/SIGTERM and always closes the store. Every setup failure surfaces as
``ControlPlaneError`` with a message fit for the terminal. The token goes only into the
0600 kubeconfig and token files: it is never printed or logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
import threading
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Final

import uvicorn
from starlette.types import ASGIApp

from podscale.apiserver.audit.middleware import AuditMiddleware
from podscale.apiserver.audit.writer import AuditLog
from podscale.apiserver.auth.access import LOOPBACK_HOSTS, AccessGuard
from podscale.apiserver.auth.tls import ensure_certificates
from podscale.apiserver.discovery import version_info
from podscale.apiserver.http.app import create_app
from podscale.apiserver.http.fairness import shorten_switch_interval
from podscale.apiserver.http.server import HTTP_PROTOCOL, bind_socket
from podscale.apiserver.registry.bootstrap import ensure_system_namespaces
from podscale.client.inprocess import InProcessApi
from podscale.plane.files import (
    ControlPlaneError,
    check_bind,
    load_or_create_token,
    prepare_data_dir,
    write_kubeconfig,
)
from podscale.plane.options import ControlPlane, UpOptions
from podscale.plane.workloads import (
    BuildWorkloads,
    DriveWorkloads,
    build_workloads,
    serve_with_workloads,
)
from podscale.runtime.collector import long_lived_heap
from podscale.store.clock import SystemClock
from podscale.store.errors import BackendError
from podscale.store.sqlite import SqliteStore

__all__ = [
    "ControlPlane",
    "UpOptions",
    "allowed_hosts",
    "assemble_control_plane",
    "client_url",
    "run_control_plane",
    "usage_lines",
]

STORE_FILE: Final = "store.db"
# Wildcard binds listen on loopback too; the kubeconfig must name an address one can dial.
_WILDCARDS: Final = frozenset({"0.0.0.0", "::", "[::]", ""})
# Open watches would otherwise hold a shutdown until their clients go away.
_GRACEFUL_SHUTDOWN_SECONDS: Final = 2


def allowed_hosts(host: str) -> frozenset[str]:
    """Host header values the guard accepts: loopback names plus the bind address itself
    (bracketed when it is an IPv6 literal, as it appears in a Host header)."""
    bare = host.strip("[]").lower()
    extra = {f"[{bare}]" if ":" in bare else bare} if bare not in _WILDCARDS else set()
    return frozenset(LOOPBACK_HOSTS | extra)


def client_url(host: str, port: int, *, tls: bool = False) -> str:
    """The ``http(s)://HOST:PORT`` clients should dial for a server bound to ``host``."""
    bare = host.strip("[]")
    if bare in _WILDCARDS:
        bare = "::1" if ":" in host else "127.0.0.1"
    scheme = "https" if tls else "http"
    return f"{scheme}://[{bare}]:{port}" if ":" in bare else f"{scheme}://{bare}:{port}"


def assemble_control_plane(options: UpOptions) -> ControlPlane:
    """Prepare the data dir and token, open the store, build the guarded app.

    Raises ``ControlPlaneError`` (policy or storage problems) and leaves nothing open then.
    """
    authenticated = options.auth
    check_bind(
        options.host.strip("[]"),
        authenticated=authenticated,
        tls=options.use_tls,
        allow_plaintext=options.insecure_allow_plaintext,
    )
    try:
        data_dir = prepare_data_dir(options.data_dir)
        token = load_or_create_token(data_dir) if authenticated else None
    except OSError as err:
        raise ControlPlaneError(
            f"cannot prepare the data directory {options.data_dir}: {err.strerror or err}"
        ) from None
    clock = SystemClock()
    tls = None
    if options.use_tls:
        bare = options.host.strip("[]").lower()
        names = set() if bare in _WILDCARDS else {bare}
        try:
            tls = ensure_certificates(data_dir, names, now=clock.now())
        except (OSError, ValueError) as err:
            raise ControlPlaneError(
                f"cannot prepare TLS certificates in {data_dir}: {err}"
            ) from None
    try:
        store = SqliteStore(data_dir / STORE_FILE, clock)
    except BackendError as err:
        raise ControlPlaneError(f"cannot open the store in {data_dir}: {err}") from None
    versions = (
        version_info(f"v1.{options.report_minor}.0")
        if options.report_minor is not None
        else version_info()
    )
    try:
        ensure_system_namespaces(store)
        app = create_app(
            store,
            clock=clock,
            feature_gates=options.feature_gates,
            version_info=versions,
            service_network=options.service_network,
        )
    except BaseException:
        store.close()
        raise
    guarded: ASGIApp = AccessGuard(app, token=token, allowed_hosts=allowed_hosts(options.host))
    audit = _open_audit_log(options, store)
    if audit is not None:
        now = clock.now
        guarded = AuditMiddleware(guarded, audit, now=now, authenticated=token is not None)
    api = InProcessApi.for_app(app)
    return ControlPlane(
        options=options, store=store, app=guarded, token=token, tls=tls, api=api, audit=audit
    )


def _open_audit_log(options: UpOptions, store: SqliteStore) -> AuditLog | None:
    """The audit log ``--audit-log-path`` asks for (None without it); closes ``store`` and
    raises ``ControlPlaneError`` when the file cannot be opened."""
    if options.audit_log_path is None:
        return None
    try:
        return AuditLog(
            options.audit_log_path,
            max_bytes=options.audit_log_maxsize * 1024 * 1024,
            max_backups=options.audit_log_maxbackup,
        )
    except OSError as err:
        store.close()
        raise ControlPlaneError(
            f"cannot open the audit log {options.audit_log_path}: {err.strerror or err}"
        ) from None


def usage_lines(url: str, kubeconfig: Path, *, authenticated: bool) -> list[str]:
    """What ``podscale up`` prints once it serves (never the token itself)."""
    auth = "bearer token in the kubeconfig" if authenticated else "NO authentication"
    lines = [
        f"podscale control plane serving on {url} ({auth})",
        f"kubeconfig written to {kubeconfig}",
        "Point kubectl at it:",
        f"  export KUBECONFIG={kubeconfig}",
        "  kubectl get hpa",
    ]
    if authenticated and url.startswith("http://"):
        # client-go (clientcmd.DirectClientConfig.ClientConfig) reads credentials only for
        # TLS transports, so kubectl never sends the token to an http:// server.
        lines.append(
            "note: kubectl sends bearer tokens only over https; on plain http it gets 401 "
            "(use --no-auth on a loopback address for kubectl)"
        )
    lines.append("Press Ctrl-C to stop.")
    return lines


class _Server(uvicorn.Server):
    """uvicorn that reports when it accepts connections and turns SIGINT/SIGTERM into a
    graceful exit, instead of re-raising them afterwards (which would kill the process
    before the store is closed)."""

    def __init__(self, config: uvicorn.Config, on_started: Callable[[], None]) -> None:
        super().__init__(config)
        self._on_started = on_started
        self.stop_signal: str | None = None

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started and not self.should_exit:
            self._on_started()

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return

        def stop(signum: int, _frame: object) -> None:
            if self.should_exit:  # a second Ctrl-C: stop waiting for open connections
                self.force_exit = True
            self.stop_signal = signal.Signals(signum).name
            self.should_exit = True

        handled = (signal.SIGINT, signal.SIGTERM)
        previous = {sig: signal.signal(sig, stop) for sig in handled}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def run_control_plane(
    plane: ControlPlane,
    *,
    announce: Callable[[str], None],
    build: BuildWorkloads = build_workloads,
    drive: DriveWorkloads | None = None,
) -> str | None:
    """Serve ``plane`` until a stop signal; returns that signal's name (None if uvicorn
    stopped by itself, e.g. because ``drive`` finished). Writes the kubeconfig and calls
    ``announce`` per usage line once the server accepts connections. ``build``/``drive``
    choose what runs next to the server (``workloads.serve_with_workloads``). The store is
    closed on every path out."""
    options = plane.options
    try:
        try:
            sock = bind_socket(options.host.strip("[]"), options.port)
        except OSError as err:
            raise ControlPlaneError(
                f"cannot listen on {options.host}:{options.port}: {err.strerror or err}"
            ) from None
        port = int(sock.getsockname()[1])
        url = client_url(options.host, port, tls=plane.tls is not None)
        kubeconfig = options.kubeconfig_path

        failures: list[str] = []

        def on_started() -> None:
            try:
                write_kubeconfig(
                    kubeconfig,
                    server=url,
                    token=plane.token,
                    certificate_authority=plane.tls.ca_pem if plane.tls else None,
                )
            except OSError as err:
                failures.append(f"cannot write the kubeconfig {kubeconfig}: {err.strerror or err}")
                server.should_exit = True
                return
            for line in usage_lines(url, kubeconfig, authenticated=plane.token is not None):
                announce(line)

        shorten_switch_interval()  # heavy requests run on a thread (``fairness``)
        config = uvicorn.Config(
            plane.app,
            http=HTTP_PROTOCOL,
            ws="none",
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=_GRACEFUL_SHUTDOWN_SECONDS,
            lifespan="off",
            ssl_certfile=str(plane.tls.server_cert) if plane.tls else None,
            ssl_keyfile=str(plane.tls.server_key) if plane.tls else None,
        )
        server = _Server(config, on_started)
        try:
            # uvicorn's own run() with its loop choice (uvloop when installed), plus the
            # controllers on the same loop.
            get_factory = getattr(config, "get_loop_factory", None)
            # The assembled plane is long-lived: keep the cyclic collector off it.
            with (
                long_lived_heap(),
                asyncio.Runner(loop_factory=get_factory() if get_factory else None) as runner,
            ):
                runner.run(
                    serve_with_workloads(server, sock, plane, failures, build=build, drive=drive)
                )
        finally:
            sock.close()
        if failures:
            raise ControlPlaneError(failures[0])
        return server.stop_signal
    finally:
        plane.store.close()
        if plane.audit is not None:
            plane.audit.close()
