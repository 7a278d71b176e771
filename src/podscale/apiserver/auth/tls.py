"""TLS for the embedded API server: a private CA and a server certificate, kept on disk.

kubectl sends bearer tokens only over TLS (client-go reads credentials only for TLS
transports), so an authenticated ``podscale up`` serves https. The first start creates a CA
and a server certificate for ``localhost``, ``127.0.0.1``, ``::1`` and the bind address
under ``DATA_DIR/tls`` (keys 0600); later starts reuse them while they cover the needed
names and stay valid for at least ``RENEW_BEFORE``. The CA goes into the kubeconfig
(``certificate-authority-data``) so clients verify the server instead of skipping checks.
Python's default server context refuses TLS below 1.2.
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Final

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

__all__ = ["RENEW_BEFORE", "TlsFiles", "ensure_certificates"]

CA_LIFETIME: Final = timedelta(days=3650)
SERVER_LIFETIME: Final = timedelta(days=365)
RENEW_BEFORE: Final = timedelta(days=30)


@dataclass(frozen=True, slots=True)
class TlsFiles:
    """Paths uvicorn serves with, and the CA certificate (PEM) for the kubeconfig."""

    server_cert: Path
    server_key: Path
    ca_cert: Path
    ca_pem: bytes


def _write(path: Path, data: bytes, mode: int) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)
    os.chmod(path, mode)


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _names(hosts: set[str]) -> list[x509.GeneralName]:
    names: list[x509.GeneralName] = []
    for host in sorted(hosts):
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            names.append(x509.DNSName(host))
    return names


def _covers(cert: x509.Certificate, hosts: set[str], now: datetime) -> bool:
    if cert.not_valid_after_utc - RENEW_BEFORE < now:
        return False
    try:
        sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return False
    present = {str(ip) for ip in sans.get_values_for_type(x509.IPAddress)}
    present |= set(sans.get_values_for_type(x509.DNSName))
    return hosts <= present


def _new_ca(now: datetime) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "podscale-ca")])
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + CA_LIFETIME)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(key, hashes.SHA256())
    )
    return key, cert


def _new_server(
    ca_key: ec.EllipticCurvePrivateKey, ca_cert: x509.Certificate, hosts: set[str], now: datetime
) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "podscale-apiserver")]))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + SERVER_LIFETIME)
        .add_extension(x509.SubjectAlternativeName(_names(hosts)), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    return key, cert


def ensure_certificates(data_dir: Path, hosts: set[str], *, now: datetime) -> TlsFiles:
    """The CA and server certificate under ``data_dir/tls``, created or renewed as needed."""
    tls_dir = data_dir / "tls"
    tls_dir.mkdir(mode=0o700, exist_ok=True)
    ca_cert_path, ca_key_path = tls_dir / "ca.crt", tls_dir / "ca.key"
    cert_path, key_path = tls_dir / "server.crt", tls_dir / "server.key"
    wanted = {"localhost", "127.0.0.1", "::1"} | hosts
    ca_cert: x509.Certificate | None = None
    if ca_cert_path.exists() and ca_key_path.exists():
        candidate = x509.load_pem_x509_certificate(ca_cert_path.read_bytes())
        if candidate.not_valid_after_utc - RENEW_BEFORE >= now:
            ca_cert = candidate
    if ca_cert is None:
        ca_key, ca_cert = _new_ca(now)
        _write(ca_key_path, _key_pem(ca_key), 0o600)
        _write(ca_cert_path, ca_cert.public_bytes(serialization.Encoding.PEM), 0o644)
        for stale in (cert_path, key_path):
            stale.unlink(missing_ok=True)
    server_ok = cert_path.exists() and key_path.exists()
    if server_ok:
        server_ok = _covers(x509.load_pem_x509_certificate(cert_path.read_bytes()), wanted, now)
    if not server_ok:
        loaded = serialization.load_pem_private_key(ca_key_path.read_bytes(), password=None)
        if not isinstance(loaded, ec.EllipticCurvePrivateKey):
            raise ValueError(f"{ca_key_path} is not the EC key podscale created")
        key, cert = _new_server(loaded, ca_cert, wanted, now)
        _write(key_path, _key_pem(key), 0o600)
        _write(cert_path, cert.public_bytes(serialization.Encoding.PEM), 0o644)
    return TlsFiles(cert_path, key_path, ca_cert_path, ca_cert_path.read_bytes())
