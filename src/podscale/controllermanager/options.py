"""The controller manager's settings as plain values, and its ``--controllers`` rule.

kube-controller-manager's ``--controllers`` (default ``*``) is a list where ``foo`` enables
a controller, ``-foo`` disables it and ``*`` stands for every controller that is on by
default; some controllers are off by default and run only when named. The first entry
naming a controller decides for it, ``*`` only for those no entry names
(``IsControllerEnabled``). For ``podscale controller-manager`` the on-by-default set is
podscale's own controllers (``DEFAULT_CONTROLLERS``: CronHPA, Crane's EHPA, the predictive
HPA, KEDA's operator and the usage history), so on a real cluster it never fights
kube-controller-manager: the HPA controller, the workload controllers (replicaset,
deployment, statefulset, garbage collector, namespace, podgc) and the WebApp example run
only when named, e.g. ``--controllers=*,horizontalpodautoscaling`` to replace the
cluster's HPA controller. Names and aliases come from ``podscale.controllers.registry``.

``ManagerOptions`` is what ``podscale.cli.controller_manager_command`` parses and
``podscale.controllermanager.run`` runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Final
from zoneinfo import ZoneInfo

from podscale.controllermanager.election import ElectionSettings
from podscale.controllers.hpa import DEFAULT_SYNC_PERIOD
from podscale.controllers.registry import select_controllers
from podscale.hpa import Config

__all__ = [
    "DEFAULT_CONTROLLERS",
    "ManagerOptions",
    "enabled_controllers",
]

DEFAULT_CONTROLLERS: Final = frozenset(
    {
        "cronhpa-controller",
        "ehpa-controller",
        "predictive-horizontal-pod-autoscaler-controller",
        "keda-operator",
        "usage-history-controller",
        "ihpa-controller",
        "replicaprofile-controller",
    }
)


def _canonical(name: str) -> str:
    # The registry resolves aliases and words the error for an unknown name.
    (canonical,) = select_controllers([name])
    return canonical


def enabled_controllers(flag: str | Iterable[str]) -> frozenset[str]:
    """The canonical names ``--controllers`` enables; ``ValueError`` for an unknown one."""
    items = [part.strip() for part in flag.split(",")] if isinstance(flag, str) else list(flag)
    decided: dict[str, bool] = {}
    star = False
    for item in items:
        if not item:
            continue
        if item == "*":
            star = True
            continue
        disable = item.startswith("-")
        decided.setdefault(_canonical(item[1:] if disable else item), not disable)
    chosen = {name for name, on in decided.items() if on}
    if star:
        chosen |= {name for name in DEFAULT_CONTROLLERS if name not in decided}
    return frozenset(chosen)


@dataclass(frozen=True, slots=True)
class ManagerOptions:
    """Every setting of one ``podscale controller-manager`` run (flag defaults as
    kube-controller-manager's where it has the flag)."""

    controllers: frozenset[str] = DEFAULT_CONTROLLERS
    kubeconfig: str | None = None
    context: str | None = None
    leader_elect: bool = True
    election: ElectionSettings = field(default_factory=ElectionSettings)
    kube_api_qps: float = 20.0
    kube_api_burst: int = 30
    bind_address: str = "0.0.0.0"
    secure_port: int = 10257  # 0: no health and metrics endpoints
    insecure_serving: bool = False  # plain http on secure_port (tests, or behind a proxy)
    tls_cert_file: Path | None = None
    tls_private_key_file: Path | None = None
    adapter_port: int = 0  # 0: no external metrics adapter
    shutdown_grace_period: timedelta = timedelta(seconds=10)
    workers: Mapping[str, int] = field(default_factory=dict)
    hpa_config: Config = field(default_factory=Config)
    hpa_sync_period: timedelta = DEFAULT_SYNC_PERIOD
    cronhpa_zone: ZoneInfo | None = None
