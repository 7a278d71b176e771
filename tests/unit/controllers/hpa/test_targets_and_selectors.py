"""The HPA selector index (selector_index) and recording what a decision asks (prefetch);
resolving ``scaleTargetRef`` is tested in test_scale_targets."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.selectors import parse_selector
from podscale.controllers.hpa.prefetch import MetricQuery, QueryRecorder, fetch_answers
from podscale.controllers.hpa.selector_index import SelectorIndex
from podscale.hpa import decide
from podscale.hpa.types import MetricsUnavailable, PodMetric
from podscale.testing import cpu_metric, make_hpa, make_pod, make_scale

NOW = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)


def pod(name: str, **labels: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "labels": labels}}


def test_selector_index_lifecycle() -> None:
    index = SelectorIndex()
    web = [pod("w", app="web", tier="front")]
    assert index.controlling("ns", web) == []
    assert index.register("ns", "ns/a") is True
    assert index.register("ns", "ns/a") is False
    assert index.update("ns", "ns/b", parse_selector("app=web")) is False  # never registered
    assert index.controlling("ns", web) == []  # "a" selects nothing until it syncs
    index.update("ns", "ns/a", parse_selector("app=web"))
    index.register("ns", "ns/b")
    index.update("ns", "ns/b", parse_selector("tier=front"))
    index.register("other", "other/c")
    index.update("other", "other/c", parse_selector("app=web"))
    assert index.controlling("ns", web) == ["ns/a", "ns/b"]
    assert index.controlling("ns", [pod("x", app="web")]) == ["ns/a"]
    index.remove("ns", "ns/b")
    assert index.controlling("ns", web) == ["ns/a"]
    index.remove("ns", "ns/a")
    assert index.controlling("ns", web) == []


_SELECTORS = ["app=web", "tier=front", "app!=web", "tier", "app in (web,api),tier=back", "!tier"]
_LABELS = st.dictionaries(
    st.sampled_from(["app", "tier", "zone"]), st.sampled_from(["web", "api", "front", "back"])
)


@given(
    chosen=st.lists(st.sampled_from(_SELECTORS), max_size=5),
    labels=st.lists(_LABELS, max_size=6),
    reverse=st.lists(st.booleans(), max_size=6),
)
def test_controlling_is_every_selector_tried_against_every_pod(
    chosen: list[str], labels: list[dict[str, str]], reverse: list[bool]
) -> None:
    # The index's answer (label sets deduplicated in their own order, candidates by label
    # pair) is trying each HPA's selector on each pod; the same labels in another order
    # (``reverse``) count alike.
    index = SelectorIndex()
    for i, text in enumerate(chosen):
        index.register("ns", f"ns/h{i}")
        index.update("ns", f"ns/h{i}", parse_selector(text))
    pods = []
    for i, have in enumerate(labels):
        flip = i < len(reverse) and reverse[i]
        pods.append(pod(f"p{i}", **dict(reversed(have.items()) if flip else have.items())))
    expected = sorted(
        f"ns/h{i}"
        for i, text in enumerate(chosen)
        if any(parse_selector(text).matches(have) for have in labels)
    )
    assert index.controlling("ns", pods) == expected


class Answers:
    """A ``MetricsClient`` answering cpu for two pods and failing everything else."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def resource_metric(
        self, resource: str, namespace: str, selector: str, container: str | None
    ) -> tuple[dict[str, PodMetric], datetime]:
        self.asked.append(f"resource/{resource}")
        if resource != "cpu":
            raise MetricsUnavailable("no metrics returned from resource metrics API")
        sample = PodMetric(180, NOW, NOW - NOW)
        return {"web-0": sample, "web-1": sample}, NOW

    async def pods_metric(self, *args: Any) -> tuple[dict[str, PodMetric], datetime]:
        raise AssertionError("not asked")

    async def object_metric(self, *args: Any) -> tuple[int, datetime]:
        raise AssertionError("not asked")

    async def external_metric(self, *args: Any) -> tuple[list[int], datetime]:
        raise AssertionError("not asked")


def test_prefetch_asks_what_the_decision_needs_then_replays_it() -> None:
    memory = {
        "type": "Resource",
        "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "1Gi"}},
    }
    hpa = make_hpa("web", min_replicas=1, max_replicas=10, metrics=[cpu_metric(50), memory])
    pods = [make_pod(f"web-{i}", now=NOW, requests={"cpu": "200m"}) for i in range(2)]
    options: dict[str, Any] = {"scale": make_scale(2), "pods": pods, "history": None, "now": NOW}
    recorder = QueryRecorder()
    decide(hpa, metrics=recorder, **options)
    assert [(q.kind, q.args[0]) for q in recorder.queries] == [
        ("resource", "cpu"),
        ("resource", "memory"),
    ]
    client = Answers()
    recorded = asyncio.run(fetch_answers(client, recorder.queries))
    assert client.asked == ["resource/cpu", "resource/memory"]
    decision = decide(hpa, metrics=recorded, **options)
    # cpu at 90% of a 50% target wants 4; the failed memory metric blocks nothing upward.
    assert decision.desired_replicas == 4
    assert [m.error is None for m in decision.trace.metrics] == [True, False]
    assert "no metrics returned from resource metrics API" in (decision.error or "")


def test_a_replay_reports_the_questions_it_had_no_answer_for() -> None:
    hpa = make_hpa("web", min_replicas=1, max_replicas=10, metrics=[cpu_metric(50)])
    pods = [make_pod(f"web-{i}", now=NOW, requests={"cpu": "200m"}) for i in range(2)]
    options: dict[str, Any] = {"scale": make_scale(2), "pods": pods, "history": None, "now": NOW}
    complete = asyncio.run(
        fetch_answers(Answers(), [MetricQuery("resource", ("cpu", "elsewhere", "app=web", None))])
    )
    recorder = QueryRecorder()
    decide(hpa, metrics=recorder, **options)
    full = asyncio.run(fetch_answers(Answers(), recorder.queries))
    decide(hpa, metrics=full, **options)
    assert full.missed == []
    # Answers to other questions than the decision asks (a stale set): the miss is reported.
    decision = decide(hpa, metrics=complete, **options)
    assert [q.kind for q in complete.missed] == ["resource"]
    assert decision.trace.metrics[0].error is not None


@pytest.mark.parametrize(
    ("first", "second", "same"),
    [
        (("cpu", "ns", "app=web", None), ("cpu", "ns", "app=web", None), True),
        (
            ("rps", "ns", "app=web", {"matchLabels": {"a": "1", "b": "2"}}),
            ("rps", "ns", "app=web", {"matchLabels": {"b": "2", "a": "1"}}),
            True,
        ),
        (("cpu", "ns", "app=web", None), ("cpu", "ns", "app=web", "c"), False),
        (("rps", "ns", "x", {"matchLabels": {"a": "1"}}), ("rps", "ns", "x", {}), False),
    ],
    ids=["equal-args", "dict-order-ignored", "container-differs", "selector-differs"],
)
def test_a_query_key_is_its_canonical_arguments(
    first: tuple[Any, ...], second: tuple[Any, ...], same: bool
) -> None:
    # Computed once at construction: the same as canonical JSON of the arguments.
    one, other = MetricQuery("pods", first), MetricQuery("pods", second)
    assert one.key == ("pods", json.dumps(list(first), sort_keys=True, separators=(",", ":")))
    assert (one.key == other.key) is same
