"""``podscale replay``: parse the arguments, then call ``podscale.replay``.

SCENARIO is a scenario file; ``--trace FILE`` with a workload description instead builds
one in memory (``podscale.replay.from_trace``; ``--history`` its ``spec.history``). Each
``--autoscaler FILE`` (manifests: an HPA, a PredictiveHorizontalPodAutoscaler, an
EffectiveHorizontalPodAutoscaler, a CronHPA with its HPA) is one run replacing the scenario's
autoscalers; without any, the scenario's own are the one run. The report goes to stdout in
the ``-o`` format; ``--json``, ``--csv`` and ``--plot`` write files besides. Progress goes
to stderr, only on a terminal and never with ``-o json``. The simulation and the plot are
imported when the command runs.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from podscale.replay.replay import Progress
    from podscale.replay.target import Autoscaler

__all__ = ["replay"]


def _duration(text: str | None, flag: str) -> timedelta | None:
    from podscale.api.durations import parse_go_duration

    if text is None:
        return None
    try:
        return parse_go_duration(text)
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint=flag) from None


def _autoscalers(files: tuple[Path, ...]) -> list[Autoscaler]:
    import yaml

    from podscale.replay.target import Autoscaler

    runs: list[Autoscaler] = []
    for file in files:
        try:
            documents = [d for d in yaml.safe_load_all(file.read_text("utf-8")) if d is not None]
        except (OSError, yaml.YAMLError) as err:
            raise click.ClickException(f"{file}: cannot read the autoscaler: {err}") from None
        objects: list[dict[str, Any]] = []
        for document in documents:
            items = document.get("items") if isinstance(document, dict) else None
            for obj in items if isinstance(items, list) else [document]:
                if not isinstance(obj, dict) or not obj.get("kind") or not obj.get("apiVersion"):
                    raise click.ClickException(f"{file}: every object needs apiVersion and kind")
                objects.append(obj)
        if not objects:
            raise click.ClickException(f"{file}: no objects")
        name, taken = file.stem, {r.name for r in runs}
        suffix = 2
        while name in taken:
            name, suffix = f"{file.stem}-{suffix}", suffix + 1
        runs.append(Autoscaler(name, tuple(objects), str(file)))
    return runs


def _progress_printer() -> Callable[[Progress], None]:
    started = time.monotonic()

    def show(progress: Progress) -> None:
        from podscale.api.durations import format_go_duration

        total = progress.total * progress.runs
        done = sum(progress.simulated, timedelta(0))
        fraction = done / total if total else 1.0
        elapsed = time.monotonic() - started
        eta = f", ETA {elapsed * (1 - fraction) / fraction:.0f}s" if 0 < fraction < 1 else ""
        line = (
            f"simulated {format_go_duration(done)} of {format_go_duration(total)}, "
            f"runs {progress.done}/{progress.runs} done{eta}"
        )
        click.echo(f"\r{line}\033[K", err=True, nl=progress.done == progress.runs)

    return show


@click.command("replay")
@click.argument("scenario", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--autoscaler",
    "autoscaler_files",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Manifests of one autoscaler run (repeatable); replace the scenario's HPAs.",
)
@click.option(
    "--from",
    "start",
    default="0s",
    show_default=True,
    help="Scenario time where the evaluation window starts (a Go duration).",
)
@click.option(
    "--duration", default=None, help="Length of the evaluation window [default: to the end]."
)
@click.option(
    "--warmup",
    default="0s",
    show_default=True,
    help="Simulated before the window, not scored (before 0: the first load).",
)
@click.option(
    "-o",
    "--output",
    type=click.Choice(["table", "json", "csv"]),
    default="table",
    show_default=True,
    help="What to print on stdout.",
)
@click.option(
    "--json",
    "json_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the JSON report here.",
)
@click.option(
    "--csv",
    "csv_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the per-minute CSV here.",
)
@click.option(
    "--plot",
    "plot_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the PNG plot here.",
)
@click.option(
    "--utilization",
    type=click.IntRange(1, 1000),
    default=None,
    help="Target CPU utilization u (percent) for needed pods [default: the "
    "autoscalers' common CPU target, else 50].",
)
@click.option(
    "--jobs",
    type=click.IntRange(1),
    default=None,
    help="Runs in parallel [default: the number of cores].",
)
@click.option(
    "--trace",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Instead of SCENARIO: replay this request-rate trace on one Deployment.",
)
@click.option("--cpu-per-request", help="With --trace: CPU one request/s costs (e.g. 20m).")
@click.option("--request", "cpu_request", help="With --trace: the pod's CPU request (e.g. 500m).")
@click.option(
    "--limit", "cpu_limit", help="With --trace: the pod's CPU limit [default: the request]."
)
@click.option(
    "--startup",
    default="90s",
    show_default=True,
    help="With --trace: time from pod creation to Ready.",
)
@click.option(
    "--min-replicas",
    type=click.IntRange(1),
    default=1,
    show_default=True,
    help="With --trace: the default HPA's minReplicas.",
)
@click.option(
    "--max-replicas",
    type=click.IntRange(1),
    default=100,
    show_default=True,
    help="With --trace: the default HPA's maxReplicas.",
)
@click.option(
    "--time-scale",
    type=float,
    default=1.0,
    show_default=True,
    help="With --trace: trace seconds per simulated second.",
)
@click.option(
    "--rate-scale",
    type=float,
    default=1.0,
    show_default=True,
    help="With --trace: multiplier on the recorded rates.",
)
@click.option("--request-type", default=None, help="With --trace: an Alibaba trace's request_type.")
@click.option(
    "--history",
    default=None,
    help="With --trace: the trace before the run's start written to the history store "
    "first (a duration: 7d, 36h; the scenario's spec.history).",
)
def replay(
    scenario: Path | None,
    autoscaler_files: tuple[Path, ...],
    start: str,
    duration: str | None,
    warmup: str,
    output: str,
    json_file: Path | None,
    csv_file: Path | None,
    plot_file: Path | None,
    utilization: int | None,
    jobs: int | None,
    trace: Path | None,
    cpu_per_request: str | None,
    cpu_request: str | None,
    cpu_limit: str | None,
    startup: str,
    min_replicas: int,
    max_replicas: int,
    time_scale: float,
    rate_scale: float,
    request_type: str | None,
    history: str | None,
) -> None:
    """Measure how well autoscalers serve a scenario's load, each on the same replay.

    Plays SCENARIO once per --autoscaler on the simulated cluster in virtual time (same
    seed, same load) and scores each over the evaluation window: under- and
    over-provisioning, SLO violations, cost, scale events and time to react, next to the
    "fixed at the peak" and "oracle" references (docs/replay.md defines every measure).
    """
    from podscale.replay.from_trace import TraceWorkload, trace_scenario
    from podscale.replay.replay import replay as run_replay
    from podscale.replay.report import render_csv, render_json, render_table
    from podscale.replay.target import Autoscaler
    from podscale.replay.window import choose_window
    from podscale.runtime.load import TraceError
    from podscale.scenario.loader import ScenarioError, load_scenario

    if (scenario is None) == (trace is None):
        raise click.UsageError("give either SCENARIO or --trace FILE")
    if history is not None and trace is None:
        raise click.UsageError("--history goes with --trace (a scenario has spec.history)")
    try:
        if trace is not None:
            if cpu_per_request is None or cpu_request is None:
                raise click.UsageError("--trace needs --cpu-per-request and --request")
            workload = TraceWorkload(
                trace,
                cpu_per_request,
                cpu_request,
                startup,
                cpu_limit,
                min_replicas=min_replicas,
                max_replicas=max(max_replicas, min_replicas),
                time_scale=time_scale,
                rate_scale=rate_scale,
                request_type=request_type,
                history=history,
            )
            loaded = trace_scenario(workload)
        else:
            assert scenario is not None
            loaded = load_scenario(scenario)
        window = choose_window(
            loaded.duration,
            _duration(start, "--from") or timedelta(0),
            _duration(duration, "--duration"),
            _duration(warmup, "--warmup") or timedelta(0),
        )
        runs = _autoscalers(autoscaler_files) or [Autoscaler("scenario")]
        show = output != "json" and sys.stderr.isatty()
        report = run_replay(
            loaded,
            runs,
            window,
            utilization=utilization,
            workers=jobs,
            on_progress=_progress_printer() if show else None,
        )
    except (ScenarioError, TraceError, ValueError) as err:
        raise click.ClickException(str(err)) from None
    texts = {"table": render_table, "json": render_json, "csv": render_csv}
    click.echo(texts[output](report), nl=False)
    for path, render in ((json_file, render_json), (csv_file, render_csv)):
        if path is not None:
            path.write_text(render(report), encoding="utf-8")
    if plot_file is not None:
        from podscale.replay.plot import write_plot

        write_plot(report, plot_file)
