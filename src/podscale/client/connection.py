"""Connection settings for ``podscale.client.http.HttpApi``: server, credentials and TLS.

``podscale.client.kubeconfig`` builds them from kubeconfig files (through
``kubeconfig_reader`` or, for exec and auth-provider users, ``kubeconfig_official``);
``podscale.plane`` and tests build them directly. Plain values only: nothing here reads a file.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Connection", "KubeconfigError", "Selection"]


@dataclass(frozen=True, slots=True)
class Connection:
    """Where the API server is and how to authenticate to it.

    Certificates come as a file (``*_file``) or as PEM bytes (``*_data``, from the
    kubeconfig's ``*-data`` fields); the data wins when both are set, as in kubectl."""

    server: str
    authorization: str | None = None  # the full header value, e.g. "Bearer <token>"
    verify: bool = True
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    ca_data: bytes | None = None
    cert_data: bytes | None = None
    key_data: bytes | None = None
    tls_server_name: str | None = None  # the name the server's certificate is checked for


@dataclass(frozen=True, slots=True)
class Selection:
    """A kubeconfig context resolved: the connection and the context's namespace (if any)."""

    connection: Connection
    namespace: str | None = None


class KubeconfigError(Exception):
    """A kubeconfig that cannot be used; the message is kubectl's where kubectl has one."""
