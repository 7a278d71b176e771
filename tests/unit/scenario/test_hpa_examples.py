"""The HPA examples: behavior-policies, multiple-metrics, container-resource-sidecar and
external-metric under ``examples/``.

Each scenario loads; each manifest is valid as the API server would store it (namespace
from the request, upstream defaulting and validation); each HPA is the one its README
describes. The numbers the READMEs promise are checked against the HPA engine
(``podscale.hpa.decide``) in an idealized loop: one sync every 15 s, pods that start
instantly and never stop, usage from the scenario's own cost model without noise
(``podscale.runtime.load.compute_usage``). The simulated cluster adds start-up delays and
metric lag on top, which is why the READMEs say "about" for times.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import math
import random
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from podscale.api import apply_defaults, selector_from_label_selector, validate
from podscale.apiserver.errors import ApiError
from podscale.apiserver.metricsapis.providers import ExternalMetricInfo
from podscale.apiserver.metricsapis.push import decode_external_push
from podscale.apiserver.printing.hpa import format_hpa_metrics
from podscale.controllers.hpa.metrics_values import external_values
from podscale.hpa import StaticMetricsSource, decide
from podscale.hpa.decision import Decision
from podscale.hpa.types import History
from podscale.metrics.push import PushMetricsProvider
from podscale.runtime.load import WorkloadDemand, compute_usage, pod_load
from podscale.scenario.loader import load_scenario
from podscale.scenario.model import Scenario
from podscale.testing import FakeClock, make_pod, make_scale

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
EXAMPLE_DIRS = (
    "behavior-policies",
    "multiple-metrics",
    "container-resource-sidecar",
    "external-metric",
)
SCENARIOS = (
    "behavior-policies/scenario.yaml",
    "multiple-metrics/scenario.yaml",
    "container-resource-sidecar/scenario.yaml",
    "container-resource-sidecar/scenario-pod-resource.yaml",
    "external-metric/scenario.yaml",
)
MANIFESTS = tuple(
    str(path.relative_to(EXAMPLES))
    for name in EXAMPLE_DIRS
    for path in sorted((EXAMPLES / name).rglob("*.yaml"))
    if not path.name.startswith("scenario")
)
START = datetime(2026, 1, 1, tzinfo=UTC)
SYNC = timedelta(seconds=15)
REQUESTS = "http_requests_per_second"
QUEUE = "queue_messages_ready"
QUEUE_URL_NAMESPACE = "default"


def minutes(value: float) -> timedelta:
    return timedelta(minutes=value)


def as_created(obj: dict[str, Any]) -> dict[str, Any]:
    """What the API server stores: defaulted, in the request's namespace."""
    created = apply_defaults(obj)
    created["metadata"].setdefault("namespace", "default")
    return created


def documents(relative: str) -> list[dict[str, Any]]:
    text = (EXAMPLES / relative).read_text("utf-8")
    return [d for d in yaml.safe_load_all(text) if d is not None]


def hpa_spec(relative: str) -> dict[str, Any]:
    (hpa,) = documents(relative)
    assert hpa["kind"] == "HorizontalPodAutoscaler"
    spec = as_created(hpa)["spec"]
    assert isinstance(spec, dict)
    return spec


def readme(example: str) -> str:
    # Line breaks inside a sentence are not part of a claim.
    return " ".join((EXAMPLES / example / "README.md").read_text("utf-8").split())


def scenario_object(scenario: Scenario, kind: str) -> dict[str, Any]:
    (obj,) = [as_created(m.object) for m in scenario.manifests if m.object["kind"] == kind]
    return obj


def describe_metric(metric: dict[str, Any]) -> str:
    """One metric of an HPA in the words the READMEs use."""
    kind = metric["type"]
    if kind in ("Resource", "ContainerResource"):
        source = metric["resource" if kind == "Resource" else "containerResource"]
        what = source["name"] + (f"/{source['container']}" if "container" in source else "")
    else:
        source = metric[kind.lower()]
        what = source["metric"]["name"]
        labels = (source["metric"].get("selector") or {}).get("matchLabels") or {}
        what += "".join(f"{{{k}={v}}}" for k, v in sorted(labels.items()))
    target = source["target"]
    value = target.get("averageUtilization", target.get("averageValue", target.get("value")))
    return f"{kind} {what} {target['type']} {value}"


