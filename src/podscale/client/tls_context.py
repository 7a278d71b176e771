"""The TLS side of a ``Connection``: what ``podscale.client.http.HttpApi`` hands httpx.

A kubeconfig gives the CA and the client certificate as files or as PEM data
(``podscale.client.kubeconfig_reader``). ``ssl`` takes CA data directly, but a certificate
chain only from files, so inline client certificates pass through a private temporary
directory that is gone before the context is returned (the key stays in memory only).
"""

from __future__ import annotations

import os
import ssl
import tempfile

from podscale.client.connection import Connection

__all__ = ["ssl_verify", "tls_extensions"]


def _load_inline_chain(context: ssl.SSLContext, cert: bytes, key: bytes | None) -> None:
    with tempfile.TemporaryDirectory(prefix="podscale-tls-") as directory:
        cert_path = os.path.join(directory, "client.crt")
        key_path = os.path.join(directory, "client.key") if key is not None else None
        for path, content in ((cert_path, cert), (key_path, key)):
            if path is not None and content is not None:
                # 0600 from the start: the key is never readable by others, even briefly.
                descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(descriptor, "wb") as handle:
                    handle.write(content)
        context.load_cert_chain(cert_path, key_path)


def ssl_verify(connection: Connection) -> bool | ssl.SSLContext:
    """httpx's ``verify``: ``False`` (insecure), ``True`` (system CAs) or a context with
    the kubeconfig's CA and client certificate."""
    has_ca = connection.ca_file or connection.ca_data
    has_cert = connection.cert_file or connection.cert_data
    if not connection.verify:
        if not has_cert:
            return False
        # Insecure still presents a client certificate, as kubectl does.
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    elif has_ca or has_cert:
        cadata = connection.ca_data.decode("ascii") if connection.ca_data else None
        context = ssl.create_default_context(cafile=connection.ca_file, cadata=cadata)
    else:
        return True
    if connection.cert_data is not None:
        _load_inline_chain(context, connection.cert_data, connection.key_data)
    elif connection.cert_file:
        key_data = connection.key_data
        if key_data is not None:  # a certificate file with an inline key
            with open(connection.cert_file, "rb") as handle:
                _load_inline_chain(context, handle.read(), key_data)
        else:
            context.load_cert_chain(connection.cert_file, connection.key_file)
    return context


def tls_extensions(connection: Connection) -> dict[str, str]:
    """Per-request httpx extensions: ``tls-server-name`` becomes the SNI name, which is
    also the name the server's certificate is checked against (client-go's ServerName)."""
    if connection.tls_server_name:
        return {"sni_hostname": connection.tls_server_name}
    return {}
