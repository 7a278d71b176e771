"""``podscale demo``: parse the arguments, then call ``podscale.demo.driver``.

Without a SCENARIO it plays ``examples/scenarios/php-apache-demo.yaml`` of the source tree (the
Kubernetes HPA walkthrough: a Deployment with a CPU request and a 50% CPU HPA under a
load that goes up, then down). ``--real-time`` plays it at wall speed next to a served API
and writes a kubeconfig, so kubectl can watch along (``demo_real_time``).
"""

from __future__ import annotations

import sys
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Final

import click

import podscale
from podscale.cli.demo_real_time import run_demo_real_time
from podscale.demo.driver import DemoOutputs, run_demo
from podscale.demo.view import LiveView
from podscale.scenario.loader import ScenarioError, load_scenario

__all__ = ["DEFAULT_SCENARIO", "demo"]

# src/podscale/__init__.py -> the repository root, where examples/ lives.
DEFAULT_SCENARIO: Final = (
    Path(podscale.__file__).resolve().parents[2] / "examples" / "scenarios" / "php-apache-demo.yaml"
)


def _report(outputs: DemoOutputs) -> None:
    click.echo("")
    for line in outputs.summary:
        click.echo(line)
    click.echo(f"plot: {outputs.plot}")
    click.echo(f"timeline: {outputs.timeline}")


def _live_view(color: bool | None) -> AbstractContextManager[LiveView]:
    """A ``rich`` live table on a terminal (or with ``--color``); plain lines otherwise,
    so piped output stays deterministic. rich is imported only here, when it is used."""
    if color is False or (color is None and not sys.stdout.isatty()):
        return nullcontext(LiveView(sys.stdout))
    from rich.console import Console

    from podscale.cli.demo_live import RichLiveView

    return RichLiveView(Console(force_terminal=color or None))


@click.command("demo")
@click.argument(
    "scenario", required=False, type=click.Path(dir_okay=False, path_type=Path), default=None
)
@click.option(
    "--output",
    "-o",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("podscale-demo"),
    show_default=True,
    help="Directory for the plot (podscale-demo.png) and the timeline (podscale-demo.json).",
)
@click.option(
    "--real-time",
    is_flag=True,
    help="Run at wall speed next to a served API and write a kubeconfig for kubectl.",
)
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="With --real-time: where the store, token and kubeconfig live "
    "[default: a fresh temporary directory].",
)
@click.option(
    "--color/--no-color",
    default=None,
    help="A live table in colour [default: on a TTY]; without, plain lines.",
)
def demo(
    scenario: Path | None,
    out_dir: Path,
    real_time: bool,
    data_dir: Path | None,
    color: bool | None,
) -> None:
    """Scale a workload under load with the HPA, on the simulated cluster, and show it.

    Plays SCENARIO (default: examples/scenarios/php-apache-demo.yaml) in virtual time: the control
    plane, controllers, metrics server and simulated kubelets run on one virtual clock, so
    the 20 simulated minutes of the default scenario take seconds.
    """
    path = scenario if scenario is not None else DEFAULT_SCENARIO
    if not path.is_file():
        raise click.ClickException(
            f"scenario file {path} not found: pass one (see examples/scenarios/)"
        )
    try:
        loaded = load_scenario(path)
    except (ScenarioError, OSError) as err:
        raise click.ClickException(str(err)) from None
    seconds = loaded.duration.total_seconds()
    span = f"{seconds / 60:g} minutes" if seconds % 60 == 0 else f"{seconds:g} seconds"
    speed = "at wall speed" if real_time else "simulated"
    click.echo(f"podscale demo: {loaded.name}, {span} {speed}")
    with _live_view(color) as view:
        if real_time:
            outputs = run_demo_real_time(loaded, out_dir, view=view, data_dir=data_dir)
        else:
            try:
                outputs = run_demo(loaded, out_dir, view=view)
            except ValueError as err:
                raise click.ClickException(str(err)) from None
    _report(outputs)
