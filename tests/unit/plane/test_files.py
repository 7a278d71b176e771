"""Control-plane files: private data directory, token, kubeconfig; the bind policy."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
import yaml

from podscale.plane.files import (
    ControlPlaneError,
    check_bind,
    load_or_create_token,
    prepare_data_dir,
    write_kubeconfig,
)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_data_dir_is_created_private(tmp_path: Path) -> None:
    data = prepare_data_dir(tmp_path / "a" / "podscale")
    assert mode(data) == 0o700


def test_world_writable_data_dir_is_refused(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(ControlPlaneError, match="writable by other users"):
        prepare_data_dir(shared)


def test_token_is_created_once_and_private(tmp_path: Path) -> None:
    first = load_or_create_token(tmp_path)
    assert load_or_create_token(tmp_path) == first
    assert mode(tmp_path / "token") == 0o600
    assert len(first) >= 43


def test_kubeconfig_points_kubectl_at_the_server(tmp_path: Path) -> None:
    path = tmp_path / "kubeconfig"
    write_kubeconfig(path, server="http://127.0.0.1:40123", token="abc")
    assert mode(path) == 0o600
    config = yaml.safe_load(path.read_text())
    assert config["current-context"] == "podscale"
    assert config["clusters"][0]["cluster"]["server"] == "http://127.0.0.1:40123"
    assert config["users"][0]["user"] == {"token": "abc"}
    assert config["contexts"][0]["context"]["namespace"] == "default"


@pytest.mark.parametrize(
    ("host", "authenticated", "allowed"),
    [
        ("127.0.0.1", False, True),
        ("::1", False, True),
        ("localhost", False, True),
        ("0.0.0.0", False, False),
        ("192.0.2.10", False, False),
        ("0.0.0.0", True, True),
    ],
    ids=["ipv4-loopback", "ipv6-loopback", "localhost", "any-open", "lan-open", "any-with-token"],
)
def test_bind_policy(host: str, authenticated: bool, allowed: bool) -> None:
    if allowed:
        check_bind(host, authenticated=authenticated)
    else:
        with pytest.raises(ControlPlaneError, match="without authentication"):
            check_bind(host, authenticated=authenticated)
