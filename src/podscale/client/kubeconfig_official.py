"""The fallback kubeconfig loader: the official ``kubernetes`` package's.

``podscale.client.kubeconfig`` calls ``official_selection`` only when
``podscale.client.kubeconfig_reader`` meets something it does not handle (``exec``
plugins, ``auth-provider`` tokens and the like): the package runs those plugins and
refreshes those tokens faithfully, but takes ~0.25 s to import (it loads the whole
generated client), so it is imported here, on use.
"""

from __future__ import annotations

from podscale.client.connection import Connection, KubeconfigError, Selection

__all__ = ["official_selection"]


def official_selection(config_files: str, context: str | None) -> Selection:
    """``context`` (default: the current one) from ``config_files`` (paths joined by
    ``os.pathsep``, as ``$KUBECONFIG``). ``KubeconfigError`` with the loader's message."""
    from kubernetes import client as k8s_client
    from kubernetes import config as k8s_config
    from kubernetes.config import kube_config

    configuration = k8s_client.Configuration()
    try:
        # The official client ships without type hints; its loader is the point of using it.
        k8s_config.load_kube_config(  # type: ignore[no-untyped-call]
            config_file=config_files,
            context=context,
            client_configuration=configuration,
            persist_config=False,
        )
        contexts, active = kube_config.list_kube_config_contexts(config_file=config_files)  # type: ignore[no-untyped-call]
    except k8s_config.ConfigException as err:
        raise KubeconfigError(str(err)) from None
    authorization = None
    if configuration.api_key:
        authorization = next(iter(configuration.api_key.values()))
        prefix = next(iter(configuration.api_key_prefix.values()), None)
        if prefix and not authorization.startswith(prefix):
            authorization = f"{prefix} {authorization}"
    chosen = active
    if context:
        chosen = next((c for c in contexts if c.get("name") == context), active)
    namespace = ((chosen or {}).get("context") or {}).get("namespace")
    connection = Connection(
        server=configuration.host.rstrip("/"),
        authorization=authorization,
        verify=bool(configuration.verify_ssl),
        ca_file=configuration.ssl_ca_cert,
        cert_file=configuration.cert_file,
        key_file=configuration.key_file,
        tls_server_name=getattr(configuration, "tls_server_name", None) or None,
    )
    return Selection(connection, str(namespace) if namespace else None)
