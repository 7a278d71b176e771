"""``podscale replay``: two HPAs on one scenario, every output written, identical bytes twice
(once in one process, once in parallel worker processes)."""

from __future__ import annotations

import csv
import io
import json
from datetime import timedelta
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from podscale.cli.main import cli
from podscale.replay.from_trace import TraceWorkload, trace_scenario

from .scenarios import FAST_HPA, HPA, step_scenario


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    document = step_scenario([{"at": "0s", "rate": 5}, {"at": "4m", "rate": 50}], "12m")
    paths = {
        "scenario": tmp_path / "step.yaml",
        "default": tmp_path / "default.yaml",
        "fast": tmp_path / "fast.yaml",
    }
    for key, content in (("scenario", document), ("default", HPA), ("fast", FAST_HPA)):
        paths[key].write_text(yaml.safe_dump(content))
    return paths


def run(files: dict[str, Path], out: Path, jobs: int) -> str:
    out.mkdir()
    args = [
        "replay",
        str(files["scenario"]),
        "--autoscaler",
        str(files["default"]),
        "--autoscaler",
        str(files["fast"]),
        "--from",
        "2m",
        "--warmup",
        "2m",
        "--json",
        str(out / "r.json"),
        "--csv",
        str(out / "r.csv"),
        "--plot",
        str(out / "r.png"),
        "--jobs",
        str(jobs),
    ]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    return result.output


def test_two_hpas_give_a_table_json_csv_and_plot_deterministically(
    files: dict[str, Path], tmp_path: Path
) -> None:
    table = run(files, tmp_path / "one", jobs=1)
    lines = table.splitlines()
    assert (
        lines[0] == "replay step: Deployment/default/web, minutes 2-12 (10 evaluated, warmup 2m0s)"
    )
    rows = {line.split()[0]: line for line in lines if line.startswith(("default", "fast"))}
    assert set(rows) == {"default", "fast"}
    assert "fixed at the peak (reference)" in table
    assert "oracle (reference)" in table
    assert "*" in rows["fast"]  # a best value is marked
    # What each HPA scaled on, against its target, under the table.
    assert "metrics the autoscalers scaled on (minute means in the window):" in lines
    metric_rows = [line for line in lines if line.startswith(("  default: cpu", "  fast: cpu"))]
    assert len(metric_rows) == 2
    assert all(line.endswith("vs target 50%") for line in metric_rows), metric_rows
    report = json.loads((tmp_path / "one" / "r.json").read_text())
    assert [r["name"] for r in report["runs"]] == ["default", "fast", "fixed at the peak", "oracle"]
    assert report["minutes"] == list(range(2, 12))
    assert report["neededPods"] == [1, 1, 10, 10, 10, 10, 10, 10, 10, 10]
    hpa = report["runs"][0]["hpa"]
    assert hpa["metrics"][0]["label"] == "cpu"
    assert hpa["metrics"][0]["target"] == 50
    assert len(hpa["metrics"][0]["minuteMeans"]) == 10
    assert "hpa" not in report["runs"][2]  # the references measure nothing
    default, fast = report["runs"][0]["totals"], report["runs"][1]["totals"]
    assert default["underProvisionedPodMinutes"] >= 13.5  # the startup bound (test_acceptance)
    assert fast["underProvisionedPodMinutes"] <= default["underProvisionedPodMinutes"]
    assert fast["scaleUps"] <= default["scaleUps"]
    rows_csv = list(csv.DictReader(io.StringIO((tmp_path / "one" / "r.csv").read_text())))
    assert len(rows_csv) == 4 * 10
    assert rows_csv[0] == {
        "minute": "2",
        "autoscaler": "default",
        "cpu_demand_millicores": "50",
        "needed": "1",
        "ready": "1",
        "replicas": "1",
    }
    assert (tmp_path / "one" / "r.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    assert run(files, tmp_path / "two", jobs=2) == table
    for name in ("r.json", "r.csv", "r.png"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


def test_json_output_is_only_json(files: dict[str, Path]) -> None:
    args = ["replay", str(files["scenario"]), "--from", "2m", "--duration", "3m", "-o", "json"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["runs"][0]["name"] == "scenario"


def test_trace_shorthand(tmp_path: Path) -> None:
    trace = tmp_path / "trace.csv"
    trace.write_text(
        "minute,requests\n" + "".join(f"{m},{600 if m >= 3 else 60}\n" for m in range(8))
    )
    args = [
        "replay",
        "--trace",
        str(trace),
        "--cpu-per-request",
        "20m",
        "--request",
        "100m",
        "--startup",
        "30s",
        "--warmup",
        "1m",
        "-o",
        "csv",
    ]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.output)))
    # 10 req/s x 20m = 200m at 50% of 100m: 4 pods; 1 req/s: 1 pod.
    assert [r["needed"] for r in rows if r["autoscaler"] == "oracle"] == ["1"] * 3 + ["4"] * 5


@pytest.mark.parametrize(
    ("history", "expected"),
    [("7d", timedelta(days=7)), ("36h", timedelta(hours=36)), (None, timedelta(0))],
    ids=["days", "hours", "none"],
)
def test_trace_history_is_the_scenarios(
    tmp_path: Path, history: str | None, expected: timedelta
) -> None:
    trace = tmp_path / "trace.csv"
    trace.write_text("minute,requests\n0,60\n1,60\n")
    workload = TraceWorkload(trace, "20m", "100m", history=history)
    assert trace_scenario(workload).history == expected


def test_a_bad_trace_history_names_the_field(tmp_path: Path) -> None:
    trace = tmp_path / "trace.csv"
    trace.write_text("minute,requests\n0,60\n")
    args = ["replay", "--trace", str(trace), "--cpu-per-request", "1", "--request", "1"]
    result = CliRunner().invoke(cli, [*args, "--history", "6w"])
    assert result.exit_code != 0
    assert 'spec.history: Invalid value: "6w"' in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give either SCENARIO or --trace FILE"),
        (["--from", "20m"], "at or after the scenario's end (12m0s)"),
        (["--duration", "20m"], "ends at 20m0s, after the scenario's 12m0s"),
        (["--duration", "90s"], "must be whole minutes"),
        (["--from", "soon"], "Invalid value for --from: time: invalid duration"),
        (["--history", "7d"], "--history goes with --trace"),
    ],
    ids=[
        "nothing",
        "window-past-end",
        "window-too-long",
        "partial-minute",
        "bad-duration",
        "history-without-trace",
    ],
)
def test_bad_arguments_are_reported(files: dict[str, Path], args: list[str], message: str) -> None:
    scenario = [str(files["scenario"])] if args else []
    result = CliRunner().invoke(cli, ["replay", *scenario, *args])
    assert result.exit_code != 0
    assert message in result.output
