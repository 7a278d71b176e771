"""The ``podscale`` command line: the group and where each command lives.

Each command is a module of this package, imported only when that command runs (or shows
its own ``--help``): ``explain_command`` (``explain-scale``: the decision engine on one
ScaleInput document), ``up_command`` (``up``: the embedded control plane, from ``serve``),
``demo_command`` (``demo``: a scenario on the simulated cluster), ``replay_command``
(``replay``: autoscalers scored on the same load) and ``resources`` (``get``,
``describe``, ``create``, ``apply``, ``delete``, ``scale``, ``autoscale`` against a
kubeconfig). The server, the simulation and its plot take about two seconds to import, so
``podscale --help`` and ``podscale get`` must not import them: this module imports click
and nothing heavier, and lists the commands from ``COMMANDS`` without loading them.
"""

from __future__ import annotations

import importlib
import sys
from typing import Final, NamedTuple

import click

from podscale import __version__

__all__ = ["COMMANDS", "CommandEntry", "cli", "main"]


class CommandEntry(NamedTuple):
    """Where a command is defined, and its one-line help for ``podscale --help`` (the
    first line of the command's docstring: a test keeps the two equal)."""

    module: str
    attribute: str
    short_help: str


COMMANDS: Final = {
    "apply": CommandEntry(
        "podscale.cli.resources",
        "apply_command",
        "Apply a configuration from a file (client-side apply, like kubectl).",
    ),
    "autoscale": CommandEntry(
        "podscale.cli.resources",
        "autoscale_command",
        "Create an autoscaling/v2 HorizontalPodAutoscaler for a scalable resource (TYPE NAME).",
    ),
    "controller-manager": CommandEntry(
        "podscale.cli.controller_manager_command",
        "controller_manager",
        "Run podscale's controllers against a Kubernetes API server (kubeconfig or in-cluster).",
    ),
    "create": CommandEntry(
        "podscale.cli.resources", "create_command", "Create resources from a file."
    ),
    "delete": CommandEntry(
        "podscale.cli.resources",
        "delete_command",
        "Delete resources by TYPE NAME... or from a file (-f).",
    ),
    "demo": CommandEntry(
        "podscale.cli.demo_command",
        "demo",
        "Scale a workload under load with the HPA, on the simulated cluster, and show it.",
    ),
    "describe": CommandEntry(
        "podscale.cli.resources",
        "describe_command",
        "Show details of hpa, rs, deploy or sts objects (TYPE NAME...).",
    ),
    "explain-scale": CommandEntry(
        "podscale.cli.explain_command",
        "explain_scale",
        "Decide one HPA sync from FILE (a ScaleInput document) and explain every step.",
    ),
    "get": CommandEntry(
        "podscale.cli.resources",
        "get_command",
        "Display one or many resources (TYPE [NAME...]).",
    ),
    "load": CommandEntry(
        "podscale.cli.resources",
        "load_command",
        "Set the simulated load of a Deployment, ReplicaSet or StatefulSet (TYPE NAME).",
    ),
    "manifests": CommandEntry(
        "podscale.cli.manifests_command",
        "manifests",
        "Print the manifests that run podscale's controllers on a Kubernetes cluster.",
    ),
    "replay": CommandEntry(
        "podscale.cli.replay_command",
        "replay",
        "Measure how well autoscalers serve a scenario's load, each on the same replay.",
    ),
    "scale": CommandEntry(
        "podscale.cli.resources",
        "scale_command",
        "Set a new size for a Deployment, ReplicaSet or StatefulSet (TYPE NAME).",
    ),
    "up": CommandEntry(
        "podscale.cli.up_command",
        "up",
        "Run the embedded control plane (API server, store, controllers and a simulated "
        "cluster) until Ctrl-C.",
    ),
}


def load_command(name: str) -> click.Command:
    """Import the module of command ``name`` and return the command."""
    entry = COMMANDS[name]
    command = getattr(importlib.import_module(entry.module), entry.attribute)
    assert isinstance(command, click.Command)
    return command


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use; its help lists them from
    ``COMMANDS`` without importing any."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return load_command(cmd_name) if cmd_name in COMMANDS else None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        width = formatter.width - 6 - max(len(name) for name in COMMANDS)
        # A stand-in Command shortens each line as click would for the loaded command.
        rows = [
            (name, click.Command(name, help=entry.short_help).get_short_help_str(width))
            for name, entry in sorted(COMMANDS.items())
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="podscale")
def cli() -> None:
    """podscale: Kubernetes horizontal pod autoscaling, faithful to upstream."""


def main() -> None:
    """Console entry point."""
    cli.main(prog_name="podscale")
    sys.exit(0)  # pragma: no cover - cli.main exits itself
