"""``podscale demo --real-time``: the demo at wall speed next to a served API that kubectl
can read while it runs (a 20 second scenario; a real process, bounded waits)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from podscale.demo.timeline_json import read_timeline

EXAMPLES = (
    Path(__file__).resolve().parents[3] / "src" / "podscale" / "demo" / "scenarios" / "php-apache"
)
SCENARIO = """\
apiVersion: podscale.dev/v1alpha1
kind: Scenario
metadata: {{name: wall-speed}}
spec:
  seed: 3
  duration: 20s
  pods: {{startupDelay: 1s, readinessDelay: 1s}}
  manifests: [{deployment}, {hpa}]
  workloads:
    - target: {{kind: Deployment, name: php-apache, namespace: default}}
      load: {{type: constant, rate: 25}}
      containers:
        - {{name: php-apache, perRequest: {{cpu: 20m}}}}
"""


def test_real_time_demo_serves_kubectl_while_it_plays(tmp_path: Path) -> None:
    kubectl = os.environ.get("KUBECTL", "kubectl")
    scenario = tmp_path / "wall-speed.yaml"
    scenario.write_text(
        SCENARIO.format(deployment=EXAMPLES / "deployment.yaml", hpa=EXAMPLES / "hpa.yaml"),
        encoding="utf-8",
    )
    data, out = tmp_path / "data", tmp_path / "out"
    command = [sys.executable, "-m", "podscale", "demo", "--real-time", str(scenario)]
    command += ["-o", str(out), "--data-dir", str(data), "--no-color"]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None
    lines: list[str] = []
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            lines.append(line)
            if line.startswith("Press Ctrl-C"):
                break
        assert any("kubeconfig written to" in line for line in lines), "".join(lines)
        try:
            found = subprocess.run(
                [
                    kubectl,
                    "--kubeconfig",
                    str(data / "kubeconfig"),
                    "get",
                    "hpa,deploy",
                    "-o",
                    "name",
                ],
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
            )
        except FileNotFoundError:
            pytest.skip("kubectl is not installed: cannot watch along")
        assert found.returncode == 0, found.stderr
        assert found.stdout.split() == [
            "horizontalpodautoscaler.autoscaling/php-apache",
            "deployment.apps/php-apache",
        ]
        rest, _ = process.communicate(timeout=90)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate(timeout=10)
    assert process.returncode == 0, "".join(lines) + rest
    assert "podscale demo: wall-speed, 20 seconds at wall speed" in "".join(lines)
    assert f"plot: {out / 'podscale-demo.png'}" in rest
    timeline = read_timeline(out / "podscale-demo.json")
    assert timeline.samples[-1].offset.total_seconds() >= 15
    assert timeline.samples[-1].load == 25.0
