"""The ReplicaSet controller's Events as client-go's EventCorrelator leaves them: repeats
counted on one Event, the 10th different message about the same thing combined, and at
most 25 Events per ReplicaSet before the 1-per-5-minutes trickle."""

from __future__ import annotations

import re
from typing import Any

import pytest

from podscale.runtime import run_virtual

from .cluster import NAME_PATTERN, RS, START, UNTIL, Cluster, WrappedApi, replica_set

JSON = dict[str, Any]
COMBINED = "(combined from similar events): "
CREATED = re.compile(f"(?:{re.escape(COMBINED)})?Created pod: web-{NAME_PATTERN}")


def run(scenario: Any) -> Any:
    async def main() -> tuple[Any]:
        cluster = Cluster()
        try:
            return (await scenario(cluster),)
        finally:
            await cluster.stop_all()

    result = run_virtual(main(), start=START, until=UNTIL)
    assert result is not None
    return result[0]


@pytest.mark.parametrize(
    ("replicas", "plain", "combined_counts"),
    [(9, 9, []), (10, 9, [1]), (12, 9, [3]), (40, 9, [16])],
    ids=["nine-plain", "tenth-is-combined", "combined-is-counted", "25-then-throttled"],
)
def test_creations_are_combined_after_nine_and_throttled_after_25(
    replicas: int, plain: int, combined_counts: list[int]
) -> None:
    async def scenario(cluster: Cluster) -> None:
        await cluster.start()
        await cluster.api.create(RS, "default", replica_set("web", replicas))
        await cluster.settle()
        assert len(await cluster.pods()) == replicas
        events = await cluster.events()
        assert all(e["reason"] == "SuccessfulCreate" for e in events)
        assert all(CREATED.fullmatch(e["message"]) for e in events)
        combined = [e for e in events if e["message"].startswith(COMBINED)]
        assert len(events) - len(combined) == plain
        assert [e["count"] for e in combined] == combined_counts
        for event in combined:
            # Built afresh upstream: no reporting fields, the source kept.
            assert event["reportingComponent"] == ""
            assert event["source"] == {"component": "replicaset-controller"}

    run(scenario)


def test_a_repeated_failure_is_one_event_with_a_count() -> None:
    async def scenario(cluster: Cluster) -> None:
        api = WrappedApi(cluster.api, failing_creates=1_000_000)
        await cluster.start(api=api)
        await cluster.api.create(RS, "default", replica_set("web", 3))
        await cluster.settle(60)
        failed = [e for e in await cluster.events() if e["reason"] == "FailedCreate"]
        assert len(failed) == 1
        # At least one attempt per retry: 5 ms doubling fits 14 attempts in a minute.
        assert failed[0]["count"] >= 14
        assert failed[0]["firstTimestamp"] == "2026-03-01T00:00:00Z"
        assert failed[0]["lastTimestamp"] > failed[0]["firstTimestamp"]

    run(scenario)
