"""``podscale demo --real-time``: the demo at wall speed next to a served API.

The same scenario player as the virtual-time demo (``podscale.demo.driver``), on the
``SystemClock`` of a control plane assembled exactly as ``podscale up`` assembles it
(``serve.assemble_control_plane``: SQLite store, bearer token, https, kubeconfig). The
embedded plane gets the scenario's nodes, pod timing and seed; the scenario is played once
it has started, and the server stops when the scenario ends (or on Ctrl-C, keeping what was
recorded). While it runs, kubectl can watch along with the printed kubeconfig.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from podscale.demo.driver import (
    DemoOutputs,
    DemoRecorder,
    finish_demo,
    first_hpa,
    play_demo_real_time,
)
from podscale.demo.view import LiveView
from podscale.plane.embedded import EmbeddedControlPlane
from podscale.plane.files import ControlPlaneError
from podscale.plane.serve import ControlPlane, UpOptions, assemble_control_plane, run_control_plane
from podscale.scenario.model import Scenario
from podscale.scenario.run import node_specs

__all__ = ["run_demo_real_time"]


def run_demo_real_time(
    scenario: Scenario, out_dir: Path, *, view: LiveView, data_dir: Path | None
) -> DemoOutputs:
    """Play ``scenario`` at wall speed with a served API; write the results into ``out_dir``."""
    name, namespace = first_hpa(scenario)
    recorder = DemoRecorder(name, namespace, view)
    directory = data_dir if data_dir is not None else Path(tempfile.mkdtemp(prefix="podscale-"))
    options = UpOptions(data_dir=directory, seed=scenario.seed)

    def build(plane: ControlPlane) -> EmbeddedControlPlane | None:
        assert plane.api is not None  # assemble_control_plane always provides it
        return EmbeddedControlPlane(
            plane.api.state.clock,
            api=plane.api,
            nodes=node_specs(scenario) or None,
            seed=scenario.seed,
            profile=scenario.pods,
        )

    async def drive(plane: EmbeddedControlPlane) -> None:
        await play_demo_real_time(plane, scenario, recorder)

    try:
        plane = assemble_control_plane(options)
        run_control_plane(plane, announce=click.echo, build=build, drive=drive)
    except ControlPlaneError as err:
        raise click.ClickException(str(err)) from None
    return finish_demo(recorder, out_dir)
