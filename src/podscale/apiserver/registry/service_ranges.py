"""The service network: cluster IP and node port ranges, and picking free values in them.

kube-apiserver's ``--service-cluster-ip-range`` (podscale's default is kube-apiserver's own,
10.0.0.0/24) and ``--service-node-port-range`` (30000-32767). Its allocators are bitmaps over
the usable values (an IPv4 range without its network and broadcast addresses); since the
static-subrange features they keep the bottom of each range (16..256 addresses: a sixteenth
of an IP range; 16..128 ports: a thirty-second of a port range) for values users ask for, and
hand out the upper part first, falling back to the bottom once the upper part is full.
A dynamic pick starts at a random offset of the band and scans forward, as upstream's does.

Pure functions over the set of values already in use: ``service_allocation`` builds that set
from the stored Services, so allocations are as durable as the store and are freed the moment
a Service is gone. Error texts are upstream's allocator errors.
"""

from __future__ import annotations

import ipaddress
import random
from collections.abc import Set
from dataclasses import dataclass
from typing import Final

__all__ = [
    "DEFAULT_NODE_PORT_RANGE",
    "DEFAULT_SERVICE_CIDR",
    "ServiceNetwork",
    "parse_node_port_range",
    "parse_service_cidr",
]

DEFAULT_SERVICE_CIDR: Final = "10.0.0.0/24"
DEFAULT_NODE_PORT_RANGE: Final = "30000-32767"
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
_DEFAULT_CIDR: Final = ipaddress.IPv4Network(DEFAULT_SERVICE_CIDR)


def parse_service_cidr(text: str) -> IPNetwork:
    """A range of at least 4 addresses (ValueError with the reason otherwise)."""
    try:
        network = ipaddress.ip_network(text.strip(), strict=True)
    except ValueError as err:
        raise ValueError(f"invalid service cluster IP range {text!r}: {err}") from None
    if network.num_addresses < 4:
        raise ValueError(
            f"service cluster IP range {text!r} is too small: it needs at least 4 addresses"
        )
    return network


def parse_node_port_range(text: str) -> tuple[int, int]:
    """``BASE-MAX`` (or a single port) inside 1-65535 (ValueError otherwise)."""
    low, sep, high = text.strip().partition("-")
    try:
        base, last = int(low), int(high) if sep else int(low)
    except ValueError:
        raise ValueError(f"invalid node port range {text!r}: expected BASE-MAX") from None
    if not 1 <= base <= last <= 65535:
        raise ValueError(f"invalid node port range {text!r}: expected 1 <= BASE <= MAX <= 65535")
    return base, last


def _static_band(size: int, upper: int, step: int) -> int:
    """Upstream ``calculateRangeOffset``: how many low values are kept for static requests."""
    if size < 16:
        return 0
    return min(max(size // step, 16), upper)


def _pick(size: int, band: int, used: Set[int], rng: random.Random) -> int | None:
    """A free offset in [0, size): the upper band from a random start, then the lower band."""
    for low, high in ((band, size), (0, band)):
        span = high - low
        if span <= 0:
            continue
        start = rng.randrange(span)
        for step in range(span):
            offset = low + (start + step) % span
            if offset not in used:
                return offset
    return None


@dataclass(frozen=True)
class ServiceNetwork:
    """One single-stack service IP range and the node port range."""

    cidr: IPNetwork = _DEFAULT_CIDR
    node_ports: tuple[int, int] = (30000, 32767)

    @property
    def family(self) -> str:
        return "IPv4" if self.cidr.version == 4 else "IPv6"

    @property
    def port_range_text(self) -> str:
        return f"{self.node_ports[0]}-{self.node_ports[1]}"

    # -- cluster IPs -------------------------------------------------------------------
    @property
    def _first(self) -> int:
        return int(self.cidr.network_address) + 1

    @property
    def _ip_count(self) -> int:
        # IPv4 loses the network and broadcast addresses; IPv6 only the network address.
        return self.cidr.num_addresses - (2 if self.cidr.version == 4 else 1)

    def ip_problem(self, ip: str, in_use: Set[str]) -> str | None:
        """Why ``ip`` cannot be given to a Service (upstream's text), or None."""
        try:
            address = ipaddress.ip_address(ip)
        except ValueError:
            return (
                f"the provided IP ({ip}) is not in the valid range. "
                f"The range of valid IPs is {self.cidr}"
            )
        offset = int(address) - self._first
        if address.version != self.cidr.version or not 0 <= offset < self._ip_count:
            return (
                f"the provided IP ({address}) is not in the valid range. "
                f"The range of valid IPs is {self.cidr}"
            )
        if str(address) in in_use:
            return "provided IP is already allocated"
        return None

    def next_ip(self, in_use: Set[str], rng: random.Random) -> str | None:
        """A free cluster IP, or None when the range is full."""
        size = self._ip_count
        used: set[int] = set()
        for ip in in_use:
            try:
                held = int(ipaddress.ip_address(ip)) - self._first
            except ValueError:
                continue
            if 0 <= held < size:
                used.add(held)
        offset = _pick(size, _static_band(size, 256, 16), used, rng)
        if offset is None:
            return None
        return str(ipaddress.ip_address(self._first + offset))

    # -- node ports --------------------------------------------------------------------
    def port_problem(self, port: int, in_use: Set[int]) -> str | None:
        base, last = self.node_ports
        if not base <= port <= last:
            return (
                "provided port is not in the valid range. "
                f"The range of valid ports is {self.port_range_text}"
            )
        if port in in_use:
            return "provided port is already allocated"
        return None

    def next_port(self, in_use: Set[int], rng: random.Random) -> int | None:
        base, last = self.node_ports
        size = last - base + 1
        used = {port - base for port in in_use if base <= port <= last}
        offset = _pick(size, _static_band(size, 128, 32), used, rng)
        return None if offset is None else base + offset
