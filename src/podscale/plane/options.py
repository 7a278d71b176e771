"""What ``podscale up`` was asked for (``UpOptions``) and what it assembled (``ControlPlane``).

``podscale.plane.serve`` builds a ``ControlPlane`` from ``UpOptions`` and runs it;
``podscale.plane.workloads`` reads both to build the controllers and the simulated cluster
next to the server. Kept apart from both so neither imports the other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Final

from starlette.types import ASGIApp

from podscale.api.feature_gates import DEFAULT_FEATURE_GATES
from podscale.apiserver.audit.writer import AuditLog
from podscale.apiserver.auth.tls import TlsFiles
from podscale.apiserver.http.server import DEFAULT_HOST
from podscale.apiserver.registry.service_ranges import ServiceNetwork
from podscale.client.inprocess import InProcessApi
from podscale.controllers.hpa import DEFAULT_SYNC_PERIOD
from podscale.hpa import Config
from podscale.metrics.server import DEFAULT_RESOLUTION
from podscale.plane.prometheus import PrometheusOptions
from podscale.runtime.simulated.nodes import NODE_STATUS_REPORT_FREQUENCY
from podscale.store.sqlite import SqliteStore

__all__ = ["KUBECONFIG_FILE", "ControlPlane", "UpOptions"]

KUBECONFIG_FILE: Final = "kubeconfig"


@dataclass(frozen=True)
class UpOptions:
    """What ``podscale up`` was asked for. ``port`` 0 picks a free port; ``kubeconfig``
    None means ``data_dir/kubeconfig``; ``report_minor`` overrides the minor version that
    ``/version`` reports (the kubectl dispatcher picks its bundled binary from it)."""

    data_dir: Path
    host: str = DEFAULT_HOST
    port: int = 0
    kubeconfig: Path | None = None
    auth: bool = True
    report_minor: int | None = None
    tls: bool | None = None  # None: TLS whenever auth is on (kubectl sends tokens only on TLS)
    insecure_allow_plaintext: bool = False  # token over plain http on a non-loopback address
    controllers: str = "*"  # kube-controller-manager's --controllers; "" runs none
    simulate: bool = True  # run simulated nodes, a scheduler and kubelets for the pods
    nodes: int = 3
    seed: int = 0
    workers: Mapping[str, int] = field(default_factory=dict)  # --concurrent-*-syncs
    hpa_sync_period: timedelta = DEFAULT_SYNC_PERIOD  # --horizontal-pod-autoscaler-sync-period
    hpa_config: Config = field(default_factory=Config)  # the other --horizontal-pod-autoscaler-*
    metric_resolution: timedelta = DEFAULT_RESOLUTION  # metrics-server's --metric-resolution
    prometheus: PrometheusOptions | None = None  # custom/external metrics from Prometheus
    # --service-cluster-ip-range and --service-node-port-range
    service_network: ServiceNetwork = field(default_factory=ServiceNetwork)
    # the simulated kubelets' status report period (hidden --node-status-report-frequency)
    node_status_report_frequency: timedelta = NODE_STATUS_REPORT_FREQUENCY
    # --install-crd: CRDs podscale ships (``controllers.shipped_crds``) to create at start
    install_crds: tuple[str, ...] = ()
    # --no-install-crd: shipped CRDs not to create, though their controller runs
    skip_crds: tuple[str, ...] = ()
    # --cronhpa-timezone: an IANA zone name; None runs CronHPA schedules in the local zone
    cronhpa_timezone: str | None = None
    # --history-retention: how long the history keeps one-minute points (``plane.history``)
    history_retention: timedelta = timedelta(days=15)
    # --feature-gates over upstream's defaults: API validation and the HPA controller
    feature_gates: frozenset[str] = DEFAULT_FEATURE_GATES
    # --audit-log-path: audit.k8s.io/v1 Events as JSON lines ("-": stdout); None: no audit
    audit_log_path: str | None = None
    # --audit-log-maxsize (megabytes before rotation, 0: never) and --audit-log-maxbackup
    audit_log_maxsize: int = 0
    audit_log_maxbackup: int = 0

    @property
    def use_tls(self) -> bool:
        return self.auth if self.tls is None else self.tls

    @property
    def kubeconfig_path(self) -> Path:
        return self.kubeconfig if self.kubeconfig is not None else self.data_dir / KUBECONFIG_FILE


@dataclass(frozen=True)
class ControlPlane:
    """An assembled, not yet serving, control plane. The caller owns ``store``."""

    options: UpOptions
    store: SqliteStore
    app: ASGIApp
    token: str | None
    tls: TlsFiles | None = None
    api: InProcessApi | None = None  # the server's own API, for the embedded controllers
    audit: AuditLog | None = None  # the audit log the app writes to; closed with the plane

    def __repr__(self) -> str:  # keeps the token out of tracebacks and debug output
        return (
            f"ControlPlane(data_dir={str(self.options.data_dir)!r}, auth={self.token is not None})"
        )
