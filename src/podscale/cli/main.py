"""The ``podscale`` command line: argument parsing only, the work happens in the core.

Commands: ``explain-scale FILE`` (read a ScaleInput document, run the decision engine,
print the decision trace), ``up`` (run the embedded control plane, assembled in
``podscale.plane.serve``), ``demo`` (``demo_command``) and the kubectl-like resource
commands (``resources``).
"""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import click
import orjson
import yaml

from podscale import __version__
from podscale.cli.demo_command import demo
from podscale.cli.prometheus_flags import prometheus_flags, prometheus_settings
from podscale.cli.resources import register_resource_commands
from podscale.cli.service_flags import service_flags, service_settings
from podscale.cli.up_flags import hpa_flags, hpa_settings, node_status_flag
from podscale.controllers.registry import select_controllers
from podscale.hpa import decide, render_trace, trace_to_dict
from podscale.hpa.scenario import ScaleInputError, parse_scale_input
from podscale.plane.files import ControlPlaneError, default_data_dir
from podscale.plane.serve import UpOptions, assemble_control_plane, run_control_plane

__all__ = ["cli", "main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="podscale")
def cli() -> None:
    """podscale: Kubernetes horizontal pod autoscaling, faithful to upstream."""


def _load_document(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise click.ClickException(f"cannot read {path}: {err.strerror}") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise click.ClickException(f"{path} is not valid YAML or JSON: {err}") from None


@cli.command("explain-scale")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: the explained decision; json: decision, status, events and trace.",
)
def explain_scale(file: Path, output: str) -> None:
    """Decide one HPA sync from FILE (a ScaleInput document) and explain every step."""
    try:
        scenario = parse_scale_input(_load_document(file))
    except ScaleInputError as err:
        raise click.ClickException(f"{file}: {err}") from None
    decision = decide(
        scenario.hpa,
        scale=scenario.scale,
        pods=scenario.pods,
        metrics=scenario.metrics,
        history=scenario.history,
        now=scenario.now,
        config=scenario.config,
    )
    if output == "json":
        body = {
            "desiredReplicas": decision.desired_replicas,
            "rescale": decision.rescale,
            "reason": decision.reason,
            "error": decision.error,
            "status": decision.status,
            "events": [
                {"type": e.type, "reason": e.reason, "message": e.message} for e in decision.events
            ],
            "trace": trace_to_dict(decision.trace),
        }
        click.echo(orjson.dumps(body, option=orjson.OPT_INDENT_2).decode())
        return
    click.echo(render_trace(decision.trace))
    click.echo("conditions:")
    for cond in decision.status.get("conditions", []):
        click.echo(f"  {cond['type']}={cond['status']} {cond['reason']}: {cond['message']}")
    if decision.events:
        click.echo("events:")
        for event in decision.events:
            click.echo(f"  {event.type} {event.reason}: {event.message}")


def _check_controllers(_ctx: click.Context, _param: click.Parameter, value: str) -> str:
    try:
        select_controllers(value)
    except ValueError as err:
        raise click.BadParameter(str(err)) from None
    return value


@cli.command("up")
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where the store, token and kubeconfig live "
    "[default: $PODSCALE_HOME, else $XDG_DATA_HOME/podscale].",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    show_default=True,
    help="Port to bind; 0 picks a free one.",
)
@click.option(
    "--kubeconfig",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where to write the kubeconfig [default: DATA_DIR/kubeconfig].",
)
@click.option(
    "--no-auth",
    is_flag=True,
    help="Serve without a bearer token (refused unless HOST is a loopback address).",
)
@click.option(
    "--tls/--no-tls",
    default=None,
    help="Serve https with a private CA recorded in the kubeconfig "
    "[default: on when authentication is on; kubectl sends tokens only over https].",
)
@click.option(
    "--insecure-allow-plaintext",
    is_flag=True,
    help="Allow --no-tls with authentication on a non-loopback HOST (the bearer token then "
    "crosses the network in clear text).",
)
@click.option(
    "--controllers",
    default="*",
    show_default=True,
    callback=_check_controllers,
    help="Controllers to run, as kube-controller-manager's flag: '*' all, 'foo' enables, "
    "'-foo' disables (replicaset, deployment, statefulset, garbagecollector, "
    "horizontalpodautoscaling, namespace); '' runs none.",
)
@click.option(
    "--simulate/--no-simulate",
    default=True,
    show_default=True,
    help="Run simulated nodes, a scheduler and kubelets, so pods get scheduled and run.",
)
@click.option(
    "--nodes", type=click.IntRange(0), default=3, show_default=True, help="Simulated nodes."
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the simulation.")
@click.option(
    "--concurrent-replicaset-syncs",
    type=click.IntRange(1),
    default=None,
    help="Objects synced concurrently by the ReplicaSets controller [default: 5].",
)
@click.option(
    "--concurrent-deployment-syncs",
    type=click.IntRange(1),
    default=None,
    help="Objects synced concurrently by the Deployments controller [default: 5].",
)
@click.option(
    "--concurrent-statefulset-syncs",
    type=click.IntRange(1),
    default=None,
    help="Objects synced concurrently by the StatefulSets controller [default: 5].",
)
@click.option(
    "--concurrent-gc-syncs",
    type=click.IntRange(1),
    default=None,
    help="Objects synced concurrently by the garbage collector controller [default: 20].",
)
@hpa_flags
@prometheus_flags
@service_flags
@click.option("--report-minor", type=click.IntRange(0), default=None, hidden=True)
@node_status_flag
def up(
    data_dir: Path | None,
    host: str,
    port: int,
    kubeconfig: Path | None,
    no_auth: bool,
    tls: bool | None,
    insecure_allow_plaintext: bool,
    controllers: str,
    simulate: bool,
    nodes: int,
    seed: int,
    report_minor: int | None,
    node_status_report_frequency: timedelta,
    **workers: Any,
) -> None:
    """Run the embedded control plane (API server, store, controllers and a simulated
    cluster) until Ctrl-C."""
    hpa_config, hpa_sync_period, metric_resolution = hpa_settings(workers)
    prometheus = prometheus_settings(workers)
    service_network = service_settings(workers)
    options = UpOptions(
        data_dir=data_dir if data_dir is not None else default_data_dir(),
        host=host,
        port=port,
        kubeconfig=kubeconfig,
        auth=not no_auth,
        report_minor=report_minor,
        tls=tls,
        insecure_allow_plaintext=insecure_allow_plaintext,
        controllers=controllers,
        simulate=simulate,
        nodes=nodes,
        seed=seed,
        workers={flag: count for flag, count in workers.items() if count is not None},
        hpa_sync_period=hpa_sync_period,
        hpa_config=hpa_config,
        metric_resolution=metric_resolution,
        prometheus=prometheus,
        service_network=service_network,
        node_status_report_frequency=node_status_report_frequency,
    )
    try:
        plane = assemble_control_plane(options)
        stop_signal = run_control_plane(plane, announce=click.echo)
    except ControlPlaneError as err:
        raise click.ClickException(str(err)) from None
    click.echo(f"podscale control plane stopped{f' ({stop_signal})' if stop_signal else ''}.")


register_resource_commands(cli)
cli.add_command(demo)


def main() -> None:
    """Console entry point."""
    cli.main(prog_name="podscale")
    sys.exit(0)  # pragma: no cover - cli.main exits itself
