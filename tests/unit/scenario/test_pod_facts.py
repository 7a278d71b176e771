"""``scenario.pod_facts``: the remembered readiness and CPU request of a pod equal a fresh
reading, through snapshots where pods change (new resourceVersion: recomputed), stay the
same (reused), vanish and come back; only the last two snapshots' pods are kept."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.scenario.pod_facts import PodFacts, cpu_request, pod_facts

JSON = dict[str, Any]


def pod(name: str, version: str, ready: bool, cpu: str | None, *, deleting: bool = False) -> JSON:
    metadata: JSON = {"name": name, "namespace": "default", "resourceVersion": version}
    if deleting:
        metadata["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    resources = {"requests": {"cpu": cpu}} if cpu is not None else {}
    return {
        "metadata": metadata,
        "spec": {"containers": [{"name": "a", "resources": resources}, {"name": "b"}]},
        "status": {"conditions": [{"type": "Ready", "status": "True" if ready else "False"}]},
    }


# A pod's content is fixed by its resourceVersion, as in the store: version -> content.
contents = st.tuples(st.booleans(), st.sampled_from([None, "100m", "1", "250m"]), st.booleans())
snapshots = st.lists(
    st.lists(st.tuples(st.sampled_from("abc"), st.integers(1, 6)), max_size=5), max_size=8
)


@given(st.dictionaries(st.integers(1, 6), contents, min_size=6), snapshots)
def test_remembered_facts_equal_fresh_ones(
    content: dict[int, tuple[bool, str | None, bool]], reads: list[list[tuple[str, int]]]
) -> None:
    facts = PodFacts()
    for snapshot in reads:
        facts.begin()
        for name, version in snapshot:
            ready, cpu, deleting = content[version]
            obj = pod(name, f"{name}{version}", ready, cpu, deleting=deleting)
            assert facts.of(obj) == pod_facts(obj)


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        (pod("a", "1", False, "100m"), pod("a", "2", True, "100m"), (True, 100)),
        (pod("a", "1", True, "100m"), pod("a", "2", True, "1"), (True, 1000)),
        (pod("a", "1", True, "100m"), pod("a", "2", True, "100m", deleting=True), (False, 0)),
        (pod("a", "1", True, "100m"), pod("a", "1", True, "100m"), (True, 100)),
        (pod("a", "", True, "100m"), pod("a", "", False, "100m"), (False, 0)),
    ],
    ids=["became-ready", "request-changed", "deleting", "unchanged", "no-resource-version"],
)
def test_a_changed_pod_is_read_again(first: JSON, second: JSON, expected: tuple[bool, int]) -> None:
    facts = PodFacts()
    facts.begin()
    facts.of(first)
    facts.begin()
    assert facts.of(second) == expected == pod_facts(second)


def test_only_the_last_two_snapshots_pods_are_kept() -> None:
    facts = PodFacts()
    for tick in range(10):
        facts.begin()
        facts.of(pod(f"p{tick}", "1", True, "100m"))
        facts.of(pod("steady", "1", True, "100m"))
    kept = set(facts._current) | set(facts._previous)
    assert kept == {("default", "p9"), ("default", "p8"), ("default", "steady")}


def test_cpu_request_sums_the_containers() -> None:
    obj = pod("a", "1", True, "250m")
    obj["spec"]["containers"][1]["resources"] = {"requests": {"cpu": "1"}}
    assert cpu_request(obj) == 1250
    assert cpu_request({"spec": {}}) == 0


def _fresh_ready(pods: list[JSON]) -> list[tuple[str, int]]:
    return [
        (p["metadata"]["name"], request) for p in pods for ready, request in [pod_facts(p)] if ready
    ]


@given(st.dictionaries(st.integers(1, 6), contents, min_size=6), snapshots, st.data())
def test_kept_ready_lists_equal_fresh_ones(
    content: dict[int, tuple[bool, str | None, bool]],
    reads: list[list[tuple[str, int]]],
    data: st.DataObject,
) -> None:
    facts = PodFacts()
    kept: list[JSON] = []
    for snapshot in reads:
        facts.begin()
        # The same list object again (a kept selection), or a new one.
        if not kept or not data.draw(st.booleans()):
            kept = []
            for name, version in snapshot:
                ready, cpu, deleting = content[version]
                kept.append(pod(name, f"{name}{version}", ready, cpu, deleting=deleting))
        assert facts.ready(kept) == _fresh_ready(kept)


@pytest.mark.parametrize("same_list", [True, False], ids=["same-list-kept", "new-list-read"])
def test_a_ready_list_is_kept_only_for_the_same_list(same_list: bool) -> None:
    facts = PodFacts()
    first = [pod("a", "1", True, "100m"), pod("b", "1", False, "100m")]
    facts.begin()
    answer = facts.ready(first)
    second = first if same_list else [pod("a", "2", False, "100m"), pod("b", "2", True, "1")]
    for _ in range(2):  # kept through the next snapshot, and the one after it
        facts.begin()
        again = facts.ready(second)
        assert again == _fresh_ready(second)
        assert (again is answer) is same_list
