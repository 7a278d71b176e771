"""``podscale up``: the flags of the embedded control plane, then ``serve`` runs it.

The flags come from ``up_flags`` (HPA, feature gates and node status), ``prometheus_flags`` and
``service_flags``; ``podscale.plane.serve.assemble_control_plane`` builds the plane and
``run_control_plane`` runs it until Ctrl-C. Loaded by ``podscale.cli.main`` only when
the command runs (it imports the API server, the controllers and the simulated cluster).
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import click

from podscale.cli.audit_flags import audit_flags, audit_settings
from podscale.cli.prometheus_flags import prometheus_flags, prometheus_settings
from podscale.cli.service_flags import service_flags, service_settings
from podscale.cli.up_flags import (
    cronhpa_flags,
    cronhpa_zone,
    feature_gates,
    feature_gates_flag,
    history_flags,
    history_retention,
    hpa_flags,
    hpa_settings,
    node_status_flag,
)
from podscale.controllers.registry import select_controllers
from podscale.controllers.shipped_crds import INSTALLED_WITH, SHIPPED_CRDS
from podscale.plane.files import ControlPlaneError, default_data_dir
from podscale.plane.serve import UpOptions, assemble_control_plane, run_control_plane

__all__ = ["up"]


def _check_controllers(_ctx: click.Context, _param: click.Parameter, value: str) -> str:
    try:
        select_controllers(value)
    except ValueError as err:
        raise click.BadParameter(str(err)) from None
    return value


@click.command("up")
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
    "horizontalpodautoscaling, namespace, podgc, webapp, cronhpa, usagehistory); '' runs none.",
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
@click.option(
    "--install-crd",
    "install_crds",
    multiple=True,
    type=click.Choice(sorted(SHIPPED_CRDS)),
    help="Install a CustomResourceDefinition podscale ships (repeatable): "
    "webapps.examples.podscale.dev is the WebApp example operator's kind, "
    "cronhorizontalpodautoscalers.autoscaling.alibabacloud.com the CronHPA's "
    "(installed by default while the cronhpa controller runs).",
)
@click.option(
    "--no-install-crd",
    "skip_crds",
    multiple=True,
    type=click.Choice(sorted(INSTALLED_WITH)),
    help="Do not install this CRD, which podscale up installs by default while its "
    "controller runs (repeatable). A CRD already in the store stays.",
)
@hpa_flags
@feature_gates_flag
@cronhpa_flags
@history_flags
@prometheus_flags
@service_flags
@audit_flags
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
    install_crds: tuple[str, ...],
    skip_crds: tuple[str, ...],
    **workers: Any,
) -> None:
    """Run the embedded control plane (API server, store, controllers and a simulated
    cluster) until Ctrl-C."""
    both = sorted(set(install_crds) & set(skip_crds))
    if both:
        raise click.UsageError(f"--install-crd and --no-install-crd both name {both[0]}")
    hpa_config, hpa_sync_period, metric_resolution = hpa_settings(workers)
    cronhpa_timezone = cronhpa_zone(workers)
    retention = history_retention(workers)
    gates = feature_gates(workers)
    prometheus = prometheus_settings(workers)
    service_network = service_settings(workers)
    audit = audit_settings(workers)
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
        install_crds=install_crds,
        skip_crds=skip_crds,
        cronhpa_timezone=cronhpa_timezone,
        history_retention=retention,
        feature_gates=gates,
        **audit,
    )
    try:
        plane = assemble_control_plane(options)
        stop_signal = run_control_plane(plane, announce=click.echo)
    except ControlPlaneError as err:
        raise click.ClickException(str(err)) from None
    click.echo(f"podscale control plane stopped{f' ({stop_signal})' if stop_signal else ''}.")
