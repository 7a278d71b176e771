"""The embedded control plane's files and policies: data directory, token, kubeconfig.

``podscale up`` (``podscale.cli.main``) keeps everything under one data directory,
created private (0700) and refused when others can write to it: the SQLite database, the
bearer token (0600) and a kubeconfig (0600) that both kubectl and podscale use. An existing
directory others can read is tightened to 0700 when it holds only podscale's own files, and
refused otherwise (chmod-ing someone's shared directory would break it for others). Binding
anything but loopback requires authentication, and with it TLS (a token sent over plain http
to a network address is readable by anyone on the path) unless explicitly allowed.
``podscale.plane.serve`` assembles the store, the API server app and the ``AccessGuard``
around these.
"""

from __future__ import annotations

import base64
import ipaddress
import os
import stat
from pathlib import Path
from typing import Any

import yaml

from podscale.apiserver.auth.access import new_token

__all__ = [
    "ControlPlaneError",
    "check_bind",
    "default_data_dir",
    "load_or_create_token",
    "prepare_data_dir",
    "write_kubeconfig",
]


class ControlPlaneError(Exception):
    """A setup problem the user must fix; the message says what and where."""


def default_data_dir() -> Path:
    """``$PODSCALE_HOME``, else ``$XDG_DATA_HOME/podscale``, else ``~/.local/share/podscale``."""
    if home := os.environ.get("PODSCALE_HOME"):
        return Path(home)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "podscale"


# What podscale keeps in its data directory (with SQLite's -wal/-shm and our .tmp files).
_OWN_ENTRIES = ("store.db", "pushed-metrics.db", "history.db", "token", "kubeconfig", "tls")


def _only_podscale_files(path: Path) -> bool:
    return all(entry.name.startswith(_OWN_ENTRIES) for entry in path.iterdir())


def prepare_data_dir(path: Path) -> Path:
    """Create ``path`` with mode 0700 if missing; refuse a directory others may write to;
    tighten one others may read to 0700 if it holds only podscale's files, else refuse it."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise ControlPlaneError(
            f"refusing to use {path}: it is writable by other users (mode {mode:o}); "
            "use a private directory (chmod 700)"
        )
    if mode & 0o077:
        # The token and the TLS key live here: nobody else may even list the directory.
        if not _only_podscale_files(path):
            raise ControlPlaneError(
                f"refusing to use {path}: other users can read it (mode {mode:o}) and it holds "
                "files podscale did not create; make it private (chmod 700) or choose "
                "another --data-dir"
            )
        path.chmod(0o700)
    return path


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` readable by the owner only, replacing it atomically."""
    temporary = path.with_name(path.name + ".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.chmod(temporary, 0o600)
    os.replace(temporary, path)


def load_or_create_token(data_dir: Path) -> str:
    """The control plane's bearer token, generated once and kept in ``data_dir/token``."""
    path = data_dir / "token"
    if path.exists():
        token = path.read_text(encoding="utf-8").strip()
        if token:
            return token
    token = new_token()
    _write_private(path, token + "\n")
    return token


def write_kubeconfig(
    path: Path,
    *,
    server: str,
    token: str | None,
    name: str = "podscale",
    certificate_authority: bytes | None = None,
) -> None:
    """A standalone kubeconfig (mode 0600) for ``server`` with ``token``, as kubectl reads it.

    ``certificate_authority`` (PEM) is embedded as ``certificate-authority-data`` so clients
    verify an https server against podscale's own CA.
    """
    user: dict[str, Any] = {"token": token} if token else {}
    cluster: dict[str, Any] = {"server": server}
    if certificate_authority is not None:
        cluster["certificate-authority-data"] = base64.b64encode(certificate_authority).decode()
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": name, "cluster": cluster}],
        "users": [{"name": name, "user": user}],
        "contexts": [
            {"name": name, "context": {"cluster": name, "user": name, "namespace": "default"}}
        ],
        "current-context": name,
        "preferences": {},
    }
    _write_private(path, yaml.safe_dump(config, sort_keys=False))


def is_loopback(host: str) -> bool:
    if host in ("localhost", ""):
        return host == "localhost"
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(
    host: str, *, authenticated: bool, tls: bool = True, allow_plaintext: bool = False
) -> None:
    """Refuse to expose an unauthenticated server beyond this machine, and to send its
    bearer token over plain http beyond it unless ``allow_plaintext``."""
    if not authenticated and not is_loopback(host):
        raise ControlPlaneError(
            f"refusing to bind {host} without authentication: only loopback addresses "
            "(127.0.0.1, ::1) may run without a token"
        )
    if authenticated and not tls and not allow_plaintext and not is_loopback(host):
        raise ControlPlaneError(
            f"refusing to serve {host} over plain http: every client request would carry the "
            "bearer token in clear text across the network, where anyone on the path can read "
            "and reuse it; serve TLS (drop --no-tls) or, if the network is trusted, pass "
            "--insecure-allow-plaintext"
        )
