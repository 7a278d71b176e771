"""``group_pod_facts`` and a reader's requests equal ``group_pods`` and ``calculate_requests``
(``podscale.hpa.pod_facts``): the same groups, the same failures, for any pods."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.hpa.pod_facts import PLAIN_READER, group_pod_facts, pod_facts
from podscale.hpa.pods import PodGroups, calculate_requests, group_pods
from podscale.hpa.types import PodMetric

NOW = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
INIT_PERIOD = timedelta(minutes=5)
READINESS_DELAY = timedelta(seconds=30)

_VALID_TIME = st.integers(-30, 30).map(
    lambda s: (NOW + timedelta(seconds=30 * s)).isoformat().replace("+00:00", "Z")
)
# Mostly valid: a single malformed pod makes a whole case fail (the same way on both paths).
_TIMES = st.sampled_from(["valid"] * 12 + ["", "not a time", None]).flatmap(
    lambda kind: _VALID_TIME if kind == "valid" else st.just(kind)
)


@st.composite
def _pod(draw: st.DrawFn, index: int) -> Any:
    if draw(st.sampled_from([False] * 40 + [True])):
        return draw(st.sampled_from([{}, {"metadata": {}}, {"metadata": None}]))
    name = draw(st.sampled_from([f"p{index}", "p0", "shared"]))
    metadata: dict[str, Any] = {"name": name}
    if draw(st.booleans()) and draw(st.booleans()):
        metadata["deletionTimestamp"] = "2024-05-01T12:00:00Z"
    status: dict[str, Any] = {}
    phase = draw(st.sampled_from([None, "Running", "Pending", "Failed", "Succeeded"]))
    if phase is not None:
        status["phase"] = phase
    start = draw(_TIMES)
    if start is not None:
        status["startTime"] = start
    conditions: list[Any] = []
    for _ in range(draw(st.integers(0, 2))):
        condition: dict[str, Any] = {
            "type": draw(st.sampled_from(["Ready", "Ready", "PodScheduled"])),
            "status": draw(st.sampled_from(["True", "False", "Unknown"])),
        }
        transition = draw(_TIMES)
        if transition is not None:
            condition["lastTransitionTime"] = transition
        conditions.append(condition)
    if conditions or draw(st.booleans()):
        status["conditions"] = conditions
    cpu = draw(st.sampled_from([None, "100m", "1", "250m"]))
    container: dict[str, Any] = {"name": draw(st.sampled_from(["app", "side"]))}
    if cpu is not None:
        container["resources"] = {"requests": {"cpu": cpu}}
    return {"metadata": metadata, "spec": {"containers": [container]}, "status": status}


@st.composite
def _case(draw: st.DrawFn) -> tuple[list[Any], dict[str, PodMetric]]:
    count = draw(st.integers(0, 6))
    pods = [draw(_pod(i)) for i in range(count)]
    metrics: dict[str, PodMetric] = {}
    names = [p["metadata"]["name"] for p in pods if (p.get("metadata") or {}).get("name")]
    extra = draw(st.lists(st.sampled_from(["p0", "shared", "x"]), max_size=2))
    for name in [n for n in names if draw(st.integers(0, 4))] + extra:
        age = timedelta(seconds=draw(st.integers(-60, 900)))
        window = timedelta(seconds=draw(st.sampled_from([15, 30, 60])))
        metrics[name] = PodMetric(100, NOW - age, window)
    return pods, metrics


def _outcome(call: Any) -> tuple[str, Any]:
    try:
        return "ok", call()
    except Exception as err:
        return type(err).__name__, str(err)


def _groups(groups: PodGroups) -> Any:
    # Dict order is part of the result (the trace lists the pods in it).
    return (
        groups.ready_count,
        list(groups.unready.items()),
        groups.missing,
        list(groups.ignored.items()),
    )


@given(_case(), st.sampled_from(["cpu", "memory", ""]))
@settings(max_examples=400, deadline=None)
def test_grouping_by_facts_equals_group_pods(
    case: tuple[list[Any], dict[str, PodMetric]], resource: str
) -> None:
    pods, metrics = case
    options: dict[str, Any] = {
        "now": NOW,
        "cpu_initialization_period": INIT_PERIOD,
        "initial_readiness_delay": READINESS_DELAY,
    }
    general = _outcome(lambda: _groups(group_pods(pods, metrics, resource, **options)))
    by_facts = _outcome(
        lambda: _groups(group_pod_facts(pods, metrics, resource, PLAIN_READER, **options))
    )
    assert by_facts == general


@given(_case(), st.sampled_from(["", "app", "side", "none"]))
@settings(max_examples=200, deadline=None)
def test_requests_through_a_reader_equal_calculate_requests(
    case: tuple[list[Any], dict[str, PodMetric]], container: str
) -> None:
    pods, _ = case
    general = _outcome(lambda: calculate_requests(pods, container, "cpu"))
    read = _outcome(lambda: calculate_requests(pods, container, "cpu", PLAIN_READER))
    assert read == general


@pytest.mark.parametrize(
    ("pod", "reason"),
    [
        ({"metadata": {}}, None),
        (
            {
                "metadata": {"name": "p"},
                "status": {"startTime": "bad", "conditions": [{"type": "Ready"}]},
            },
            None,
        ),
        ({"metadata": {"name": "p"}, "status": {"conditions": []}}, "no ready condition"),
        (
            {"metadata": {"name": "p"}, "status": {"conditions": [{"type": "Ready"}]}},
            "no start time",
        ),
    ],
    ids=["no-name", "unparseable-start", "no-ready-condition", "no-start-time"],
)
def test_facts_of_malformed_pods(pod: dict[str, Any], reason: str | None) -> None:
    facts = pod_facts(pod)
    if reason is None:
        assert facts is None  # grouped by group_pods itself
    else:
        assert facts is not None
        assert facts.cpu_reason == reason


def _ready_pod(start: int, transition: int | None, ready: str) -> dict[str, Any]:
    """A running pod started ``start`` seconds from NOW, its Ready condition last changed
    ``transition`` seconds from NOW."""
    condition: dict[str, Any] = {"type": "Ready", "status": ready}
    if transition is not None:
        condition["lastTransitionTime"] = _at(transition)
    status = {"phase": "Running", "startTime": _at(start), "conditions": [condition]}
    return {"metadata": {"name": "p"}, "spec": {}, "status": status}


def _at(seconds: int) -> str:
    return (NOW + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


@pytest.mark.parametrize(
    ("start", "transition", "ready", "sampled", "expected"),
    [
        (-60, -50, "True", -5, "ready"),
        (-60, -50, "False", -5, "not ready"),
        (-60, -20, "True", -5, "inside cpu initialization period"),
        (-60, -35, "True", -5, "ready"),  # sample exactly one window after the transition
        (-60, None, "True", -5, "ready"),
        (-300, -290, "False", -5, "not yet ready since start"),  # at the period's start
        (-600, -580, "False", -5, "not yet ready since start"),
        (-600, -570, "False", -5, "ready"),  # readiness delay exactly over
        (-600, -500, "False", -5, "ready"),
        (-600, -500, "Unknown", -5, "ready"),
    ],
    ids=[
        "initializing-ready",
        "initializing-not-ready",
        "initializing-sample-too-early",
        "initializing-sample-at-window",
        "initializing-no-transition",
        "period-boundary",
        "never-ready",
        "readiness-delay-boundary",
        "ready-once-then-false",
        "unknown",
    ],
)
def test_cpu_readiness_rules_by_facts(
    start: int, transition: int | None, ready: str, sampled: int, expected: str
) -> None:
    pod = _ready_pod(start, transition, ready)
    metrics = {"p": PodMetric(100, NOW + timedelta(seconds=sampled), timedelta(seconds=30))}
    options: dict[str, Any] = {
        "now": NOW,
        "cpu_initialization_period": INIT_PERIOD,
        "initial_readiness_delay": READINESS_DELAY,
    }
    general = group_pods([pod], metrics, "cpu", **options)
    by_facts = group_pod_facts([pod], metrics, "cpu", PLAIN_READER, **options)
    assert _groups(by_facts) == _groups(general)
    assert (general.unready.get("p") or "ready") == expected