# -- the files -----------------------------------------------------------------------------


@pytest.mark.parametrize("relative", SCENARIOS, ids=SCENARIOS)
def test_scenario_loads_and_drives_the_hpa_target(relative: str) -> None:
    scenario = load_scenario(EXAMPLES / relative)
    (workload,) = scenario.workloads
    hpa = scenario_object(scenario, "HorizontalPodAutoscaler")
    target = hpa["spec"]["scaleTargetRef"]
    assert (target["apiVersion"], target["kind"], target["name"]) == (
        workload.target.api_version,
        workload.target.kind,
        workload.target.name,
    )
    assert hpa["metadata"]["namespace"] == workload.target.namespace
    assert workload.profile.costs, "the workload must cost something"


@pytest.mark.parametrize("relative", MANIFESTS, ids=MANIFESTS)
def test_manifest_is_valid_as_created(relative: str) -> None:
    objs = documents(relative)
    assert objs
    for obj in objs:
        assert [str(error) for error in validate(as_created(obj))] == []


@pytest.mark.parametrize("example", EXAMPLE_DIRS, ids=EXAMPLE_DIRS)
def test_manifests_directory_is_what_kubectl_apply_reads(example: str) -> None:
    # `kubectl apply -f examples/<example>/manifests/` must get exactly the two objects,
    # never a scenario, a variant HPA or a pushed value list.
    directory = EXAMPLES / example / "manifests"
    files = sorted(p.name for p in directory.iterdir())
    assert files == ["deployment.yaml", "hpa.yaml"]
    (deployment,) = documents(f"{example}/manifests/deployment.yaml")
    target = hpa_spec(f"{example}/manifests/hpa.yaml")["scaleTargetRef"]
    assert (deployment["kind"], deployment["metadata"]["name"]) == (
        target["kind"],
        target["name"],
    )
    assert f"kubectl apply -f examples/{example}/manifests/" in readme(example)


HPAS = [
    (
        "behavior-policies/manifests/hpa.yaml",
        (10, 80),
        ["Resource cpu Utilization 50"],
    ),
    (
        "multiple-metrics/manifests/hpa.yaml",
        (1, 20),
        ["Resource cpu Utilization 50", f"Pods {REQUESTS} AverageValue 10"],
    ),
    (
        "multiple-metrics/with-external/hpa.yaml",
        (1, 20),
        [
            "Resource cpu Utilization 50",
            f"Pods {REQUESTS} AverageValue 10",
            f"External {QUEUE}{{queue=orders}} AverageValue 30",
        ],
    ),
    (
        "container-resource-sidecar/manifests/hpa.yaml",
        (1, 15),
        ["ContainerResource cpu/application Utilization 60"],
    ),
    (
        "container-resource-sidecar/pod-resource/hpa.yaml",
        (1, 15),
        ["Resource cpu Utilization 60"],
    ),
    (
        "external-metric/manifests/hpa.yaml",
        (1, 10),
        [f"External {QUEUE}{{queue=orders}} AverageValue 30"],
    ),
]


@pytest.mark.parametrize(("relative", "bounds", "metrics"), HPAS, ids=[h[0] for h in HPAS])
def test_hpa_is_the_one_the_readme_describes(
    relative: str, bounds: tuple[int, int], metrics: list[str]
) -> None:
    spec = hpa_spec(relative)
    assert (spec["minReplicas"], spec["maxReplicas"]) == bounds
    assert [describe_metric(m) for m in spec["metrics"]] == metrics
    text = readme(relative.split("/")[0])
    assert f"{bounds[0]} to {bounds[1]} replicas" in text


