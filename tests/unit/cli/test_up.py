"""``podscale up`` assembly (``podscale.plane.serve``) and its click command, without kubectl.

The real-process and real-kubectl side lives in ``tests/integration/kubectl``.
"""

from __future__ import annotations

import socket
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from podscale.cli.main import cli
from podscale.plane.files import ControlPlaneError
from podscale.plane.serve import (
    ControlPlane,
    UpOptions,
    allowed_hosts,
    assemble_control_plane,
    client_url,
    run_control_plane,
    usage_lines,
)
from podscale.store.sqlite import SqliteStore


@pytest.fixture
def plane(tmp_path: Path) -> Iterator[ControlPlane]:
    assembled = assemble_control_plane(UpOptions(data_dir=tmp_path / "data"))
    try:
        yield assembled
    finally:
        assembled.store.close()


@pytest.mark.parametrize(
    ("host", "extra"),
    [
        ("127.0.0.1", set()),
        ("0.0.0.0", set()),
        ("::", set()),
        ("10.1.2.3", {"10.1.2.3"}),
        ("fd00::5", {"[fd00::5]"}),
        ("[fd00::5]", {"[fd00::5]"}),
        ("My-Host.example", {"my-host.example"}),
    ],
    ids=["loopback", "wildcard-v4", "wildcard-v6", "ipv4", "ipv6", "ipv6-bracketed", "name"],
)
def test_allowed_hosts_are_loopback_plus_the_bind_host(host: str, extra: set[str]) -> None:
    assert allowed_hosts(host) == {"localhost", "127.0.0.1", "[::1]", "::1"} | extra


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("127.0.0.1", "http://127.0.0.1:6443"),
        ("0.0.0.0", "http://127.0.0.1:6443"),
        ("::", "http://[::1]:6443"),
        ("::1", "http://[::1]:6443"),
        ("[::1]", "http://[::1]:6443"),
        ("10.1.2.3", "http://10.1.2.3:6443"),
    ],
    ids=["loopback", "wildcard-v4", "wildcard-v6", "ipv6", "ipv6-bracketed", "ipv4"],
)
def test_client_url_names_an_address_clients_can_dial(host: str, url: str) -> None:
    assert client_url(host, 6443) == url


def test_assemble_creates_private_files_and_a_guarded_app(plane: ControlPlane) -> None:
    data_dir = plane.options.data_dir
    assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE((data_dir / "token").stat().st_mode) == 0o600
    assert (data_dir / "store.db").exists()
    assert plane.token is not None
    assert plane.token not in repr(plane)
    client = TestClient(plane.app, base_url="http://127.0.0.1:1234")
    assert client.get("/version").json()["minor"] == "32"
    denied = client.get("/api/v1/namespaces/default/pods")
    assert (denied.status_code, denied.json()["reason"]) == (401, "Unauthorized")
    allowed = client.get(
        "/api/v1/namespaces/default/pods", headers={"Authorization": f"Bearer {plane.token}"}
    )
    assert (allowed.status_code, allowed.json()["items"]) == (200, [])
    evil = client.get("/version", headers={"Host": "evil.example"})
    assert evil.status_code == 403


def test_the_token_survives_restarts(tmp_path: Path) -> None:
    tokens = []
    for _ in range(2):
        plane = assemble_control_plane(UpOptions(data_dir=tmp_path))
        plane.store.close()
        tokens.append(plane.token)
    assert tokens[0] == tokens[1]


def test_no_auth_and_reported_minor(tmp_path: Path) -> None:
    plane = assemble_control_plane(UpOptions(data_dir=tmp_path, auth=False, report_minor=29))
    try:
        assert plane.token is None
        assert not (tmp_path / "token").exists()
        client = TestClient(plane.app, base_url="http://127.0.0.1:1234")
        version = client.get("/version").json()
        assert (version["minor"], version["gitVersion"]) == ("29", "v1.29.0")
        assert client.get("/api/v1/namespaces").status_code == 200
    finally:
        plane.store.close()


def test_refuses_an_unauthenticated_public_bind(tmp_path: Path) -> None:
    with pytest.raises(
        ControlPlaneError, match=r"refusing to bind 0\.0\.0\.0 without authentication"
    ):
        assemble_control_plane(UpOptions(data_dir=tmp_path / "d", host="0.0.0.0", auth=False))
    assert not (tmp_path / "d").exists()


def test_an_unusable_data_dir_is_a_clean_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory", encoding="utf-8")
    with pytest.raises(ControlPlaneError, match=r"cannot prepare the data directory .*file/sub"):
        assemble_control_plane(UpOptions(data_dir=blocker / "sub"))


def test_a_store_in_use_is_a_clean_error(tmp_path: Path, plane: ControlPlane) -> None:
    with pytest.raises(ControlPlaneError, match=r"cannot open the store in .*in use"):
        assemble_control_plane(UpOptions(data_dir=plane.options.data_dir))


def test_usage_never_shows_the_token(plane: ControlPlane) -> None:
    assert plane.token is not None
    lines = usage_lines("http://127.0.0.1:1", Path("/k/config"), authenticated=True)
    assert "  export KUBECONFIG=/k/config" in lines
    assert "  kubectl get hpa" in lines
    assert all(plane.token not in line for line in lines)


def _closed(store: SqliteStore) -> bool:
    try:
        store.revision()
    except Exception:
        return True
    return False


def test_a_busy_port_is_a_clean_error_and_closes_the_store(plane: ControlPlane) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        options = UpOptions(data_dir=plane.options.data_dir, port=port)
        busy_plane = ControlPlane(options, plane.store, plane.app, plane.token)
        with pytest.raises(ControlPlaneError, match=f"cannot listen on 127.0.0.1:{port}"):
            run_control_plane(busy_plane, announce=print)
    assert _closed(plane.store)


def test_an_unwritable_kubeconfig_stops_the_server_cleanly(
    plane: ControlPlane, tmp_path: Path
) -> None:
    options = UpOptions(data_dir=plane.options.data_dir, kubeconfig=tmp_path / "no" / "config")
    announced: list[str] = []
    with pytest.raises(ControlPlaneError, match=r"cannot write the kubeconfig .*no/config"):
        run_control_plane(
            ControlPlane(options, plane.store, plane.app, plane.token), announce=announced.append
        )
    assert announced == []
    assert _closed(plane.store)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--host", "0.0.0.0", "--no-auth"], "refusing to bind 0.0.0.0 without authentication"),
        (["--port", "70000"], "70000 is not in the range 0<=x<=65535"),
    ],
    ids=["public-without-auth", "bad-port"],
)
def test_up_command_reports_setup_errors(tmp_path: Path, args: list[str], message: str) -> None:
    result = CliRunner().invoke(cli, ["up", "--data-dir", str(tmp_path / "d"), *args])
    assert result.exit_code in (1, 2)
    assert message in result.output
    assert "Traceback" not in result.output


def test_up_help_hides_the_test_only_option() -> None:
    help_text = CliRunner().invoke(cli, ["up", "--help"]).output
    for option in ("--data-dir", "--host", "--port", "--kubeconfig", "--no-auth"):
        assert option in help_text
    assert "--report-minor" not in help_text
