"""The ``--controllers`` flag and the controller factories (podscale.controllers.registry)."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from podscale.client.inprocess import InProcessApi
from podscale.controllers.hpa import HorizontalPodAutoscalerController, InProcessMetricsClient
from podscale.controllers.registry import (
    CONTROLLER_NAMES,
    HPA_CONTROLLER,
    ControllerContext,
    build_controllers,
    select_controllers,
)
from podscale.hpa import Config
from podscale.store.memory import MemoryStore
from podscale.testing import FakeClock

ALL = frozenset(CONTROLLER_NAMES)


def _context(*, metrics: bool = True, **options: object) -> ControllerContext:
    clock = FakeClock()
    api = InProcessApi.for_store(MemoryStore(clock), clock)
    client = InProcessMetricsClient(api.state) if metrics else None
    return ControllerContext(api, clock, random.Random(1), client, **options)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("flag", "expected"),
    [
        ("*", ALL),
        ("", frozenset()),
        ("*,-garbagecollector", ALL - {"garbage-collector-controller"}),
        ("-garbage-collector-controller,*", ALL - {"garbage-collector-controller"}),
        ("replicaset", frozenset({"replicaset-controller"})),
        (
            " deployment , replicaset-controller ",
            frozenset({"deployment-controller", "replicaset-controller"}),
        ),
        ("replicaset,-replicaset", frozenset()),
        ("horizontalpodautoscaling", frozenset({HPA_CONTROLLER})),
        ("*,-horizontal-pod-autoscaler-controller", ALL - {HPA_CONTROLLER}),
    ],
    ids=[
        "star",
        "empty",
        "star-minus-alias",
        "minus-before-star",
        "alias",
        "spaces",
        "cancel",
        "hpa-alias",
        "star-minus-hpa",
    ],
)
def test_select_controllers(flag: str, expected: frozenset[str]) -> None:
    assert select_controllers(flag) == expected


@pytest.mark.parametrize("flag", ["cronjob", "*,-nope"], ids=["unknown", "unknown-disable"])
def test_select_controllers_rejects_unknown_names(flag: str) -> None:
    with pytest.raises(ValueError, match=r"is not in the list of known controllers: "):
        select_controllers(flag)


def test_the_hpa_controller_is_known_by_its_upstream_name() -> None:
    assert HPA_CONTROLLER == "horizontal-pod-autoscaler-controller"
    assert HPA_CONTROLLER in CONTROLLER_NAMES


def test_build_controllers_in_registry_order() -> None:
    context = _context()
    enabled = select_controllers("horizontalpodautoscaling,statefulset,replicaset")
    names = [c.name for c in build_controllers(context, enabled)]
    assert names == ["replicaset", "statefulset", "horizontalpodautoscaler"]
    every = build_controllers(_context())
    assert len(every) == len(CONTROLLER_NAMES)


def test_the_hpa_controller_takes_its_options_from_the_context() -> None:
    config = Config(tolerance=0.25)
    context = _context(hpa_config=config, hpa_sync_period=timedelta(seconds=30))
    (controller,) = build_controllers(context, [HPA_CONTROLLER])
    assert isinstance(controller, HorizontalPodAutoscalerController)
    assert controller._config == config
    assert controller._sync_period == timedelta(seconds=30)


def test_the_hpa_controller_needs_a_metrics_client() -> None:
    with pytest.raises(ValueError, match="needs a metrics client"):
        build_controllers(_context(metrics=False), [HPA_CONTROLLER])
    assert len(build_controllers(_context(metrics=False), ["replicaset"])) == 1