def test_behavior_is_the_docs_walk_with_the_requested_scale_up() -> None:
    behavior = hpa_spec("behavior-policies/manifests/hpa.yaml")["behavior"]
    assert behavior == {
        "scaleDown": {
            "stabilizationWindowSeconds": 300,
            "selectPolicy": "Max",
            "policies": [
                {"type": "Pods", "value": 4, "periodSeconds": 60},
                {"type": "Percent", "value": 10, "periodSeconds": 60},
            ],
        },
        "scaleUp": {
            "stabilizationWindowSeconds": 0,
            "selectPolicy": "Max",
            "policies": [
                {"type": "Pods", "value": 4, "periodSeconds": 60},
                {"type": "Percent", "value": 100, "periodSeconds": 15},
            ],
        },
    }
    text = readme("behavior-policies")
    for claim in ("`Pods 4 / 60s`", "`Percent 10 / 60s`", "`Percent 100 / 15s`", "300"):
        assert claim in text


# -- the engine in an idealized loop ------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Rescale:
    at: timedelta
    old: int
    new: int
    reason: str


@dataclasses.dataclass
class Run:
    """What the loop saw: every rescale and the decision of each sync, by time."""

    rescales: list[Rescale]
    decisions: dict[timedelta, Decision]

    def replicas_at(self, at: timedelta, initial: int) -> int:
        done = [r.new for r in self.rescales if r.at <= at]
        return done[-1] if done else initial


ExternalValues = Callable[[timedelta], list[int] | None]


def run_hpa(
    scenario: Scenario,
    *,
    keep_metrics: list[int] | None = None,
    external: ExternalValues | None = None,
    hpa_file: str | None = None,
) -> Run:
    """Sync the scenario's HPA (or the one in ``hpa_file``) every 15 s over the scenario's
    duration; rescales apply at once."""
    hpa = scenario_object(scenario, "HorizontalPodAutoscaler")
    if hpa_file is not None:
        hpa = {**hpa, "spec": hpa_spec(hpa_file)}
    if keep_metrics is not None:
        hpa["spec"]["metrics"] = [hpa["spec"]["metrics"][i] for i in keep_metrics]
    deployment = scenario_object(scenario, "Deployment")
    template = deployment["spec"]["template"]
    labels = deployment["spec"]["selector"]["matchLabels"]
    selector = ",".join(f"{k}={v}" for k, v in sorted(labels.items()))
    (workload,) = scenario.workloads
    profile = dataclasses.replace(workload.profile, noise_stddev=0.0)
    replicas = int(deployment["spec"]["replicas"])
    history: History | None = None
    run = Run([], {})
    at = timedelta(0)
    while at <= scenario.duration:
        now = START + at
        pods = [
            make_pod(f"pod-{i}", now=now, labels=labels, containers=template["spec"]["containers"])
            for i in range(replicas)
        ]
        demand = WorkloadDemand(workload.load.rate_at(at), [pod_load(p) for p in pods], profile)
        usage = compute_usage([demand], {}, random.Random(0))
        values = external(at) if external is not None else None
        source = StaticMetricsSource(
            timestamp=now,
            resources={"cpu": {u.name: {c.name: c.milli_cpu for c in u.containers} for u in usage}},
            pods={REQUESTS: {u.name: round(u.request_rate * 1000) for u in usage}},
            externals={QUEUE: values} if values is not None else {},
        )
        decision = decide(
            hpa,
            scale=make_scale(replicas, selector=selector),
            pods=pods,
            metrics=source,
            history=history,
            now=now,
        )
        history = decision.history
        hpa["status"] = decision.status
        run.decisions[at] = decision
        if decision.rescale:
            run.rescales.append(Rescale(at, replicas, decision.desired_replicas, decision.reason))
            replicas = decision.desired_replicas
        at += SYNC
    return run


WALK_DOWN = [80, 72, 64, 57, 51, 45, 40, 36, 32, 28, 24, 20, 16, 12, 10]
WALK_UP = [10, 20, 40, 80]


