"""A ``ReplayReport`` (``podscale.replay.replay``) as a table, JSON or a per-minute CSV.

``render_table`` prints one row per autoscaler, the best (lowest) value of each column
marked ``*`` when there are several to compare, then the two references; every measure is
lower-is-better. Under the table, ``metric_lines`` says what each autoscaler's HPA measured
against its targets (whatever the metric types). ``render_json`` holds the totals and the
per-minute series, ``render_csv`` one row per run and minute. All three are pure and
deterministic (no clock, no environment): the same report gives the same text.
``podscale.cli.replay_command`` writes them, ``podscale.replay.plot`` draws the picture.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable
from typing import Any, Final

import orjson

from podscale.api.durations import format_go_duration
from podscale.replay.hpa_series import RunMetrics
from podscale.replay.measures import Totals
from podscale.replay.replay import ReplayReport

__all__ = ["COLUMNS", "metric_lines", "render_csv", "render_json", "render_table", "totals_dict"]

# (header, JSON name, value, format): the table's columns in order.
COLUMNS: Final[tuple[tuple[str, str, Callable[[Totals], float | None], str], ...]] = (
    ("UNDER POD-MIN", "underProvisionedPodMinutes", lambda t: t.under_pod_minutes, "{:.1f}"),
    ("UNDER MIN", "underProvisionedMinutes", lambda t: t.under_minutes, "{:.0f}"),
    (
        "UNDER>1 POD-MIN",
        "underProvisionedBeyondOnePodMinutes",
        lambda t: t.under_beyond_one_pod_minutes,
        "{:.1f}",
    ),
    ("SLO MIN", "sloViolationMinutes", lambda t: t.slo_violation_minutes, "{:.0f}"),
    ("OVER POD-H", "overProvisionedPodHours", lambda t: t.over_pod_hours, "{:.2f}"),
    ("COST POD-H", "costPodHours", lambda t: t.cost_pod_hours, "{:.2f}"),
    ("UPS", "scaleUps", lambda t: t.scale_ups, "{:.0f}"),
    ("DOWNS", "scaleDowns", lambda t: t.scale_downs, "{:.0f}"),
    ("MAX", "maxReplicas", lambda t: t.max_replicas, "{:.0f}"),
    ("REACT MED", "reactMedianMinutes", lambda t: t.react_median_minutes, "{:.1f}"),
    ("REACT MAX", "reactMaxMinutes", lambda t: t.react_max_minutes, "{:.1f}"),
)
_DIGITS: Final = 6


def _milli(value: float | None) -> str:
    return "none" if value is None else f"{value:g}m"


def describe(report: ReplayReport) -> list[str]:
    """The lines above the table: what was replayed and how ``needed`` is computed."""
    window = report.window
    first = int(window.start.total_seconds() // 60)
    shape = report.shape
    return [
        f"replay {report.scenario}: {report.target}, minutes {first}-{first + window.minutes}"
        f" ({window.minutes} evaluated, warmup {format_go_duration(window.warmup)})",
        f"needed = ceil(cpu demand / ({_milli(shape.cpu_request)} x {report.utilization}%)),"
        f" {_milli(shape.cpu_per_request)} per request/s; CPU limit {_milli(shape.cpu_limit)}",
    ]


def render_table(report: ReplayReport) -> str:
    runs = report.runs
    compared = [r for r in runs if not r.reference]
    cells: list[list[str]] = [["AUTOSCALER", *(c[0] for c in COLUMNS)]]
    for run in runs:
        row = [run.name + (" (reference)" if run.reference else "")]
        for _, _, value, fmt in COLUMNS:
            v = value(run.totals)
            text = "-" if v is None else fmt.format(v)
            values = [value(r.totals) for r in compared]
            known = [x for x in values if x is not None]
            best = len(compared) > 1 and not run.reference and v is not None and v == min(known)
            row.append(text + ("*" if best else ""))
        cells.append(row)
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    lines = [*describe(report), ""]
    for index, row in enumerate(cells):
        if index == len(compared) + 1:
            lines.append("")
        lines.append(
            "   ".join(
                cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i])
                for i, cell in enumerate(row)
            ).rstrip()
        )
    if len(compared) > 1:
        lines += ["", "* the best value of the column (lower is better)"]
    lines += metric_lines(report)
    return "\n".join(lines) + "\n"


def metric_lines(report: ReplayReport) -> list[str]:
    """What each autoscaler's HPA measured in the window, per metric and whatever its
    type: mean and highest of the minute means against the target."""
    lines: list[str] = []
    for run in report.runs:
        if run.metrics is None:
            continue
        for metric in run.metrics.metrics:
            reading, known = metric.reading, metric.known()
            target = reading.format_value(metric.target)
            if reading.unit != "%":
                target += " (average per pod)" if metric.average else " (total)"
            if known:
                values = (
                    f"mean {reading.format_value(sum(known) / len(known))}, "
                    f"max {reading.format_value(max(known))}"
                )
            else:
                values = "no value"
            lines.append(f"  {run.name}: {metric.label} {values} vs target {target}")
    return (
        ["", "metrics the autoscalers scaled on (minute means in the window):", *lines]
        if lines
        else []
    )


def _number(value: float) -> float | int:
    return value if isinstance(value, int) else round(value, _DIGITS)


def totals_dict(totals: Totals) -> dict[str, Any]:
    out: dict[str, Any] = {"rises": totals.rises}
    for _, name, value, _ in COLUMNS:
        v = value(totals)
        out[name] = None if v is None else _number(v)
    return out


def render_json(report: ReplayReport) -> str:
    window, shape = report.window, report.shape
    first = int(window.start.total_seconds() // 60)
    demand = report.runs[0].series
    document = {
        "scenario": report.scenario,
        "target": report.target,
        "window": {
            "from": format_go_duration(window.start),
            "duration": format_go_duration(window.duration),
            "warmup": format_go_duration(window.warmup),
        },
        "targetUtilization": report.utilization,
        "cpuRequestMillicores": shape.cpu_request,
        "cpuLimitMillicores": shape.cpu_limit,
        "cpuPerRequestMillicores": shape.cpu_per_request,
        "minutes": list(range(first, first + window.minutes)),
        "cpuDemandMillicores": [_number(v) for v in demand.cpu_demand],
        "neededPods": list(demand.needed),
        "runs": [
            {
                "name": run.name,
                "reference": run.reference,
                "totals": totals_dict(run.totals),
                "readyPods": [_number(v) for v in run.series.ready],
                "replicas": [_number(v) for v in run.series.replicas],
                "scaleEvents": [
                    {
                        "minute": _number(first + e.minute),
                        "from": e.from_replicas,
                        "to": e.to_replicas,
                    }
                    for e in run.series.events
                ],
                **({} if run.metrics is None else {"hpa": _metrics_json(run.metrics)}),
            }
            for run in report.runs
        ],
    }
    return orjson.dumps(document, option=orjson.OPT_INDENT_2).decode() + "\n"


def _metrics_json(metrics: RunMetrics) -> dict[str, Any]:
    return {
        "name": metrics.hpa,
        "scaleDownStabilizationSeconds": _number(metrics.scale_down_window),
        "metrics": [
            {
                "label": m.label,
                "unit": m.unit,
                "averagePerPod": m.average,
                "target": _number(m.target),
                # JSON has no NaN: a minute without a value is null.
                "minuteMeans": [None if math.isnan(v) else _number(v) for v in m.means],
            }
            for m in metrics.metrics
        ],
    }


def render_csv(report: ReplayReport) -> str:
    """``minute,autoscaler,cpu_demand_millicores,needed,ready,replicas``, one row per run
    and minute (minutes of scenario time)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        ["minute", "autoscaler", "cpu_demand_millicores", "needed", "ready", "replicas"]
    )
    first = int(report.window.start.total_seconds() // 60)
    for run in report.runs:
        s = run.series
        for m in range(len(s)):
            writer.writerow(
                [
                    first + m,
                    run.name,
                    f"{s.cpu_demand[m]:.{_DIGITS}g}",
                    s.needed[m],
                    f"{s.ready[m]:.{_DIGITS}g}",
                    f"{s.replicas[m]:.{_DIGITS}g}",
                ]
            )
    return out.getvalue()
