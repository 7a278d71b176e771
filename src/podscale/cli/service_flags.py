"""``podscale up``'s service network flags, named and defaulted as kube-apiserver's.

``--service-cluster-ip-range`` (kube-apiserver's built-in default, 10.0.0.0/24) and
``--service-node-port-range`` (30000-32767) become the ``ServiceNetwork`` the API server
allocates Service cluster IPs and node ports from (``podscale.apiserver.registry.service_ranges``).
``service_flags`` decorates the command, ``service_settings`` pops the parsed value from its
keyword arguments (as ``up_flags.hpa_settings`` does for the HPA flags).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from podscale.apiserver.registry.service_ranges import (
    DEFAULT_NODE_PORT_RANGE,
    DEFAULT_SERVICE_CIDR,
    ServiceNetwork,
    parse_node_port_range,
    parse_service_cidr,
)

__all__ = ["service_flags", "service_settings"]

F = TypeVar("F", bound=Callable[..., Any])


def _checked(parse: Callable[[str], Any]) -> Callable[[click.Context, click.Parameter, str], Any]:
    def callback(_ctx: click.Context, _param: click.Parameter, value: str) -> Any:
        try:
            return parse(value)
        except ValueError as err:
            raise click.BadParameter(str(err)) from None

    return callback


def service_flags(command: F) -> F:
    """Add the two flags to ``command``."""
    options = [
        click.option(
            "--service-cluster-ip-range",
            default=DEFAULT_SERVICE_CIDR,
            show_default=True,
            callback=_checked(parse_service_cidr),
            help="A CIDR notation IP range from which to assign service cluster IPs.",
        ),
        click.option(
            "--service-node-port-range",
            default=DEFAULT_NODE_PORT_RANGE,
            show_default=True,
            callback=_checked(parse_node_port_range),
            help="A port range to reserve for services with NodePort visibility (BASE-MAX).",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def service_settings(values: dict[str, Any]) -> ServiceNetwork:
    """Pop the ``service_flags`` values from a command's keyword arguments."""
    network = ServiceNetwork()
    cidr = values.pop("service_cluster_ip_range", None)
    ports = values.pop("service_node_port_range", None)
    return ServiceNetwork(
        cidr=cidr if cidr is not None else network.cidr,
        node_ports=ports if ports is not None else network.node_ports,
    )
