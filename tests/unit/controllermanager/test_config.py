"""Where the controller manager connects: a kubeconfig, else client-go's in-cluster config."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from podscale.controllermanager.config import (
    NOT_IN_CLUSTER,
    ConfigError,
    TokenFileAuth,
    in_cluster_config,
    load_config,
)

KUBECONFIG = """\
apiVersion: v1
kind: Config
current-context: one
contexts:
- name: one
  context: {cluster: c1, user: u1, namespace: team}
- name: two
  context: {cluster: c2, user: u1}
clusters:
- name: c1
  cluster: {server: "https://one.example:6443"}
- name: c2
  cluster: {server: "https://two.example:6443", insecure-skip-tls-verify: true}
users:
- name: u1
  user: {token: secret-one}
"""


def service_account(tmp_path: Path, token: str = "sa-token\n") -> Path:
    directory = tmp_path / "serviceaccount"
    directory.mkdir()
    (directory / "token").write_text(token)
    (directory / "ca.crt").write_text("not parsed here")
    (directory / "namespace").write_text("podscale-system")
    return directory


def test_in_cluster_config_from_fake_files_and_environment(tmp_path: Path) -> None:
    directory = service_account(tmp_path)
    env = {"KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "443"}
    config = in_cluster_config(env, directory)
    assert config.connection.server == "https://10.0.0.1:443"
    assert config.connection.authorization == "Bearer sa-token"
    assert config.connection.ca_file == str(directory / "ca.crt")
    assert config.namespace == "podscale-system"
    assert config.token_file == directory / "token"


def test_an_ipv6_service_host_is_bracketed(tmp_path: Path) -> None:
    env = {"KUBERNETES_SERVICE_HOST": "fd00::1", "KUBERNETES_SERVICE_PORT": "443"}
    config = in_cluster_config(env, service_account(tmp_path))
    assert config.connection.server == "https://[fd00::1]:443"


@pytest.mark.parametrize(
    "env",
    [{}, {"KUBERNETES_SERVICE_HOST": "10.0.0.1"}, {"KUBERNETES_SERVICE_PORT": "443"}],
    ids=["neither", "no-port", "no-host"],
)
def test_outside_a_cluster_the_error_is_client_gos(tmp_path: Path, env: dict[str, str]) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(None, environ=env, directory=service_account(tmp_path))
    assert str(caught.value) == NOT_IN_CLUSTER


def test_a_missing_token_file_is_an_error_naming_it(tmp_path: Path) -> None:
    env = {"KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "443"}
    with pytest.raises(ConfigError, match=r"open .*token: no such file or directory"):
        in_cluster_config(env, tmp_path)


@pytest.mark.parametrize(
    ("context", "server", "namespace", "verify"),
    [
        (None, "https://one.example:6443", "team", True),
        ("two", "https://two.example:6443", None, False),
    ],
    ids=["current-context", "explicit-context"],
)
def test_kubeconfig_wins_over_the_cluster_and_honours_context(
    tmp_path: Path, context: str | None, server: str, namespace: str | None, verify: bool
) -> None:
    path = tmp_path / "kubeconfig"
    path.write_text(KUBECONFIG)
    env = {"KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "443"}
    config = load_config(str(path), context, environ=env, directory=tmp_path)
    assert config.connection.server == server
    assert config.connection.authorization == "Bearer secret-one"
    assert config.connection.verify is verify
    assert config.namespace == namespace
    assert config.token_file is None


def test_an_unknown_context_is_kubectls_error(tmp_path: Path) -> None:
    path = tmp_path / "kubeconfig"
    path.write_text(KUBECONFIG)
    with pytest.raises(ConfigError, match="context was not found for specified context: x"):
        load_config(str(path), "x")


def test_the_token_is_re_read_as_the_kubelet_rotates_it(tmp_path: Path) -> None:
    assert asyncio.run(requests_with_rotation(tmp_path)) == [
        "Bearer first",
        "Bearer first",
        "Bearer second",
        "Bearer second",
    ]


async def requests_with_rotation(tmp_path: Path) -> list[str]:
    directory = service_account(tmp_path, "first")
    seen: list[str] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["Authorization"])
        return httpx.Response(200, json={})

    now = [0.0]
    auth = TokenFileAuth(
        httpx.MockTransport(record), directory / "token", refresh=60, monotonic=lambda: now[0]
    )
    async with httpx.AsyncClient(transport=auth, base_url="https://k") as client:
        await client.get("/api")
        (directory / "token").write_text("second")
        now[0] = 59.0
        await client.get("/api")  # within the minute: the cached token
        now[0] = 60.0
        await client.get("/api")
        (directory / "token").unlink()
        now[0] = 200.0
        await client.get("/api")  # unreadable: the last good token stays
    return seen
