"""``podscale controller-manager``'s flags: kube-controller-manager's names, defaults and
``--controllers`` rule, with podscale's controllers as the on-by-default set."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import click
import pytest

from podscale.cli.controller_manager_command import controller_manager, election_settings
from podscale.controllermanager.options import DEFAULT_CONTROLLERS, enabled_controllers
from podscale.controllers.registry import HPA_CONTROLLER

WORKLOADS = {
    "replicaset-controller",
    "deployment-controller",
    "statefulset-controller",
    "garbage-collector-controller",
    "namespace-controller",
    "pod-garbage-collector-controller",
}


def parsed(*args: str) -> dict[str, Any]:
    ctx = controller_manager.make_context("controller-manager", list(args))
    return dict(ctx.params)


def test_the_default_set_is_podscales_own_controllers() -> None:
    assert parsed()["controllers"] == DEFAULT_CONTROLLERS
    assert {
        "cronhpa-controller",
        "ehpa-controller",
        "predictive-horizontal-pod-autoscaler-controller",
        "keda-operator",
        "usage-history-controller",
        "ihpa-controller",
        "replicaprofile-controller",
    } == DEFAULT_CONTROLLERS


@pytest.mark.parametrize(
    ("flag", "expected"),
    [
        ("*", DEFAULT_CONTROLLERS),
        ("", frozenset()),
        ("horizontalpodautoscaling", {HPA_CONTROLLER}),
        ("horizontal-pod-autoscaler-controller", {HPA_CONTROLLER}),
        ("*,horizontalpodautoscaling", DEFAULT_CONTROLLERS | {HPA_CONTROLLER}),
        ("*,-keda", DEFAULT_CONTROLLERS - {"keda-operator"}),
        ("-keda,*,keda", DEFAULT_CONTROLLERS - {"keda-operator"}),
        ("keda,-keda", {"keda-operator"}),
        ("replicaset,deployment", {"replicaset-controller", "deployment-controller"}),
    ],
    ids=[
        "star-is-the-on-by-default-set",
        "empty-runs-none",
        "hpa-by-alias",
        "hpa-by-name",
        "star-plus-hpa-replaces-the-clusters-hpa-controller",
        "star-minus-one",
        "first-mention-wins-over-star",
        "first-mention-wins",
        "workload-controllers-only-when-named",
    ],
)
def test_controllers_flag_follows_kube_controller_managers_rule(
    flag: str, expected: frozenset[str]
) -> None:
    assert enabled_controllers(flag) == expected


def test_star_never_starts_the_workload_or_hpa_controllers() -> None:
    assert not enabled_controllers("*") & (WORKLOADS | {HPA_CONTROLLER, "webapp-controller"})


def test_an_unknown_controller_is_a_usage_error_listing_the_known_ones() -> None:
    with pytest.raises(click.BadParameter, match='"nope" is not in the list of known'):
        parsed("--controllers=*,nope")


def test_defaults_are_kube_controller_managers() -> None:
    values = parsed()
    assert values["leader_elect"] is True
    assert values["leader_elect_lease_duration"] == timedelta(seconds=15)
    assert values["leader_elect_renew_deadline"] == timedelta(seconds=10)
    assert values["leader_elect_retry_period"] == timedelta(seconds=2)
    assert values["leader_elect_resource_name"] == "podscale-controller-manager"
    assert values["leader_elect_resource_namespace"] == "kube-system"
    assert (values["kube_api_qps"], values["kube_api_burst"]) == (20.0, 30)
    assert (values["bind_address"], values["secure_port"]) == ("0.0.0.0", 10257)
    assert values["adapter_port"] == 0
    assert values["shutdown_grace_period"] == timedelta(seconds=10)
    assert values["horizontal_pod_autoscaler_sync_period"] == timedelta(seconds=15)


@pytest.mark.parametrize(
    ("arg", "key", "value"),
    [
        ("--leader-elect=false", "leader_elect", False),
        ("--leader-elect-lease-duration=1m0s", "leader_elect_lease_duration", timedelta(minutes=1)),
        ("--kube-api-qps=50", "kube_api_qps", 50.0),
        ("--shutdown-grace-period=30s", "shutdown_grace_period", timedelta(seconds=30)),
    ],
    ids=["leader-elect-false", "go-duration", "qps", "grace"],
)
def test_flags_parse_as_upstream_spells_them(arg: str, key: str, value: object) -> None:
    assert parsed(arg)[key] == value


@pytest.mark.parametrize(
    ("durations", "message"),
    [
        ((10, 10, 2), "leaseDuration must be greater than renewDeadline"),
        ((15, 2, 2), r"renewDeadline must be greater than retryPeriod\*JitterFactor"),
    ],
    ids=["lease-not-beyond-deadline", "deadline-within-jittered-retry"],
)
def test_election_timing_is_checked_as_client_go_checks_it(
    durations: tuple[int, int, int], message: str
) -> None:
    lease, deadline, retry = (timedelta(seconds=s) for s in durations)
    with pytest.raises(click.UsageError, match=message):
        election_settings("l", "kube-system", lease, deadline, retry)
