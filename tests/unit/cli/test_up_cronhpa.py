"""``podscale up --cronhpa-timezone`` and the local zone it defaults to."""

from __future__ import annotations

from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner

from podscale.cli.main import cli
from podscale.cli.up_flags import cronhpa_zone
from podscale.controllers.registry import select_controllers
from podscale.plane.workloads import local_zone


def test_an_unknown_zone_is_refused_before_anything_starts(tmp_path: Path) -> None:
    args = ["up", "--data-dir", str(tmp_path / "d"), "--cronhpa-timezone", "Mars/Base"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2
    assert 'unknown time zone "Mars/Base"' in result.output
    assert not (tmp_path / "d").exists()


def test_the_flag_is_popped_from_the_command_arguments() -> None:
    values = {"cronhpa_timezone": "Asia/Tokyo", "other": 1}
    assert cronhpa_zone(values) == "Asia/Tokyo"
    assert values == {"other": 1}
    assert cronhpa_zone({}) is None


@pytest.mark.parametrize(
    ("tz", "expected"),
    [("Asia/Tokyo", "Asia/Tokyo"), (":Europe/Berlin", "Europe/Berlin")],
    ids=["tz-name", "tz-with-colon"],
)
def test_the_local_zone_follows_tz(monkeypatch: pytest.MonkeyPatch, tz: str, expected: str) -> None:
    monkeypatch.setenv("TZ", tz)
    assert local_zone() == ZoneInfo(expected)


def test_without_tz_the_local_zone_is_a_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TZ", raising=False)
    assert isinstance(local_zone(), ZoneInfo)


def test_the_controller_is_on_by_default_and_can_be_disabled() -> None:
    assert "cronhpa-controller" in select_controllers("*")
    assert "cronhpa-controller" not in select_controllers("*,-cronhpa")
