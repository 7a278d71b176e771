"""What every resource command of ``podscale.cli.resources`` does around its core.

``connection_options`` adds kubectl's ``--kubeconfig``, ``--context`` and ``-n`` to a
command; ``execute`` builds the ``Target`` from them, opens an ``HttpApi`` with kubectl's
client limits, awaits the command's core and prints its ``Report`` as kubectl does (stdout,
stderr, exit 1 on errors; a refused connection or a transport failure in kubectl's words);
``execute_on_one`` does so for the one object ``TYPE NAME`` or ``TYPE/NAME`` names, which
``split_type`` reads.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

import click
import httpx

from podscale.cli.resources_core import CommandError, Report, Target, target_from_kubeconfig
from podscale.client.http import HttpApi
from podscale.client.throttle import KUBECTL_DISCOVERY_LIMITS

__all__ = ["Core", "connection_options", "execute", "execute_on_one", "split_type"]

F = TypeVar("F", bound=Callable[..., Any])
Core = Callable[[HttpApi, Target], Awaitable[Report]]


def connection_options(func: F) -> F:
    """``--kubeconfig``, ``--context`` and ``-n/--namespace``, as kubectl spells them."""
    func = click.option(
        "-n", "--namespace", default=None, help="Namespace [default: the context's, else default]."
    )(func)
    func = click.option("--context", default=None, help="Kubeconfig context to use.")(func)
    return click.option(
        "--kubeconfig",
        default=None,
        help="Kubeconfig file [default: $KUBECONFIG, else ~/.kube/config].",
    )(func)


async def _run_core(target: Target, core: Core) -> Report:
    # As kubectl: rest.Config's default 5 qps / burst 10 for the requests, and the 50/300
    # kubectl gives its discovery client for the discovery reads.
    async with HttpApi(target.connection, discovery_limits=KUBECTL_DISCOVERY_LIMITS) as api:
        return await core(api, target)


def execute(kubeconfig: str | None, context: str | None, namespace: str | None, core: Core) -> None:
    """Run ``core`` and print its report like kubectl; exit 1 on any error."""
    try:
        target = target_from_kubeconfig(kubeconfig, context, namespace)
        report = asyncio.run(_run_core(target, core))
    except CommandError as err:
        click.echo(str(err), err=True)
        sys.exit(1)
    except httpx.ConnectError:
        server = urlsplit(target.connection.server).netloc
        click.echo(
            f"The connection to the server {server} was refused - "
            "did you specify the right host or port?",
            err=True,
        )
        sys.exit(1)
    except (httpx.HTTPError, OSError) as err:  # timeouts, TLS, DNS
        click.echo(f"error: {err}", err=True)
        sys.exit(1)
    for line in report.out:
        click.echo(line)
    for line in report.notes + report.errors:
        click.echo(line, err=True)
    if report.failed:
        sys.exit(1)


def split_type(args: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """``TYPE NAME...`` or ``TYPE/NAME``: the resource type and the names."""
    if not args:
        raise click.UsageError("You must specify the type of resource")
    first, rest = args[0], args[1:]
    if "/" in first:
        resource, _, name = first.partition("/")
        return resource, (name, *rest)
    return first, rest


def _single(args: tuple[str, ...]) -> tuple[str, str]:
    resource, names = split_type(args)
    if len(names) != 1:
        raise click.UsageError("expected TYPE NAME (or TYPE/NAME)")
    return resource, names[0]


def execute_on_one(
    args: tuple[str, ...],
    kubeconfig: str | None,
    context: str | None,
    namespace: str | None,
    core: Callable[[HttpApi, Target, str, str], Awaitable[Report]],
) -> None:
    """``execute`` of ``core`` on the one object ``args`` names (TYPE NAME or TYPE/NAME)."""
    resource, name = _single(args)
    execute(kubeconfig, context, namespace, lambda api, t: core(api, t, resource, name))
