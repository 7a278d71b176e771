"""What ``HttpApi`` hands httpx for a connection's TLS settings (``podscale.client.tls_context``):
CA and client certificates from files or inline PEM data, insecure mode, tls-server-name."""

from __future__ import annotations

import ssl
from datetime import UTC, datetime
from pathlib import Path

import pytest

from podscale.apiserver.auth.tls import TlsFiles, ensure_certificates
from podscale.client.connection import Connection
from podscale.client.tls_context import ssl_verify, tls_extensions

SERVER = "https://127.0.0.1:6443"


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> TlsFiles:
    # A real CA and a certificate with its key: ssl refuses to load made-up PEM.
    directory = tmp_path_factory.mktemp("pki")
    return ensure_certificates(directory, set(), now=datetime.now(UTC))


def ca_count(verify: bool | ssl.SSLContext) -> int:
    assert isinstance(verify, ssl.SSLContext)
    return sum(1 for cert in verify.get_ca_certs() if cert)


def test_plain_verification_uses_the_system_store() -> None:
    assert ssl_verify(Connection(SERVER)) is True
    assert ssl_verify(Connection(SERVER, verify=False)) is False


@pytest.mark.parametrize("inline", [False, True], ids=["files", "data"])
def test_ca_and_client_certificate(pki: TlsFiles, inline: bool) -> None:
    if inline:
        connection = Connection(
            SERVER,
            ca_data=pki.ca_pem,
            cert_data=pki.server_cert.read_bytes(),
            key_data=pki.server_key.read_bytes(),
        )
    else:
        connection = Connection(
            SERVER,
            ca_file=str(pki.ca_cert),
            cert_file=str(pki.server_cert),
            key_file=str(pki.server_key),
        )
    context = ssl_verify(connection)
    assert ca_count(context) == 1
    assert isinstance(context, ssl.SSLContext)
    assert context.verify_mode == ssl.CERT_REQUIRED


def test_inline_key_that_does_not_match_fails(pki: TlsFiles) -> None:
    wrong = Connection(SERVER, cert_data=pki.ca_pem, key_data=pki.server_key.read_bytes())
    with pytest.raises(ssl.SSLError):
        ssl_verify(wrong)


def test_insecure_still_presents_a_client_certificate(pki: TlsFiles) -> None:
    connection = Connection(
        SERVER, verify=False, cert_file=str(pki.server_cert), key_file=str(pki.server_key)
    )
    context = ssl_verify(connection)
    assert isinstance(context, ssl.SSLContext)
    assert (context.verify_mode, context.check_hostname) == (ssl.CERT_NONE, False)


def test_tls_server_name_is_the_sni_name() -> None:
    assert tls_extensions(Connection(SERVER)) == {}
    named = Connection(SERVER, tls_server_name="api.internal")
    assert tls_extensions(named) == {"sni_hostname": "api.internal"}


def test_no_certificate_is_left_on_disk(
    pki: TlsFiles, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    ssl_verify(
        Connection(
            SERVER, cert_data=pki.server_cert.read_bytes(), key_data=pki.server_key.read_bytes()
        )
    )
    assert list(tmp_path.iterdir()) == []