def test_scale_down_walks_as_the_docs_say_then_scale_up_doubles() -> None:
    run = run_hpa(load_scenario(EXAMPLES / "behavior-policies/scenario.yaml"))
    downs = [r for r in run.rescales if r.new < r.old]
    ups = [r for r in run.rescales if r.new > r.old]
    assert [downs[0].old] + [r.new for r in downs] == WALK_DOWN
    assert [ups[0].old] + [r.new for r in ups] == WALK_UP
    assert {r.reason for r in downs} == {"All metrics below target"}
    # The load drops at 2m; the 300 s window holds 80 until about 7m.
    assert minutes(6.5) <= downs[0].at <= minutes(7)
    assert [b.at - a.at for a, b in itertools.pairwise(downs)] == [minutes(1)] * 13
    assert downs[-1].at - downs[0].at == minutes(13)
    # The load comes back at 22m: doubling every 15 s up to maxReplicas.
    assert [r.at for r in ups] == [minutes(22), minutes(22.25), minutes(22.5)]
    text = readme("behavior-policies")
    assert " -> ".join(map(str, WALK_DOWN)) in text
    assert " -> ".join(map(str, WALK_UP)) in text
    assert "14 steps" in text
    assert "about 13 minutes after the first" in text


BEHAVIOR_CONDITIONS = [
    (minutes(4), "2m to the first step", "AbleToScale", "True", "ScaleDownStabilized"),
    (minutes(9), "during the walk", "ScalingLimited", "True", "ScaleDownLimit"),
    (minutes(21), "at 10", "ScalingLimited", "True", "TooFewReplicas"),
    (minutes(22.25), "10 -> 20 -> 40", "ScalingLimited", "True", "ScaleUpLimit"),
    (minutes(22.5), "at 80 again", "ScalingLimited", "True", "TooManyReplicas"),
]


def test_conditions_name_the_rule_that_holds_the_count() -> None:
    run = run_hpa(load_scenario(EXAMPLES / "behavior-policies/scenario.yaml"))
    text = readme("behavior-policies")
    for at, when, kind, status, reason in BEHAVIOR_CONDITIONS:
        conditions = {c["type"]: c for c in run.decisions[at].status["conditions"]}
        assert (conditions[kind]["status"], conditions[kind]["reason"]) == (status, reason), when
        assert f"| {when} | `{kind}` `{status}` `{reason}` |" in text
    assert "`SuccessfulRescale`" in text
    first = run.rescales[0]
    assert first.reason == "All metrics below target"
    assert f"`New size: {first.new}; reason: {first.reason}" in text


# (scenario, kept metrics or None for all, {time: replicas}) and the README row it backs.
STEADY = [
    (
        "container-resource-sidecar/scenario.yaml",
        None,
        {minutes(9): 6, minutes(17): 12, minutes(29): 1},
        ["| 35 req/s | 6 replicas", "| 70 req/s | 12 replicas"],
    ),
    (
        "container-resource-sidecar/scenario-pod-resource.yaml",
        None,
        {minutes(9): 3, minutes(17): 6, minutes(29): 1},
        ["3 replicas, application at ~117%", "6 replicas, application at ~117%"],
    ),
    (
        "multiple-metrics/scenario.yaml",
        None,
        {minutes(9): 6, minutes(17): 15, minutes(29): 1},
        ["| 6 replicas |", "| 15 replicas |"],
    ),
    (
        "multiple-metrics/scenario.yaml",
        [0],
        {minutes(9): 4, minutes(17): 10, minutes(29): 1},
        ["| 60 req/s | 4 replicas", "| 150 req/s | 10 replicas"],
    ),
    (
        "multiple-metrics/scenario.yaml",
        [1],
        {minutes(9): 6, minutes(17): 15, minutes(29): 1},
        ["| 6 replicas | 6 replicas |", "| 15 replicas | 15 replicas |"],
    ),
]


