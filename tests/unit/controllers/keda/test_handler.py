"""The scale handler: what the loop and KEDA's metrics server read from a ScaledObject's scalers.

Fake scalers stand in for the trigger sources so each KEDA behaviour is driven directly: the
loop's readings (errors as outcomes, not exceptions), the metrics server asking the source
again unless ``useCachedMetrics``, the fallback value once a metric's failures pass
``failureThreshold`` (and an error before that), the composite metric of scaling modifiers,
and scalers rebuilt only when the generation moves.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from podscale.controllers.keda.adapter import MetricUnavailable
from podscale.controllers.keda.formula import compile_formula
from podscale.controllers.keda.generated import COMPOSITE_METRIC_NAME
from podscale.controllers.keda.handler import ScaleHandler
from podscale.controllers.keda.reading import parse_scaled_object
from podscale.controllers.keda.scalers.base import Scaler, ScalerEnv, ScalerError, ScalerReading
from podscale.controllers.keda.triggers.registry import parse_trigger
from podscale.controllers.keda.triggers.spec import TriggerSpec
from podscale.controllers.keda.types import ScaledObject

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
KEY = "ns/so"


class Clock:
    def now(self) -> datetime:
        return NOW


class FakeScaler:
    """Answers from a script: a float reads as that value (active above 0), an exception
    text fails the read. Counts reads and closes."""

    def __init__(self, script: list[float | str]) -> None:
        self.script = list(script)
        self.reads = 0
        self.closed = False

    async def read(self, now: datetime) -> ScalerReading:
        item = self.script[min(self.reads, len(self.script) - 1)]
        self.reads += 1
        if isinstance(item, str):
            raise ScalerError(item)
        return ScalerReading(item, item > 0)

    async def close(self) -> None:
        self.closed = True


def scaled_object(**spec: Any) -> ScaledObject:
    body: dict[str, Any] = {
        "scaleTargetRef": {"name": "web"},
        "triggers": [
            {
                "type": "podscale-push",
                "name": "queue",
                "metadata": {"metricName": "queue", "value": "5"},
            }
        ],
        **spec,
    }
    return parse_scaled_object({"metadata": {"name": "so", "namespace": "ns"}, "spec": body})


def specs_of(so: ScaledObject) -> tuple[TriggerSpec, ...]:
    return tuple(
        parse_trigger(
            i,
            {
                "type": t.type,
                "name": t.name,
                "metadata": dict(t.metadata),
                "useCachedMetrics": t.use_cached_metrics,
            },
            namespace=so.namespace,
        )
        for i, t in enumerate(so.triggers)
    )


def handler_with(
    scalers: list[FakeScaler], replicas: int = 3
) -> tuple[ScaleHandler, Callable[[], int]]:
    built = iter(scalers)
    count = {"built": 0}

    def build(spec: TriggerSpec, env: ScalerEnv) -> Scaler:
        count["built"] += 1
        return next(built)

    def env(namespace: str, selector: str | None) -> ScalerEnv:
        return ScalerEnv(api=None, namespace=namespace)  # type: ignore[arg-type]

    async def current(so: ScaledObject) -> int:
        return replicas

    return ScaleHandler(Clock(), env, current, builder=build), lambda: count["built"]


def test_the_loop_sees_errors_as_outcomes_and_health_is_left_to_it() -> None:
    so = scaled_object()
    scaler = FakeScaler([7.0, "connection refused"])
    handler, _ = handler_with([scaler])

    async def main() -> tuple[Any, Any]:
        await handler.put(KEY, so, 1, specs_of(so), None, None)
        return await handler.read_all(KEY), await handler.read_all(KEY)

    first, second = asyncio.run(main())
    assert [(o.metric_name, o.value, o.active, o.error) for o in first] == [
        ("s0-queue", 7.0, True, None)
    ]
    assert [(o.value, o.active, o.error) for o in second] == [(None, False, "connection refused")]
    entry = handler.entry(KEY)
    assert entry is not None
    assert entry.health == {}


@pytest.mark.parametrize(
    ("cached", "reads_after_poll"),
    [(False, 2), (True, 1)],
    ids=["metrics-server-asks-the-source-again", "use-cached-metrics-answers-from-the-poll"],
)
def test_use_cached_metrics(cached: bool, reads_after_poll: int) -> None:
    so = scaled_object(
        triggers=[
            {
                "type": "podscale-push",
                "name": "queue",
                "useCachedMetrics": cached,
                "metadata": {"metricName": "queue", "value": "5"},
            }
        ]
    )
    scaler = FakeScaler([4.0, 9.0])
    handler, _ = handler_with([scaler])

    async def main() -> float:
        await handler.put(KEY, so, 1, specs_of(so), None, None)
        await handler.read_all(KEY)
        return await handler.metric_value("ns", "so", "s0-queue")

    value = asyncio.run(main())
    assert scaler.reads == reads_after_poll
    assert value == (4.0 if cached else 9.0)


def test_fallback_value_once_failures_pass_the_threshold() -> None:
    so = scaled_object(fallback={"failureThreshold": 2, "replicas": 6})
    handler, _ = handler_with([FakeScaler(["down"])])

    async def main() -> list[float | str]:
        await handler.put(KEY, so, 1, specs_of(so), None, None)
        answers: list[float | str] = []
        for _ in range(4):
            try:
                answers.append(await handler.metric_value("ns", "so", "s0-queue"))
            except MetricUnavailable as err:
                answers.append(f"error: {err}")
        return answers

    # KEDA falls back when the failures exceed the threshold: the third failing read on;
    # the value is replicas x the per-pod target, so the HPA lands on 6 pods.
    assert asyncio.run(main()) == ["error: down", "error: down", 30.0, 30.0]
    entry = handler.entry(KEY)
    assert entry is not None
    assert entry.health["s0-queue"]["numberOfFailures"] == 4
    assert entry.health["s0-queue"]["status"] == "Failing"


def test_unknown_object_or_metric_is_a_lookup_error() -> None:
    so = scaled_object()
    handler, _ = handler_with([FakeScaler([1.0])])

    async def main() -> None:
        await handler.put(KEY, so, 1, specs_of(so), None, None)
        with pytest.raises(LookupError):
            await handler.metric_value("ns", "other", "s0-queue")
        with pytest.raises(LookupError):
            await handler.metric_value("ns", "so", "s1-nothing")

    asyncio.run(main())


def test_the_composite_metric_evaluates_the_formula() -> None:
    so = scaled_object(
        triggers=[
            {"type": "podscale-push", "name": "a", "metadata": {"metricName": "a", "value": "5"}},
            {"type": "podscale-push", "name": "b", "metadata": {"metricName": "b", "value": "5"}},
        ],
        advanced={"scalingModifiers": {"formula": "a + 2 * b", "target": "5"}},
    )
    handler, _ = handler_with([FakeScaler([3.0]), FakeScaler([4.0])])
    formula = compile_formula("a + 2 * b", ["a", "b"])

    async def main() -> float:
        await handler.put(KEY, so, 1, specs_of(so), formula, None)
        return await handler.metric_value("ns", "so", COMPOSITE_METRIC_NAME)

    assert asyncio.run(main()) == 11.0
    assert handler.served_metrics() == [("ns", "so", COMPOSITE_METRIC_NAME)]


def test_scalers_are_rebuilt_only_for_a_new_generation() -> None:
    so = scaled_object()
    first, second = FakeScaler([1.0]), FakeScaler([2.0])
    handler, built = handler_with([first, second])

    async def main() -> None:
        await handler.put(KEY, so, 1, specs_of(so), None, None)
        await handler.put(KEY, so, 1, specs_of(so), None, None)
        assert built() == 1
        assert not first.closed
        await handler.put(KEY, so, 2, specs_of(so), None, None)
        assert built() == 2
        assert first.closed
        await handler.forget(KEY)
        assert second.closed
        assert handler.entry(KEY) is None

    asyncio.run(main())
