"""How the embedded control plane wires the metrics pipeline and the HPA controller: the
providers on the API's ServerState, the options that reach the controller, what turns it
off, and the ``podscale up`` flags that set them."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest
from click.testing import CliRunner

from podscale.api import parse_quantity
from podscale.apiserver.metricsapis.samples import ExternalSample
from podscale.cli.main import cli
from podscale.cli.up_flags import hpa_settings
from podscale.controllers.hpa import HorizontalPodAutoscalerController
from podscale.controllers.hpa.metrics_inprocess import InProcessMetricsClient
from podscale.controllers.keda.adapter import KedaMetricsAdapter
from podscale.controllers.keda.generated import SCALED_OBJECT_LABEL
from podscale.controllers.manager import Controller
from podscale.controllers.registry import ControllerContext
from podscale.hpa import Config
from podscale.plane.controller_sets import controllers_from_flag
from podscale.plane.embedded import EmbeddedControlPlane
from podscale.runtime.clocks import VirtualClock
from podscale.runtime.simulated import SimulatedUsage
from podscale.testing.clock import FakeClock

from .pipeline import START


def controller_names(plane: EmbeddedControlPlane) -> list[str]:
    return [controller.name for controller, _ in plane.manager._controllers]


def hpa_controller(plane: EmbeddedControlPlane) -> HorizontalPodAutoscalerController:
    for controller, _ in plane.manager._controllers:
        if isinstance(controller, HorizontalPodAutoscalerController):
            return controller
    raise AssertionError("no HPA controller registered")


def test_the_pipeline_is_installed_on_the_server_state() -> None:
    plane = EmbeddedControlPlane(VirtualClock(START))
    state = plane.api.state
    assert plane.metrics_server is not None
    assert state.metrics_provider is plane.metrics_server
    assert state.custom_metrics_provider is plane.push
    # External reads go through the plane's router, whose fallback is the push provider.
    assert state.external_metrics_provider is plane.external_routes
    assert plane.external_routes.fallback is plane.push
    assert isinstance(plane.usage, SimulatedUsage)
    assert {"usage", "horizontalpodautoscaler"} <= set(controller_names(plane))


@pytest.mark.parametrize(
    "options",
    [{"metrics": False}, {"simulate": False}],
    ids=["metrics-off", "no-simulated-cluster"],
)
def test_without_the_pipeline_no_provider_is_installed(options: dict[str, Any]) -> None:
    plane = EmbeddedControlPlane(VirtualClock(START), **options)
    state = plane.api.state
    assert plane.metrics_server is None
    assert plane.push is None
    assert (state.metrics_provider, state.custom_metrics_provider) == (None, None)
    assert "usage" not in controller_names(plane)
    assert "horizontalpodautoscaler" in controller_names(plane)  # reads what is served


def test_the_pipeline_needs_the_simulated_cluster() -> None:
    with pytest.raises(ValueError, match="needs the simulated cluster"):
        EmbeddedControlPlane(VirtualClock(START), simulate=False, metrics=True)


def test_hpa_options_reach_the_controller() -> None:
    config = Config(tolerance=0.2, downscale_stabilization=timedelta(minutes=1))
    plane = EmbeddedControlPlane(
        VirtualClock(START), hpa_config=config, hpa_sync_period=timedelta(seconds=30)
    )
    controller = hpa_controller(plane)
    assert (controller._config, controller._sync_period) == (config, timedelta(seconds=30))


def test_the_controllers_flag_can_leave_the_hpa_controller_out() -> None:
    factory = controllers_from_flag("*,-horizontalpodautoscaling")
    plane = EmbeddedControlPlane(VirtualClock(START), controllers=factory)
    assert "horizontalpodautoscaler" not in controller_names(plane)


def test_hpa_settings_read_the_flag_values() -> None:
    values: dict[str, Any] = {
        "horizontal_pod_autoscaler_tolerance": 0.3,
        "horizontal_pod_autoscaler_downscale_stabilization": timedelta(minutes=2),
        "horizontal_pod_autoscaler_cpu_initialization_period": timedelta(minutes=1),
        "horizontal_pod_autoscaler_initial_readiness_delay": timedelta(seconds=10),
        "horizontal_pod_autoscaler_sync_period": timedelta(seconds=5),
        "metric_resolution": timedelta(seconds=30),
        "concurrent_gc_syncs": 4,
    }
    config, sync_period, resolution = hpa_settings(values)
    assert config == Config(
        tolerance=0.3,
        downscale_stabilization=timedelta(minutes=2),
        cpu_initialization_period=timedelta(minutes=1),
        initial_readiness_delay=timedelta(seconds=10),
    )
    assert (sync_period, resolution) == (timedelta(seconds=5), timedelta(seconds=30))
    assert values == {"concurrent_gc_syncs": 4}  # worker counts are left for the caller


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--horizontal-pod-autoscaler-sync-period", "soon"], 'time: invalid duration "soon"'),
        (["--metric-resolution", "0s"], "must be positive, got 0s"),
        (["--horizontal-pod-autoscaler-downscale-stabilization", "-1m"], "must not be negative"),
        (["--horizontal-pod-autoscaler-tolerance", "-0.5"], "-0.5 is not in the range x>=0.0"),
    ],
    ids=["not-a-duration", "zero-resolution", "negative-window", "negative-tolerance"],
)
def test_up_rejects_bad_hpa_flags(args: list[str], message: str) -> None:
    outcome = CliRunner().invoke(cli, ["up", *args])
    assert outcome.exit_code == 2
    assert message in outcome.output


def test_up_documents_the_upstream_defaults() -> None:
    text = " ".join(CliRunner().invoke(cli, ["up", "--help"]).output.split())
    for flag, default in [
        ("--horizontal-pod-autoscaler-sync-period", "15s"),
        ("--horizontal-pod-autoscaler-tolerance", "0.1"),
        ("--horizontal-pod-autoscaler-downscale-stabilization", "5m0s"),
        ("--horizontal-pod-autoscaler-cpu-initialization-period", "5m0s"),
        ("--horizontal-pod-autoscaler-initial-readiness-delay", "30s"),
        ("--metric-resolution", "15s"),
    ]:
        assert flag in text
        assert f"[default: {default}" in text.split(flag, 1)[1].split("--", 1)[0]
    assert "--concurrent-horizontal-pod-autoscaler-syncs" in text


def test_controllers_route_external_reads_through_the_plane_router() -> None:
    # A controller serving external metrics itself (KEDA's metrics server) routes its
    # selector label; pushed external metrics keep answering every other read.
    clock = FakeClock(START)  # read outside virtual time

    class Keda:
        async def metric_value(self, namespace: str, scaled_object: str, metric: str) -> float:
            return 3.0

    def factory(context: ControllerContext) -> list[Controller]:
        assert context.external_metrics_routes is not None
        adapter = KedaMetricsAdapter(Keda(), context.clock)
        context.external_metrics_routes.route(SCALED_OBJECT_LABEL, adapter)
        return []

    plane = EmbeddedControlPlane(clock, controllers=factory)
    assert plane.push is not None
    plane.push.write_external_samples(
        "ns",
        "queue",
        [ExternalSample("ns", "queue", parse_quantity("5"), timestamp=START)],
        replace=True,
    )
    client = InProcessMetricsClient(plane.api.state)
    keda = {"matchLabels": {SCALED_OBJECT_LABEL: "so"}}
    assert asyncio.run(client.external_metric("s0-x", "ns", keda))[0] == [3000]
    assert asyncio.run(client.external_metric("queue", "ns", None))[0] == [5000]
