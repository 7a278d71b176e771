"""``publish_rates``: the rates and marks of ``rates_of_rows`` (the general path) over any run
of publishes, whether it kept the last publish whole or took the general path: members
coming and going, readiness changing, pods gone between publishes, values read late."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.runtime.load import PodLoad
from podscale.runtime.simulated.rate_marks import (
    LastPublish,
    forget_mark,
    mark_of,
    publish_rates,
    rate_table,
    settle_marks,
)
from podscale.runtime.simulated.request_rates import Published, rates_of_rows

T0 = datetime(2026, 1, 1, tzinfo=UTC)
POOL = [("default", "a"), ("other", "b"), ("default", "c"), ("default", "d"), ("other", "e")]

# A step: publish after some seconds with the members (or the same table as before), the
# pods' new requests, pods gone.
MEMBERS = st.lists(
    st.lists(st.tuples(st.sampled_from(POOL), st.booleans()), max_size=4), max_size=3
)
STEP = st.tuples(
    st.integers(0, 40),
    st.none() | MEMBERS,
    st.lists(st.integers(0, 30), min_size=len(POOL), max_size=len(POOL)),
    st.lists(st.sampled_from(POOL), max_size=2),
    st.booleans(),
)


def _members(spec: list[list[tuple[tuple[str, str], bool]]]) -> Any:
    # Each pod once, as ``assign_pods`` claims it (a table with a pod twice stays general).
    seen: set[tuple[str, str]] = set()
    members = []
    for pods in spec:
        loads = []
        for (namespace, name), ready in pods:
            if (namespace, name) not in seen:
                seen.add((namespace, name))
                loads.append(PodLoad(name, (), namespace=namespace, ready=ready))
        members.append((None, loads))
    return members


@settings(max_examples=300, deadline=None)
@given(MEMBERS, st.lists(STEP, max_size=12), st.booleans())
def test_publish_rates_answers_what_the_general_path_answers(
    first: Any, steps: list[Any], pushing: bool
) -> None:
    table = rate_table(_members(first))
    served: dict[tuple[str, str], float] = {}
    eager: Published = {}
    published: Published = {}
    last: LastPublish | None = None
    now = T0
    late: list[tuple[Any, dict[str, Any]]] = []
    for seconds, members, more, gone, forget_served in steps:
        now += timedelta(seconds=seconds)
        if members is not None:
            table = rate_table(_members(members))
        for key, extra in zip(POOL, more, strict=True):
            served[key] = served.get(key, 0.0) + extra * 0.37
        expected = rates_of_rows(table.rows, served, eager, now, pushing)
        # A snapshot, as the ledger hands over (kept as it is: ``served`` goes on).
        last, rates = publish_rates(table, dict(served), published, last, now, pushing)
        assert [namespace for namespace, _, _ in rates] == list(expected)
        for namespace, names, values in rates:
            assert names == tuple(sorted(expected[namespace]))
            late.append((values, expected[namespace]))
        for key in POOL:
            assert mark_of(published, last, key) == eager.get(key)
        for key in gone:  # as ``UsageAccounting._gone``
            eager.pop(key, None)
            forget_mark(published, last, key)
            last = None
            if forget_served:
                served.pop(key, None)
    for values, expected_values in late:  # read after the later publishes
        assert values() == expected_values
    settle_marks(published, last)
    assert published == eager


def test_the_same_table_publishes_without_writing_marks() -> None:
    table = rate_table([(None, [PodLoad("a", ()), PodLoad("b", (), ready=False)])])
    published: Published = {}
    last, _ = publish_rates(table, {("default", "a"): 3.0}, published, None, T0, True)
    assert published == {("default", "a"): (T0, 3.0), ("default", "b"): (T0, 0.0)}
    later = T0 + timedelta(seconds=15)
    last, rates = publish_rates(table, {("default", "a"): 33.0}, published, last, later, True)
    assert published[("default", "a")] == (T0, 3.0)  # kept in ``last`` instead
    assert mark_of(published, last, ("default", "a")) == (later, 33.0)
    assert [(namespace, names, values()) for namespace, names, values in rates] == [
        ("default", ("a",), {"a": ("2000m", 15)})
    ]
