"""The control plane's private CA and server certificate."""

from __future__ import annotations

import ssl
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

import uvicorn.config
from cryptography import x509

from podscale.apiserver.auth.tls import SERVER_LIFETIME, ensure_certificates

NOW = datetime(2026, 11, 22, 10, tzinfo=UTC)


def sans(path: Path) -> set[str]:
    cert = x509.load_pem_x509_certificate(path.read_bytes())
    ext = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    return {str(ip) for ip in ext.get_values_for_type(x509.IPAddress)} | set(
        ext.get_values_for_type(x509.DNSName)
    )


def test_certificates_cover_loopback_and_the_bind_host(tmp_path: Path) -> None:
    files = ensure_certificates(tmp_path, {"10.1.2.3", "podscale.local"}, now=NOW)
    assert sans(files.server_cert) == {
        "localhost",
        "127.0.0.1",
        "::1",
        "10.1.2.3",
        "podscale.local",
    }
    assert stat.S_IMODE(files.server_key.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "tls" / "ca.key").stat().st_mode) == 0o600
    assert files.ca_pem.startswith(b"-----BEGIN CERTIFICATE-----")


def test_server_certificate_is_signed_by_the_ca(tmp_path: Path) -> None:
    files = ensure_certificates(tmp_path, set(), now=NOW)
    ca = x509.load_pem_x509_certificate(files.ca_pem)
    server = x509.load_pem_x509_certificate(files.server_cert.read_bytes())
    server.verify_directly_issued_by(ca)
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca is True


def test_certificates_are_reused_then_renewed(tmp_path: Path) -> None:
    first = ensure_certificates(tmp_path, set(), now=NOW)
    before = first.server_cert.read_bytes()
    assert (
        ensure_certificates(tmp_path, set(), now=NOW + timedelta(days=1)).server_cert.read_bytes()
        == before
    )
    # A new bind address, or an expiry within 30 days, issues a new server certificate
    # under the same CA.
    assert ensure_certificates(tmp_path, {"192.0.2.7"}, now=NOW).server_cert.read_bytes() != before
    late = NOW + SERVER_LIFETIME - timedelta(days=10)
    renewed = ensure_certificates(tmp_path, {"192.0.2.7"}, now=late)
    assert renewed.ca_pem == first.ca_pem
    cert = x509.load_pem_x509_certificate(renewed.server_cert.read_bytes())
    assert cert.not_valid_after_utc > late + timedelta(days=300)


def test_served_tls_refuses_versions_below_1_2(tmp_path: Path) -> None:
    files = ensure_certificates(tmp_path, set(), now=datetime.now(UTC))
    context = uvicorn.config.create_ssl_context(
        certfile=str(files.server_cert),
        keyfile=str(files.server_key),
        password=None,
        ssl_version=uvicorn.config.SSL_PROTOCOL_VERSION,
        cert_reqs=ssl.CERT_NONE,
        ca_certs=None,
        ciphers="TLSv1",  # uvicorn.Config's default ssl_ciphers
    )
    assert context.minimum_version >= ssl.TLSVersion.TLSv1_2
