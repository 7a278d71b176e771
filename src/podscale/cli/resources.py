"""The resource commands: ``get``, ``describe``, ``create -f``, ``apply -f``, ``delete``,
``scale``, ``autoscale`` and ``load``, against any Kubernetes-compatible server in a kubeconfig.

Argument parsing only: each command hands one core (``resources_get``, ``describe``,
``resources_write``, ``apply``, ``resources_load``) to ``resources_run.execute``, which
builds the ``Target`` (``--kubeconfig``, ``--context``, ``-n``), opens an ``HttpApi``,
awaits the core and prints its ``Report`` as kubectl does. ``podscale.cli.main`` loads this
module when one of them runs; each command imports its core when it runs, so ``get`` does
not import the apply machinery nor ``describe`` the writers. ``TYPE NAME`` and ``TYPE/NAME``
are both accepted.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from podscale.cli.resources_core import CommandError, Report, Target
from podscale.cli.resources_run import (
    Core,
    connection_options,
    execute,
    execute_on_one,
    split_type,
)

# delete's --cascade choices; the module imports only what every command here needs.
from podscale.cli.resources_write import CASCADE_POLICIES
from podscale.client.http import HttpApi

__all__ = [
    "apply_command",
    "autoscale_command",
    "create_command",
    "delete_command",
    "describe_command",
    "get_command",
    "load_command",
    "scale_command",
]


@click.command("get")
@click.argument("args", nargs=-1, required=True)
@connection_options
@click.option("-A", "--all-namespaces", is_flag=True, help="List across all namespaces.")
@click.option("-l", "--selector", default="", help="Label selector, e.g. app=web.")
@click.option("-o", "--output", type=click.Choice(["wide", "yaml", "json", "name"]), default=None)
@click.option(
    "--show-managed-fields",
    is_flag=True,
    help="Keep metadata.managedFields when printing objects as YAML or JSON (as kubectl).",
)
def get_command(
    args: tuple[str, ...],
    kubeconfig: str | None,
    context: str | None,
    namespace: str | None,
    all_namespaces: bool,
    selector: str,
    output: str | None,
    show_managed_fields: bool,
) -> None:
    """Display one or many resources (TYPE [NAME...])."""
    from podscale.cli.resources_get import GetRequest, get_objects

    resource, names = split_type(args)
    request = GetRequest(
        resource, names, all_namespaces, selector, output or "", show_managed_fields
    )
    execute(kubeconfig, context, namespace, lambda api, t: get_objects(api, t, request))


@click.command("describe")
@click.argument("args", nargs=-1, required=True)
@connection_options
def describe_command(
    args: tuple[str, ...], kubeconfig: str | None, context: str | None, namespace: str | None
) -> None:
    """Show details of hpa, rs, deploy or sts objects (TYPE NAME...)."""
    from podscale.cli.describe import describe_objects

    resource, names = split_type(args)
    now = datetime.now(UTC)
    execute(
        kubeconfig,
        context,
        namespace,
        lambda api, t: describe_objects(api, t, resource, names, now),
    )


_FILE = click.option(
    "-f",
    "--filename",
    "filename",
    type=click.Path(dir_okay=False, path_type=Path),
    help="YAML or JSON manifest (several documents or a List allowed).",
)


def _manifests_or_fail(filename: Path | None) -> Any:
    from podscale.cli.manifests import load_manifests

    if filename is None:
        raise click.UsageError("must specify -f/--filename")
    try:
        return load_manifests(filename)
    except CommandError as err:
        click.echo(str(err), err=True)
        sys.exit(1)


# A core over the manifests of ``-f`` (``create_manifests``, ``apply_manifests``).
ManifestsCore = Callable[[HttpApi, Target, Any], Awaitable[Report]]


def _manifests_command(name: str, doc: str, load_core: Callable[[], ManifestsCore]) -> Any:
    """``name -f FILE``: run the core ``load_core`` imports (when the command runs) over the
    file's manifests; ``doc`` is the command's help."""

    @click.command(name, help=doc)
    @_FILE
    @connection_options
    def command(
        filename: Path | None, kubeconfig: str | None, context: str | None, namespace: str | None
    ) -> None:
        core = load_core()
        manifests = _manifests_or_fail(filename)
        execute(kubeconfig, context, namespace, lambda api, t: core(api, t, manifests))

    return command


def _create_core() -> ManifestsCore:
    from podscale.cli.resources_write import create_manifests

    return create_manifests


def _apply_core() -> ManifestsCore:
    from podscale.cli.apply import apply_manifests

    return apply_manifests


create_command = _manifests_command("create", "Create resources from a file.", _create_core)
apply_command = _manifests_command(
    "apply", "Apply a configuration from a file (client-side apply, like kubectl).", _apply_core
)


@click.command("delete")
@click.argument("args", nargs=-1)
@_FILE
@connection_options
@click.option(
    "--cascade",
    type=click.Choice(sorted(CASCADE_POLICIES)),
    default="background",
    show_default=True,
    help="How dependents are deleted.",
)
def delete_command(
    args: tuple[str, ...],
    filename: Path | None,
    kubeconfig: str | None,
    context: str | None,
    namespace: str | None,
    cascade: str,
) -> None:
    """Delete resources by TYPE NAME... or from a file (-f)."""
    if filename is not None:
        manifests = _manifests_or_fail(filename)
        core: Core = functools.partial(_delete_file, manifests=manifests, cascade=cascade)
    else:
        resource, names = split_type(args)
        core = functools.partial(_delete_named, resource=resource, names=names, cascade=cascade)
    execute(kubeconfig, context, namespace, core)


async def _delete_file(api: HttpApi, target: Target, *, manifests: Any, cascade: str) -> Report:
    from podscale.cli.resources_write import delete_manifests

    return await delete_manifests(api, target, manifests, cascade)


async def _delete_named(
    api: HttpApi, target: Target, *, resource: str, names: tuple[str, ...], cascade: str
) -> Report:
    from podscale.cli.resources_write import delete_objects

    return await delete_objects(api, target, resource, names, cascade)


@click.command("scale")
@click.argument("args", nargs=-1, required=True)
@connection_options
@click.option("--replicas", type=int, required=True, help="The new desired number of replicas.")
@click.option(
    "--current-replicas",
    type=int,
    default=None,
    help="Precondition: only scale if the current size is this.",
)
def scale_command(
    args: tuple[str, ...],
    kubeconfig: str | None,
    context: str | None,
    namespace: str | None,
    replicas: int,
    current_replicas: int | None,
) -> None:
    """Set a new size for a Deployment, ReplicaSet or StatefulSet (TYPE NAME)."""
    from podscale.cli.resources_write import scale_object

    write = functools.partial(scale_object, replicas=replicas, current_replicas=current_replicas)
    execute_on_one(args, kubeconfig, context, namespace, write)


@click.command("load")
@click.argument("args", nargs=-1, required=True)
@connection_options
@click.option("--rate", type=float, default=None, help="A constant load, in requests/s.")
@click.option("--step", "steps", multiple=True, help="AT=RATE, e.g. 0s=10 --step 5m=80.")
@click.option("--ramp", default=None, help="FROM,TO,OVER: e.g. 10,80,5m.")
@click.option("--sine", default=None, help="BASE,AMPLITUDE,PERIOD: e.g. 50,30,10m.")
@click.option("--trace", default=None, help="A request-rate trace file (read by the plane).")
@click.option("--time-scale", type=float, default=None, help="Trace seconds per second.")
@click.option("--loop", is_flag=True, help="Replay the trace from its start when it ends.")
@click.option("-f", "--filename", "spec_file", default=None, help="A load spec (YAML or JSON).")
@click.option("--off", is_flag=True, help="Remove the load: the pods idle.")
@click.option("--cpu-per-request", default=None, help="CPU per request/s, e.g. 20m.")
@click.option("--memory-per-request", default=None, help="Memory per request/s, e.g. 1Mi.")
@click.option("--container", default=None, help="The costed container [default: the first].")
@click.option("--noise", type=float, default=None, help="Usage noise stddev [default: 0.05].")
def load_command(
    args: tuple[str, ...],
    kubeconfig: str | None,
    context: str | None,
    namespace: str | None,
    **flags: Any,
) -> None:
    """Set the simulated load of a Deployment, ReplicaSet or StatefulSet (TYPE NAME)."""
    from podscale.cli.resources_load import LoadFlags, set_load

    write = functools.partial(set_load, flags=LoadFlags(**flags))
    execute_on_one(args, kubeconfig, context, namespace, write)


@click.command("autoscale")
@click.argument("args", nargs=-1, required=True)
@connection_options
@click.option("--max", "max_replicas", type=int, required=True, help="Upper replica limit.")
@click.option("--min", "min_replicas", type=int, default=None, help="Lower replica limit.")
@click.option("--cpu-percent", type=int, default=None, help="Target average CPU utilization.")
@click.option("--name", "hpa_name", default=None, help="HPA name [default: the target's].")
def autoscale_command(
    args: tuple[str, ...],
    kubeconfig: str | None,
    context: str | None,
    namespace: str | None,
    max_replicas: int,
    min_replicas: int | None,
    cpu_percent: int | None,
    hpa_name: str | None,
) -> None:
    """Create an autoscaling/v2 HorizontalPodAutoscaler for a scalable resource (TYPE NAME)."""
    from podscale.cli.resources_write import autoscale_object

    write = functools.partial(
        autoscale_object,
        max_replicas=max_replicas,
        min_replicas=min_replicas,
        cpu_percent=cpu_percent,
        hpa_name=hpa_name,
    )
    execute_on_one(args, kubeconfig, context, namespace, write)
