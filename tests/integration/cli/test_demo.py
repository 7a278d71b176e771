"""``podscale demo``: the whole stack on virtual time, as the Quick start runs it."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from podscale.cli.main import cli
from podscale.demo.timeline import find_rescales
from podscale.demo.timeline_json import read_timeline


def test_demo_scales_php_apache_up_and_back_down(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["demo", "-o", str(tmp_path), "--no-color"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.startswith("podscale demo: php-apache-demo, 20 minutes simulated\n")
    assert "SuccessfulRescale: New size: " in out
    assert "cpu resource utilization (percentage of request) above target" in out
    assert "reason: All metrics below target" in out
    assert f"plot: {tmp_path / 'podscale-demo.png'}" in out
    assert (tmp_path / "podscale-demo.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    timeline = read_timeline(tmp_path / "podscale-demo.json")
    replicas = [s.current_replicas for s in timeline.samples]
    assert replicas[0] == 1
    assert max(replicas) == 10  # 50 req/s wants more than maxReplicas
    assert replicas[-1] == 1  # back down after the load stopped and the window passed
    rescales = find_rescales(timeline)
    ups = [r for r in rescales if r.is_up]
    downs = [r for r in rescales if not r.is_up]
    assert ups
    assert downs
    assert max(r.offset for r in ups) < min(r.offset for r in downs)
    # The first scale-down waits out the 5 minute stabilization after the load stops (11m).
    assert min(r.offset.total_seconds() for r in downs) >= 16 * 60
    # Under the 25 req/s step the HPA settles near its 50% target.
    settled = [s.utilization for s in timeline.samples if 180 <= s.offset.total_seconds() <= 330]
    assert all(u is not None and 40 <= u <= 60 for u in settled), settled


def test_demo_is_deterministic(tmp_path: Path) -> None:
    runner = CliRunner()
    first = runner.invoke(cli, ["demo", "-o", str(tmp_path / "a"), "--no-color"])
    second = runner.invoke(cli, ["demo", "-o", str(tmp_path / "b"), "--no-color"])
    assert first.exit_code == second.exit_code == 0
    assert first.output.replace("/a/", "/b/") == second.output
    plot_a = (tmp_path / "a" / "podscale-demo.png").read_bytes()
    assert plot_a == (tmp_path / "b" / "podscale-demo.png").read_bytes()


def test_demo_reports_a_missing_or_bad_scenario(tmp_path: Path) -> None:
    missing = CliRunner().invoke(cli, ["demo", str(tmp_path / "nope.yaml")])
    assert missing.exit_code == 1
    assert "nope.yaml not found" in missing.output
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: podscale.dev/v9\nkind: Scenario\n", encoding="utf-8")
    refused = CliRunner().invoke(cli, ["demo", str(bad)])
    assert refused.exit_code == 1
    assert 'no kind "Scenario" is registered for version "podscale.dev/v9"' in refused.output
