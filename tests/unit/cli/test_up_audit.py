"""``podscale up --audit-log-*``: the flags, and the audit layer the assembled plane serves."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from podscale.apiserver.audit import read_events
from podscale.cli.main import cli
from podscale.plane.files import ControlPlaneError
from podscale.plane.serve import UpOptions, assemble_control_plane


def test_the_assembled_plane_audits_requests_through_its_guard(tmp_path: Path) -> None:
    log = tmp_path / "audit.log"
    plane = assemble_control_plane(UpOptions(data_dir=tmp_path / "data", audit_log_path=str(log)))
    try:
        assert plane.audit is not None
        client = TestClient(plane.app, base_url="http://127.0.0.1:6443")
        headers = {"authorization": f"Bearer {plane.token}"}
        assert client.get("/api/v1/namespaces/default", headers=headers).status_code == 200
        assert client.get("/api/v1/pods").status_code == 401
    finally:
        plane.store.close()
        plane.audit.close()
    allowed, refused = read_events(log)
    assert (allowed["verb"], allowed["user"]["username"]) == ("get", "podscale-admin")
    assert allowed["objectRef"]["namespace"] == "default"
    assert (refused["stage"], refused["user"]) == ("ResponseStarted", {})


def test_no_audit_without_the_flag(tmp_path: Path) -> None:
    plane = assemble_control_plane(UpOptions(data_dir=tmp_path / "data"))
    plane.store.close()
    assert plane.audit is None


def test_an_unopenable_audit_log_is_a_clean_error(tmp_path: Path) -> None:
    options = UpOptions(data_dir=tmp_path / "data", audit_log_path=str(tmp_path / "no" / "a.log"))
    with pytest.raises(ControlPlaneError, match="cannot open the audit log"):
        assemble_control_plane(options)
    # The store was closed: a second assembly can open it.
    assemble_control_plane(UpOptions(data_dir=tmp_path / "data")).store.close()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--audit-log-maxsize", "10"], "need --audit-log-path"),
        (["--audit-log-path", ""], "--audit-log-path must name a file"),
        (["--audit-log-path", "x", "--audit-log-maxbackup", "-1"], "-1 is not in the range"),
    ],
    ids=["maxsize-without-path", "empty-path", "negative-backups"],
)
def test_audit_flag_errors(tmp_path: Path, args: list[str], message: str) -> None:
    result = CliRunner().invoke(cli, ["up", "--data-dir", str(tmp_path / "d"), *args])
    assert result.exit_code == 2
    assert message in result.output


def test_up_help_lists_the_audit_flags() -> None:
    help_text = CliRunner().invoke(cli, ["up", "--help"]).output
    for option in ("--audit-log-path", "--audit-log-maxsize", "--audit-log-maxbackup"):
        assert option in help_text
