"""Connection settings from a kubeconfig: server, credentials and TLS.

Kubeconfig handling (contexts, token files, client certificates, CA data, exec plugins,
``KUBECONFIG`` lists) is delegated to the official ``kubernetes`` package's loader, the
well-kept implementation of that format; this module only extracts what
``podscale.client.http`` needs.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Connection", "connection_from_kubeconfig"]


@dataclass(frozen=True, slots=True)
class Connection:
    """Where the API server is and how to authenticate to it."""

    server: str
    authorization: str | None = None  # the full header value, e.g. "Bearer <token>"
    verify: bool = True
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None


def connection_from_kubeconfig(path: str | None = None, context: str | None = None) -> Connection:
    """Load ``context`` (default: the current one) from ``path`` (default: ``$KUBECONFIG``
    or ``~/.kube/config``). Raises ``kubernetes.config.ConfigException`` with the
    loader's message when the file or context is unusable."""
    # Imported here, when a kubeconfig is read: the package takes ~0.2 s to import (it
    # loads the whole generated client), which every command that reads no kubeconfig saves.
    from kubernetes import client as k8s_client
    from kubernetes import config as k8s_config

    configuration = k8s_client.Configuration()
    # The official client ships without type hints; its loader is the point of using it.
    k8s_config.load_kube_config(  # type: ignore[no-untyped-call]
        config_file=path,
        context=context,
        client_configuration=configuration,
        persist_config=False,
    )
    authorization = None
    if configuration.api_key:
        authorization = next(iter(configuration.api_key.values()))
        prefix = next(iter(configuration.api_key_prefix.values()), None)
        if prefix and not authorization.startswith(prefix):
            authorization = f"{prefix} {authorization}"
    return Connection(
        server=configuration.host.rstrip("/"),
        authorization=authorization,
        verify=bool(configuration.verify_ssl),
        ca_file=configuration.ssl_ca_cert,
        cert_file=configuration.cert_file,
        key_file=configuration.key_file,
    )
