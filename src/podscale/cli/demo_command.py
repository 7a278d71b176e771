"""``podscale demo``: parse the arguments, then call ``podscale.demo.driver``.

Without a SCENARIO it plays the bundled ``php-apache-demo`` (the Kubernetes HPA
walkthrough: a Deployment with a CPU request and a 50% CPU HPA under a load that goes up,
then down). SCENARIO is a scenario file or the name of a bundled one (``demo_catalog``;
``--list`` shows them). ``--real-time`` plays it at wall speed next to a served API and
writes a kubeconfig, so kubectl can watch along (``demo_real_time``). The simulation, the
plot and the server are imported when the command runs, so ``podscale --help`` and the
other commands do not pay for them.
"""

from __future__ import annotations

import sys
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

import click

from podscale.cli.demo_catalog import DEFAULT_SCENARIO, bundled_scenario, bundled_scenarios

if TYPE_CHECKING:
    from podscale.demo.driver import DemoOutputs
    from podscale.demo.view import LiveView

__all__ = ["demo"]


def _report(outputs: DemoOutputs) -> None:
    click.echo("")
    for line in outputs.summary:
        click.echo(line)
    click.echo(f"plot: {outputs.plot}")
    click.echo(f"timeline: {outputs.timeline}")


def _live_view(color: bool | None) -> AbstractContextManager[LiveView]:
    """A ``rich`` live table on a terminal (or with ``--color``); plain lines otherwise,
    so piped output stays deterministic. rich is imported only here, when it is used."""
    from podscale.demo.view import LiveView

    if color is False or (color is None and not sys.stdout.isatty()):
        return nullcontext(LiveView(sys.stdout))
    from rich.console import Console

    from podscale.cli.demo_live import RichLiveView

    return RichLiveView(Console(force_terminal=color or None))


def _print_list() -> None:
    scenarios = bundled_scenarios()
    width = max(len(s.name) for s in scenarios)
    for scenario in scenarios:
        click.echo(f"{scenario.name:<{width}}  {scenario.description}".rstrip())


def _scenario_file(scenario: str | None) -> AbstractContextManager[Path]:
    """The file to play: an existing file as given, else a bundled scenario by name."""
    if scenario is None:
        return bundled_scenario(DEFAULT_SCENARIO)
    path = Path(scenario)
    if path.is_file():
        return nullcontext(path)
    try:
        return bundled_scenario(scenario)
    except KeyError:
        raise click.ClickException(
            f"scenario file {path} not found, and no bundled scenario is named {scenario!r}: "
            "pass a file, or a name from podscale demo --list"
        ) from None


@click.command("demo")
@click.argument("scenario", required=False, default=None)
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
@click.option("--list", "list_only", is_flag=True, help="List the bundled scenarios and exit.")
def demo(
    scenario: str | None,
    out_dir: Path,
    real_time: bool,
    data_dir: Path | None,
    color: bool | None,
    list_only: bool,
) -> None:
    """Scale a workload under load with the HPA, on the simulated cluster, and show it.

    Plays SCENARIO (a scenario file, or the name of a bundled scenario; default:
    php-apache-demo) in virtual time: the control plane, controllers, metrics server and
    simulated kubelets run on one virtual clock, so the 20 simulated minutes of the
    default scenario take seconds.
    """
    if list_only:
        _print_list()
        return
    # Imported here: the simulation and its plot cost about a second of imports.
    from podscale.scenario.loader import ScenarioError, load_scenario

    with _scenario_file(scenario) as path:
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
                from podscale.cli.demo_real_time import run_demo_real_time

                outputs = run_demo_real_time(loaded, out_dir, view=view, data_dir=data_dir)
            else:
                from podscale.demo.driver import run_demo

                try:
                    outputs = run_demo(loaded, out_dir, view=view)
                except ValueError as err:
                    raise click.ClickException(str(err)) from None
    _report(outputs)
