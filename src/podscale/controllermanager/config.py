"""Where the controller manager's API server is: a kubeconfig, else the pod's service account.

kube-controller-manager builds its client from ``--kubeconfig`` and, without one, from
client-go's ``rest.InClusterConfig``: ``https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT``,
the service account token at ``/var/run/secrets/kubernetes.io/serviceaccount/token`` as a
bearer token, and the ``ca.crt`` beside it as the trust root. Without the two variables it
fails with client-go's ``ErrNotInCluster`` text. The token is projected and rotated by the
kubelet, so client-go reads it through a cached file token source that re-reads the file
at most once a minute (keeping the last good token when a read fails); ``TokenFileAuth``
does that as an httpx transport around the real one, since ``podscale.client.http.HttpApi``
sends a fixed ``Authorization`` header otherwise.

``load_config`` picks the source (``--kubeconfig``/``--context`` through
``podscale.client.kubeconfig``, else in-cluster); ``open_api`` makes the ``HttpApi``.
Paths, the environment and the time are injectable, for tests.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import httpx

from podscale.client.connection import Connection, KubeconfigError
from podscale.client.http import HttpApi
from podscale.client.kubeconfig import load_kubeconfig
from podscale.client.tls_context import ssl_verify

__all__ = [
    "NOT_IN_CLUSTER",
    "SERVICE_ACCOUNT_DIR",
    "ClusterConfig",
    "ConfigError",
    "TokenFileAuth",
    "in_cluster_config",
    "load_config",
    "open_api",
]

SERVICE_ACCOUNT_DIR: Final = Path("/var/run/secrets/kubernetes.io/serviceaccount")
# client-go's rest.ErrNotInCluster.
NOT_IN_CLUSTER: Final = (
    "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and "
    "KUBERNETES_SERVICE_PORT must be defined"
)
# client-go's cached file token source re-reads the token at most this often.
TOKEN_REFRESH_SECONDS: Final = 60.0


class ConfigError(Exception):
    """No usable connection; the message is client-go's or kubectl's where they have one."""


@dataclass(frozen=True, slots=True)
class ClusterConfig:
    """The connection, the namespace the source names (the pod's, in a cluster) and the
    token file to keep re-reading (in-cluster only)."""

    connection: Connection
    namespace: str | None = None
    token_file: Path | None = None


def in_cluster_config(
    environ: Mapping[str, str] | None = None, directory: Path = SERVICE_ACCOUNT_DIR
) -> ClusterConfig:
    """client-go's ``rest.InClusterConfig`` from ``environ`` and the service account files
    in ``directory``; ``ConfigError`` outside a cluster or without a readable token."""
    env = os.environ if environ is None else environ
    host, port = env.get("KUBERNETES_SERVICE_HOST", ""), env.get("KUBERNETES_SERVICE_PORT", "")
    if not host or not port:
        raise ConfigError(NOT_IN_CLUSTER)
    token_file = directory / "token"
    token = _read_token(token_file)
    # Go's net.JoinHostPort brackets IPv6 literals.
    authority = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    ca_file = directory / "ca.crt"
    namespace_file = directory / "namespace"
    namespace = None
    if namespace_file.is_file():
        namespace = namespace_file.read_text(encoding="utf-8").strip() or None
    connection = Connection(
        server=f"https://{authority}",
        authorization=f"Bearer {token}",
        # client-go logs a CA it cannot load and goes on with the system roots.
        ca_file=str(ca_file) if ca_file.is_file() else None,
    )
    return ClusterConfig(connection, namespace, token_file)


def _read_token(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError as err:
        raise ConfigError(f"open {path}: {(err.strerror or str(err)).lower()}") from None


def load_config(
    kubeconfig: str | None,
    context: str | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    directory: Path = SERVICE_ACCOUNT_DIR,
) -> ClusterConfig:
    """``--kubeconfig`` (with ``--context``) when given, else the in-cluster config, as
    kube-controller-manager chooses (it does not read ``$KUBECONFIG``)."""
    if kubeconfig:
        try:
            selection = load_kubeconfig(kubeconfig, context, environ={})
        except KubeconfigError as err:
            raise ConfigError(str(err)) from None
        return ClusterConfig(selection.connection, selection.namespace)
    if context:
        raise ConfigError("--context needs --kubeconfig")
    return in_cluster_config(environ, directory)


class TokenFileAuth(httpx.AsyncBaseTransport):
    """Sends the bearer token of ``token_file``, re-read at most every ``refresh`` seconds
    (a failed read keeps the last token, as client-go's cached token source does)."""

    def __init__(
        self,
        inner: httpx.AsyncBaseTransport,
        token_file: Path,
        *,
        refresh: float = TOKEN_REFRESH_SECONDS,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._inner = inner
        self._file = token_file
        self._refresh = refresh
        self._monotonic = monotonic
        self._token = _read_token(token_file)
        self._read_at = monotonic()

    def token(self) -> str:
        now = self._monotonic()
        if now - self._read_at >= self._refresh:
            # A failed read keeps the last good token until the file reads again.
            with contextlib.suppress(ConfigError):
                self._token = _read_token(self._file)
            self._read_at = now
        return self._token

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        request.headers["Authorization"] = f"Bearer {self.token()}"
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


def open_api(
    config: ClusterConfig, *, qps: float, burst: int, user_agent: str = "podscale"
) -> HttpApi:
    """The ``HttpApi`` of ``config`` with client-go's client-side rate limit
    (``--kube-api-qps``/``--kube-api-burst``, kube-controller-manager's 20/30 by default;
    a negative qps turns it off, as client-go's), sending ``user_agent``."""
    transport: httpx.AsyncBaseTransport | None = None
    if config.token_file is not None:
        inner = httpx.AsyncHTTPTransport(verify=ssl_verify(config.connection))
        transport = TokenFileAuth(inner, config.token_file)
    return HttpApi(
        config.connection, transport=transport, qps=qps, burst=burst, user_agent=user_agent
    )
