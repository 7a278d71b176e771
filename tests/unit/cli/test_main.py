"""The podscale command line: parses arguments, calls the core, prints."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from podscale import __version__
from podscale.cli.main import cli

EXAMPLE = Path(__file__).parents[3] / "examples" / "scale-up-cpu.yaml"


def test_version_and_help() -> None:
    runner = CliRunner()
    assert runner.invoke(cli, ["--version"]).output.strip() == f"podscale, version {__version__}"
    help_text = runner.invoke(cli, ["--help"]).output
    assert "explain-scale" in help_text


def test_explain_scale_text() -> None:
    result = CliRunner().invoke(cli, ["explain-scale", str(EXAMPLE)])
    assert result.exit_code == 0, result.output
    assert "scale 4 -> 8" in result.output
    assert "ScalingLimited=True ScaleUpLimit" in result.output
    assert "Normal SuccessfulRescale: New size: 8" in result.output


def test_explain_scale_json() -> None:
    result = CliRunner().invoke(cli, ["explain-scale", "-o", "json", str(EXAMPLE)])
    assert result.exit_code == 0, result.output
    body = json.loads(result.output)
    assert body["desiredReplicas"] == 8
    assert body["status"]["desiredReplicas"] == 8
    assert body["trace"]["limit"]["reason"] == "ScaleUpLimit"
    assert body["events"][0]["reason"] == "SuccessfulRescale"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("apiVersion: v1\nkind: ScaleInput\n", "apiVersion: Unsupported value"),
        ("{not yaml", "is not valid YAML or JSON"),
    ],
    ids=["wrong-version", "broken-yaml"],
)
def test_explain_scale_reports_bad_files(tmp_path: Path, content: str, message: str) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(content)
    result = CliRunner().invoke(cli, ["explain-scale", str(bad)])
    assert result.exit_code == 1
    assert message in result.output


def test_module_entry_point_runs() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "podscale", "explain-scale", str(EXAMPLE)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "desired replicas: 8" in done.stdout