@pytest.mark.parametrize(
    ("relative", "keep", "expected", "claims"),
    STEADY,
    ids=[
        "container-resource",
        "pod-resource-diluted",
        "multiple-metrics",
        "cpu-alone",
        "requests-alone",
    ],
)
def test_replicas_settle_where_the_readme_says(
    relative: str, keep: list[int] | None, expected: dict[timedelta, int], claims: list[str]
) -> None:
    scenario = load_scenario(EXAMPLES / relative)
    run = run_hpa(scenario, keep_metrics=keep)
    assert {at: run.replicas_at(at, 1) for at in expected} == expected
    # The load stops at 18m; the last step down waits out the 5 minute window.
    assert run.rescales[-1].new == 1
    assert minutes(23) <= run.rescales[-1].at <= minutes(23.25)
    text = readme(relative.split("/")[0])
    for claim in claims:
        assert claim in text


@pytest.mark.parametrize(
    ("relative", "replicas", "application_percent"),
    [
        ("container-resource-sidecar/scenario.yaml", 6, 59),
        ("container-resource-sidecar/scenario-pod-resource.yaml", 3, 117),
    ],
    ids=["container-resource", "pod-resource-diluted"],
)
def test_application_utilization_and_targets_column(
    relative: str, replicas: int, application_percent: int
) -> None:
    scenario = load_scenario(EXAMPLES / relative)
    run = run_hpa(scenario)
    decision = run.decisions[minutes(9)]
    assert decision.current_replicas == replicas
    (workload,) = scenario.workloads
    cost = workload.profile.cost_of("application")
    rate = workload.load.rate_at(minutes(9))
    used = cost.baseline_milli_cpu + cost.milli_cpu_per_rps * rate / replicas
    assert abs(used / 200 * 100 - application_percent) < 1
    assert f"application at ~{application_percent}%" in readme("container-resource-sidecar")
    # Both variants look content in `kubectl get hpa`.
    spec = scenario_object(scenario, "HorizontalPodAutoscaler")["spec"]
    targets = format_hpa_metrics(spec["metrics"], decision.status["currentMetrics"])
    assert re.fullmatch(r"cpu: 5[89]%/60%", targets), targets


def test_multiple_metrics_largest_wins_and_both_are_shown() -> None:
    scenario = load_scenario(EXAMPLES / "multiple-metrics/scenario.yaml")
    run = run_hpa(scenario)
    ups = [r for r in run.rescales if r.new > r.old]
    assert {r.reason for r in ups} == {f"pods metric {REQUESTS} above target"}
    spec = scenario_object(scenario, "HorizontalPodAutoscaler")["spec"]
    status = run.decisions[minutes(9)].status
    shown = format_hpa_metrics(spec["metrics"], status["currentMetrics"])
    assert shown == "cpu: 32%/50%, 10/10"
    text = readme("multiple-metrics")
    assert f"`{shown}`" in text
    assert f"reason: pods metric {REQUESTS} above target" in text
    assert "largest proposal wins" in text


def test_a_missing_external_metric_blocks_only_scale_down() -> None:
    scenario = load_scenario(EXAMPLES / "multiple-metrics/scenario.yaml")
    run = run_hpa(scenario, hpa_file="multiple-metrics/with-external/hpa.yaml")
    assert [(r.old, r.new) for r in run.rescales] == [(1, 4), (4, 6), (6, 12), (12, 15)]
    assert run.replicas_at(scenario.duration, 1) == 15  # the load stopped at 18m
    text = readme("multiple-metrics")
    assert "still scales up on the other two metrics but does not scale down" in text


# -- external-metric: pushed values through the push provider -----------------------------


def push_body(name: str) -> bytes:
    return (EXAMPLES / "external-metric" / "push" / name).read_bytes()


def selected_values(provider: PushMetricsProvider) -> list[int]:
    """What the HPA controller reads: the series its selector picks, in milli-units."""
    spec = hpa_spec("external-metric/manifests/hpa.yaml")
    selector = selector_from_label_selector(spec["metrics"][0]["external"]["metric"]["selector"])
    items = asyncio.run(
        provider.get_external_metric(QUEUE_URL_NAMESPACE, selector, ExternalMetricInfo(QUEUE))
    )
    values, _ = external_values(items)
    return values


