"""``records_from_points``, the storage's read of a reader's pods, against the general path.

Whatever the pods' points (one container or several, paired or not, refused pairs), the
records kept from an earlier read, or the usages a render kept: the records are those of
``record_of`` over ``MetricsStorage._compute_pod_usage``, in the order asked, the pods not
scraped or not served left out, and every record computed is kept for the next read.
``all_records``, the storage's eager fill of a scrape's records, gives every pod's the same.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import example, given, settings
from hypothesis import strategies as st

from podscale.api.selectors import parse_selector
from podscale.apiserver.metricsapis.pod_usage import PodUsage
from podscale.metrics.server.pod_records import (
    Containers,
    all_records,
    record_of,
    records_from_points,
)
from podscale.metrics.server.points import MetricsBatch, MetricsPoint, PodKey
from podscale.metrics.server.storage import MetricsStorage, _Snapshot

T0 = datetime(2026, 1, 1, tzinfo=UTC)
_NAMES = ["p", "q", "r", "s"]

# Two scrape times shared by most points (as a scrape's are), and a few others.
_NOW, _BEFORE = T0 + timedelta(seconds=30), T0 + timedelta(seconds=15)
_moments = st.sampled_from([_NOW, _BEFORE, _NOW, _BEFORE, T0, T0 + timedelta(seconds=31)])
_points = st.builds(
    MetricsPoint,
    st.none() | st.sampled_from([T0 - timedelta(hours=1), T0, T0 + timedelta(seconds=20)]),
    _moments,
    st.integers(0, 10**13),
    st.integers(-5, 10**12),
)
_containers = st.dictionaries(st.sampled_from(["app", "side"]), _points, min_size=1, max_size=2)
# Per pod its last points and its previous ones (None: not paired).
_pods = st.dictionaries(
    st.sampled_from(_NAMES), st.tuples(_containers, st.none() | _containers), max_size=4
)


def _general(snapshot: _Snapshot, key: PodKey) -> PodUsage | None:
    return record_of(key, MetricsStorage._compute_pod_usage(snapshot, key))


@settings(max_examples=300, deadline=None)
@given(
    pods=_pods,
    asked=st.lists(st.sampled_from([*_NAMES, "gone"]), max_size=6),
    read_before=st.lists(st.sampled_from(_NAMES), max_size=2),
    rendered=st.lists(st.sampled_from(_NAMES), max_size=2),
)
# One container's counter going backwards, another's start time: both pairs refused.
@example(
    pods={
        "p": ({"app": MetricsPoint(T0, _NOW, 5, 1)}, {"app": MetricsPoint(T0, _BEFORE, 9, 1)}),
        "q": ({"app": MetricsPoint(T0, _NOW, 9, 1)}, {"app": MetricsPoint(_NOW, _BEFORE, 5, 1)}),
        "r": ({"app": MetricsPoint(T0, _NOW, 9, 1)}, {"app": MetricsPoint(T0, _NOW, 5, 1)}),
    },
    asked=["p", "q", "r"],
    read_before=[],
    rendered=[],
)
def test_records_are_the_general_paths_and_kept(
    pods: dict[str, tuple[Containers, Containers | None]],
    asked: list[str],
    read_before: list[str],
    rendered: list[str],
) -> None:
    last = {("ns", name): points for name, (points, _) in pods.items()}
    prev = {("ns", name): points for name, (_, points) in pods.items() if points is not None}

    snapshot = _Snapshot(pods_last=last, pods_prev=prev)
    # Pods another reader rendered first (their usages kept), and pods read before.
    for name in rendered:
        MetricsStorage._known_usage(snapshot, ("ns", name))
    records_from_points(
        "ns", read_before, snapshot.pods_last, snapshot.pods_prev, snapshot.records, snapshot.usages
    )
    got = records_from_points(
        "ns", asked, snapshot.pods_last, snapshot.pods_prev, snapshot.records, snapshot.usages
    )
    fresh = _Snapshot(pods_last=last, pods_prev=prev)
    expected = [
        record
        for name in asked
        if ("ns", name) in fresh.pods_last and (record := _general(fresh, ("ns", name))) is not None
    ]
    assert got == expected
    for name in {*asked, *read_before} & set(pods):
        assert snapshot.records[("ns", name)] == _general(fresh, ("ns", name))


def test_a_new_snapshot_computes_the_records_again() -> None:
    # The kept records belong to one snapshot: the next scrape's are computed from its
    # points, not served from the last one's.
    key = ("ns", "p")
    everything = parse_selector("")
    storage = MetricsStorage()
    read = []
    for at, cpu, memory in [(15, 15, 1), (30, 30, 1), (45, 60, 2)]:
        point = MetricsPoint(T0, T0 + timedelta(seconds=at), cpu * 10**9, memory)
        storage.store(MetricsBatch({}, {key: {"app": point}}))
        records = storage.pod_usage_of("ns", ["p"], everything)
        assert records == [r for r in [_general(storage._snapshot, key)] if r is not None]
        read.append([(r.cpu_milli, r.memory_milli) for r in records])
    assert read == [[], [(1000, 1000)], [(2000, 2000)]]


@settings(max_examples=300, deadline=None)
@given(pods=_pods)
def test_all_records_are_the_general_paths_of_every_scraped_pod(
    pods: dict[str, tuple[Containers, Containers | None]],
) -> None:
    last = {("ns", name): points for name, (points, _) in pods.items()}
    prev = {("ns", name): points for name, (_, points) in pods.items() if points is not None}
    fresh = _Snapshot(pods_last=last, pods_prev=prev)
    assert all_records(last, prev) == {key: _general(fresh, key) for key in last}


def _pt_at(at: int) -> MetricsPoint:
    return MetricsPoint(T0, T0 + timedelta(seconds=at), 2 * at * 10**9, 7)


def test_records_are_filled_at_a_scrape_only_after_a_read() -> None:
    # A scrape whose predecessor nobody read keeps nothing in advance; after a reader read
    # one, the next scrape's records are filled when it is stored, the same as a read
    # would compute them.
    key, other = ("ns", "p"), ("ns", "q")
    everything = parse_selector("")
    storage = MetricsStorage()
    for at in (15, 30, 45):
        points = {
            k: {"app": MetricsPoint(T0, T0 + timedelta(seconds=at), at * 10**9, 7)}
            for k in (key, other)
        }
        storage.store(MetricsBatch({}, points))
    assert storage._snapshot.records == {}
    storage.pod_usage_of("ns", ["p"], everything)
    for at in (60, 75, 90):
        storage.store(MetricsBatch({}, {k: {"app": _pt_at(at)} for k in (key, other)}))
        snapshot = storage._snapshot
        fresh = _Snapshot(pods_last=snapshot.pods_last, pods_prev=snapshot.pods_prev)
        assert snapshot.records == {k: _general(fresh, k) for k in (key, other)}
        if at < 90:
            assert storage.pod_usage_of("ns", ["p", "q"], everything) == [
                _general(fresh, key),
                _general(fresh, other),
            ]
    # The last one read was the one before: the next is left to its first read again.
    storage.store(MetricsBatch({}, {k: {"app": _pt_at(105)} for k in (key, other)}))
    assert storage._snapshot.records == {}
