"""``podscale up`` policies: no bearer token in clear text on the network unless asked for,
and a data directory others can read is made private (or refused when it is not ours)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from podscale.cli.main import cli
from podscale.plane.files import ControlPlaneError, check_bind, prepare_data_dir


@pytest.mark.parametrize(
    ("host", "tls", "allow", "refused"),
    [
        ("0.0.0.0", False, False, True),
        ("192.0.2.10", False, False, True),
        ("::", False, False, True),
        ("0.0.0.0", False, True, False),
        ("0.0.0.0", True, False, False),
        ("127.0.0.1", False, False, False),
        ("::1", False, False, False),
    ],
    ids=["any", "lan", "any-v6", "allowed", "tls", "loopback", "loopback-v6"],
)
def test_plaintext_token_policy(host: str, tls: bool, allow: bool, refused: bool) -> None:
    if not refused:
        check_bind(host, authenticated=True, tls=tls, allow_plaintext=allow)
        return
    with pytest.raises(ControlPlaneError, match="clear text") as caught:
        check_bind(host, authenticated=True, tls=tls, allow_plaintext=allow)
    assert "--insecure-allow-plaintext" in str(caught.value)


def test_up_refuses_no_tls_on_every_interface(tmp_path: Path) -> None:
    data = tmp_path / "data"
    result = CliRunner().invoke(
        cli, ["up", "--host", "0.0.0.0", "--no-tls", "--data-dir", str(data), "--port", "0"]
    )
    assert result.exit_code == 1
    assert "refusing to serve 0.0.0.0 over plain http" in result.output
    assert "bearer token in clear text" in result.output
    assert not data.exists()  # refused before anything was written


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("initial", [0o755, 0o750, 0o705], ids=oct)
def test_a_readable_data_dir_of_our_own_is_made_private(tmp_path: Path, initial: int) -> None:
    data = tmp_path / "data"
    data.mkdir()
    for name in ("store.db", "store.db-wal", "token", "kubeconfig", "pushed-metrics.db"):
        (data / name).write_text("")
    (data / "tls").mkdir()
    data.chmod(initial)
    assert prepare_data_dir(data) == data
    assert mode(data) == 0o700


def test_an_empty_readable_data_dir_is_made_private(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    data.chmod(0o755)
    prepare_data_dir(data)
    assert mode(data) == 0o700


def test_a_readable_directory_holding_other_files_is_refused(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "notes.txt").write_text("someone else's")
    shared.chmod(0o755)
    with pytest.raises(ControlPlaneError, match=r"other users can read it \(mode 755\)"):
        prepare_data_dir(shared)
    assert mode(shared) == 0o755  # left as it was