def push(provider: PushMetricsProvider, name: str) -> None:
    """`kubectl replace --raw <url> -f push/<name>`: a PUT of the value list."""
    samples = decode_external_push(
        push_body(name), "application/json", namespace=QUEUE_URL_NAMESPACE, metric=QUEUE
    )
    provider.write_external_samples(QUEUE_URL_NAMESPACE, QUEUE, samples, replace=True)


@pytest.mark.parametrize(
    ("name", "orders", "replicas"),
    [("orders-0.json", 0, 1), ("orders-90.json", 90, 3), ("orders-600.json", 600, 10)],
    ids=["empty-queue", "ninety", "six-hundred"],
)
def test_pushed_values_select_only_the_orders_series(name: str, orders: int, replicas: int) -> None:
    provider = PushMetricsProvider(FakeClock(START))
    push(provider, name)
    assert selected_values(provider) == [orders * 1000]
    spec = hpa_spec("external-metric/manifests/hpa.yaml")
    wanted = math.ceil(orders / 30)
    assert min(max(wanted, spec["minReplicas"]), spec["maxReplicas"]) == replicas
    assert f"`{name}`" in readme("external-metric")
    # Without the selector the audit queue's 4000 messages would count too.
    everything = asyncio.run(
        provider.get_external_metric(
            QUEUE_URL_NAMESPACE, selector_from_label_selector({}), ExternalMetricInfo(QUEUE)
        )
    )
    assert sorted(item["metricLabels"]["queue"] for item in everything) == ["audit", "orders"]


def test_a_pushed_value_is_forgotten_after_two_minutes() -> None:
    clock = FakeClock(START)
    provider = PushMetricsProvider(clock)
    push(provider, "orders-90.json")
    clock.advance(timedelta(minutes=2) - timedelta(seconds=1))
    assert selected_values(provider) == [90_000]
    clock.advance(timedelta(seconds=1))
    with pytest.raises(ApiError):
        selected_values(provider)
    assert "forgotten 2 minutes after it was written" in readme("external-metric")


def test_external_hpa_follows_the_pushed_schedule() -> None:
    # Nothing for 2 minutes, then orders-90, orders-600 from 6m, orders-0 from 10m, each
    # pushed again every sync (well within the 2 minute expiry).
    schedule = [(minutes(2), "orders-90.json"), (minutes(6), "orders-600.json")]
    schedule.append((minutes(10), "orders-0.json"))
    clock = FakeClock(START)
    provider = PushMetricsProvider(clock)

    def values(at: timedelta) -> list[int] | None:
        clock.set(START + at)
        due = [name for start, name in schedule if start <= at]
        if not due:
            return None
        push(provider, due[-1])
        return selected_values(provider)

    run = run_hpa(load_scenario(EXAMPLES / "external-metric/scenario.yaml"), external=values)
    first = run.decisions[timedelta(0)].status["conditions"]
    active = {c["type"]: (c["status"], c["reason"]) for c in first}["ScalingActive"]
    assert active == ("False", "FailedGetExternalMetric")
    assert [(r.at, r.old, r.new) for r in run.rescales] == [
        (minutes(2), 1, 3),
        (minutes(6), 3, 6),
        (minutes(6.25), 6, 10),
        (minutes(15), 10, 1),
    ]
    spec = hpa_spec("external-metric/manifests/hpa.yaml")
    shown = format_hpa_metrics(spec["metrics"], run.decisions[minutes(5)].status["currentMetrics"])
    assert shown == "30/30 (avg)"
    text = readme("external-metric")
    assert f"`{shown}` at 3 replicas" in text
    for claim in ("stays at 1", "3 replicas", "(via 3 -> 6 -> 10)", "5 minute stabilization"):
        assert claim in text
