"""``MetricsStorage``: which scrapes pair up, what is served, and that the rate is right."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from fractions import Fraction

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from podscale.api.durations import format_go_duration
from podscale.api.selectors import parse_selector
from podscale.api.timestamps import format_time
from podscale.apiserver.metricsapis.pod_usage import nano_to_milli, units_to_milli
from podscale.metrics.server.pod_records import record_from_points, record_of
from podscale.metrics.server.points import MetricsBatch, MetricsPoint
from podscale.metrics.server.render import render_usage
from podscale.metrics.server.storage import (
    MetricsStorage,
    _Snapshot,
)
from podscale.metrics.server.usage import Usage

T0 = datetime(2026, 1, 1, tzinfo=UTC)
CORE = 1_000_000_000  # one core for one second, in core-nanoseconds


def t(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def pt(at: float, cpu: float, *, start: float | None = -3600, mem: int = 4096) -> MetricsPoint:
    return MetricsPoint(None if start is None else t(start), t(at), int(cpu), mem)


def pods(**containers_by_pod: Mapping[str, MetricsPoint]) -> MetricsBatch:
    return MetricsBatch({}, {("default", name): dict(c) for name, c in containers_by_pod.items()})


def p(**containers: MetricsPoint) -> MetricsBatch:
    """A scrape in which pod ``default/p`` has these containers."""
    return pods(p=containers)


NOTHING = MetricsBatch()
Served = dict[str, tuple[int, float]] | None  # container -> (nanocores, window seconds)


def served(storage: MetricsStorage, name: str = "p") -> Served:
    usages = storage.pod_usage("default", name)
    if usages is None:
        return None
    return {c: (u.cpu_nanocores, u.window.total_seconds()) for c, u in usages}


def run(batches: Sequence[MetricsBatch], resolution: float = 15) -> MetricsStorage:
    storage = MetricsStorage(timedelta(seconds=resolution))
    for batch in batches:
        storage.store(batch)
    return storage


SCENARIOS: list[tuple[str, list[MetricsBatch], Served]] = [
    ("one-scrape", [p(c=pt(0, 0))], None),
    ("two-scrapes", [p(c=pt(0, 0)), p(c=pt(15, 1.5 * CORE))], {"c": (100_000_000, 15)}),
    (
        "window-is-the-last-interval",
        [p(c=pt(0, 0)), p(c=pt(15, 15 * CORE)), p(c=pt(30, 18 * CORE))],
        {"c": (200_000_000, 15)},
    ),
    ("vanished", [p(c=pt(0, 0)), p(c=pt(15, CORE)), NOTHING], None),
    ("back-once", [p(c=pt(0, 0)), p(c=pt(15, CORE)), NOTHING, p(c=pt(45, 3 * CORE))], None),
    (
        "back-twice",
        [p(c=pt(0, 0)), NOTHING, p(c=pt(30, CORE)), p(c=pt(45, 4 * CORE))],
        {"c": (200_000_000, 15)},
    ),
    ("restarted", [p(c=pt(0, 100)), p(c=pt(15, 200)), p(c=pt(30, 5, start=25))], None),
    (
        "restarted-then-sampled-again",
        [
            p(c=pt(0, 100)),
            p(c=pt(15, 200)),
            p(c=pt(30, CORE, start=5)),
            p(c=pt(45, 4 * CORE, start=5)),
        ],
        {"c": (200_000_000, 15)},
    ),
    ("started-at-the-stored-sample", [p(c=pt(0, 100)), p(c=pt(15, 200, start=0))], None),
    ("counter-backwards", [p(c=pt(0, 100)), p(c=pt(15, 50))], {}),
    (
        "counter-backwards-beside-a-good-container",
        [p(c=pt(0, 100), d=pt(0, 0)), p(c=pt(15, 50), d=pt(15, 3 * CORE))],
        {"d": (200_000_000, 15)},
    ),
    ("fresh-12s", [p(c=pt(15, 1.2 * CORE, start=3))], {"c": (100_000_000, 12)}),
    ("fresh-10s", [p(c=pt(15, CORE, start=5))], {"c": (100_000_000, 10)}),
    ("too-fresh-9s", [p(c=pt(15, CORE, start=6))], None),
    ("not-fresh-at-resolution", [p(c=pt(15, CORE, start=0))], None),
    (
        "fresh-after-restart",
        [p(c=pt(0, 100)), p(c=pt(15, 200)), p(c=pt(30, 6 * CORE, start=18))],
        {"c": (500_000_000, 12)},
    ),
    ("new-sidecar-waits", [p(c=pt(0, 0)), p(c=pt(15, CORE), s=pt(15, 1))], None),
    (
        "new-sidecar-served-next",
        [p(c=pt(0, 0)), p(c=pt(15, CORE), s=pt(15, 1)), p(c=pt(30, 2 * CORE), s=pt(30, CORE + 1))],
        {"c": (66_666_666, 15), "s": (66_666_666, 15)},
    ),
    (
        "sidecar-gone",
        [p(c=pt(0, 0), s=pt(0, 0)), p(c=pt(15, CORE), s=pt(15, CORE)), p(c=pt(30, 2 * CORE))],
        {"c": (66_666_666, 15)},
    ),
    (
        "same-sample-again",
        [p(c=pt(0, 0)), p(c=pt(15, 1.5 * CORE)), p(c=pt(15, 1.5 * CORE))],
        {"c": (100_000_000, 15)},
    ),
    (
        "older-sample-pairs-with-kept-previous",
        [p(c=pt(0, 0)), p(c=pt(15, 3 * CORE)), p(c=pt(10, CORE))],
        {"c": (100_000_000, 10)},
    ),
    ("older-than-previous", [p(c=pt(5, 0)), p(c=pt(15, CORE)), p(c=pt(3, CORE))], None),
]


@pytest.mark.parametrize(
    ("batches", "expected"), [s[1:] for s in SCENARIOS], ids=[s[0] for s in SCENARIOS]
)
def test_pod_scenarios(batches: list[MetricsBatch], expected: Served) -> None:
    assert served(run(batches)) == expected


@pytest.mark.parametrize(
    ("resolution", "age", "expected"),
    [(30, 20, {"c": (50_000_000, 20)}), (30, 30, None), (10, 10, None)],
    ids=["20s-under-30s", "30s-is-not-fresh", "never-fresh-under-10s"],
)
def test_freshness_depends_on_the_resolution(
    resolution: float, age: float, expected: Served
) -> None:
    batches = [p(c=pt(100, CORE, start=100 - age))]
    assert served(run(batches, resolution)) == expected


def node_batch(**points: MetricsPoint) -> MetricsBatch:
    return MetricsBatch(points, {})


NODE_SCENARIOS: list[tuple[str, list[MetricsBatch], tuple[int, float] | None]] = [
    ("one-scrape", [node_batch(n=pt(0, 0))], None),
    ("two-scrapes", [node_batch(n=pt(0, 0)), node_batch(n=pt(15, 30 * CORE))], (2 * CORE, 15)),
    ("vanished", [node_batch(n=pt(0, 0)), node_batch(n=pt(15, CORE)), NOTHING], None),
    (
        "same-sample-again",
        [node_batch(n=pt(0, 0)), node_batch(n=pt(15, 15 * CORE)), node_batch(n=pt(15, 15 * CORE))],
        (CORE, 15),
    ),
    ("counter-backwards", [node_batch(n=pt(0, 100)), node_batch(n=pt(15, 50))], None),
    # Nodes have no restart rule: a reboot shows as a refused pair, then a fresh pair.
    (
        "rebooted",
        [
            node_batch(n=pt(0, 9 * CORE)),
            node_batch(n=pt(15, CORE, start=10)),
            node_batch(n=pt(30, 4 * CORE, start=10)),
        ],
        (200_000_000, 15),
    ),
]


@pytest.mark.parametrize(
    ("batches", "expected"), [s[1:] for s in NODE_SCENARIOS], ids=[s[0] for s in NODE_SCENARIOS]
)
def test_node_scenarios(batches: list[MetricsBatch], expected: tuple[int, float] | None) -> None:
    usage = run(batches).node_usage("n")
    got = None if usage is None else (usage.cpu_nanocores, usage.window.total_seconds())
    assert got == expected


class Objects:
    """``ObjectLabels`` over a dict."""

    def __init__(self, known: dict[tuple[str, str | None, str], dict[str, str]]) -> None:
        self.known = known

    def labels_of(
        self, group_resource: str, namespace: str | None, name: str
    ) -> Mapping[str, str] | None:
        return self.known.get((group_resource, namespace, name))


def two_scrapes() -> MetricsStorage:
    def scrape(at: float) -> MetricsBatch:
        point = pt(at, at * CORE)
        return MetricsBatch(
            {"n2": point, "n1": point},
            {("b", "x"): {"c": point}, ("a", "z"): {"c": point}, ("a", "y"): {"c": point}},
        )

    return run([scrape(15), scrape(30)])


def names(items: list[dict[str, object]]) -> list[tuple[object, object]]:
    return [(i["metadata"]["namespace"], i["metadata"]["name"]) for i in items]  # type: ignore[index]


def test_pod_metrics_are_ordered_and_filtered_by_namespace() -> None:
    storage = two_scrapes()
    assert names(storage.pod_metrics(None, t(31))) == [("a", "y"), ("a", "z"), ("b", "x")]
    assert names(storage.pod_metrics("a", t(31))) == [("a", "y"), ("a", "z")]
    assert storage.pod_metrics("missing", t(31)) == []


def test_objects_hide_what_the_api_does_not_have_and_lend_their_labels() -> None:
    storage = two_scrapes()
    objects = Objects(
        {
            ("pods", "a", "z"): {"app": "z"},
            ("pods", "b", "x"): {},
            ("nodes", None, "n2"): {"role": "w"},
        }
    )
    pods_served = storage.pod_metrics(None, t(31), objects)
    assert names(pods_served) == [("a", "z"), ("b", "x")]
    assert [i["metadata"].get("labels") for i in pods_served] == [{"app": "z"}, None]
    nodes_served = storage.node_metrics(t(31), objects)
    assert [(i["metadata"]["name"], i["metadata"]["labels"]) for i in nodes_served] == [
        ("n2", {"role": "w"})
    ]


def test_served_items_carry_times() -> None:
    item = two_scrapes().node_metrics(t(31))[0]
    assert item["metadata"]["creationTimestamp"] == "2026-01-01T00:00:31Z"
    assert (item["timestamp"], item["window"], item["usage"]["cpu"]) == (
        "2026-01-01T00:00:30Z",
        "15s",
        "1",
    )


@pytest.mark.parametrize(
    ("batches", "ready"),
    [
        ([], False),
        ([MetricsBatch({"n": pt(0, 1)}, {("a", "p"): {"c": pt(0, 1)}})], False),
        ([MetricsBatch({"n": pt(0, 1)}, {}), MetricsBatch({"n": pt(15, 2)}, {})], False),
        (
            [
                MetricsBatch({"n": pt(0, 1)}, {("a", "p"): {"c": pt(0, 1)}}),
                MetricsBatch({"n": pt(15, 2)}, {("a", "p"): {"c": pt(15, 2)}}),
            ],
            True,
        ),
    ],
    ids=["empty", "one-scrape", "nodes-only", "two-scrapes"],
)
def test_ready_once_a_node_and_a_pod_can_be_served(
    batches: list[MetricsBatch], ready: bool
) -> None:
    assert run(batches).ready() is ready


def test_resolution_must_be_positive() -> None:
    with pytest.raises(ValueError, match="resolution must be positive"):
        MetricsStorage(timedelta(0))


# -- the rate is the true average ------------------------------------------------------

segments = st.lists(
    st.tuples(st.integers(1, 60_000_000), st.integers(0, 64 * CORE)), min_size=1, max_size=6
)  # (duration in microseconds, rate in nanocores)


def counter_at(history: list[tuple[int, int]], micros: int) -> Fraction:
    """Exact core-nanoseconds used in the first ``micros`` of a piecewise-constant history."""
    used, elapsed = Fraction(0), 0
    for duration, rate in history:
        span = min(duration, max(micros - elapsed, 0))
        used += Fraction(rate * span, 1_000_000)
        elapsed += duration
    if micros > elapsed:  # past the history: the last rate continues
        used += Fraction(history[-1][1] * (micros - elapsed), 1_000_000)
    return used


@given(history=segments, first=st.integers(0, 120_000_000), gap=st.integers(1_000_000, 120_000_000))
def test_reported_cpu_is_the_true_average_rate(
    history: list[tuple[int, int]], first: int, gap: int
) -> None:
    """Whatever the usage did between two scrapes, the rate is its average over the window
    (to the nanocore: the kubelet's counter is whole core-nanoseconds, the rate truncated).
    The container started long before (idle until ``origin``), so no fresh-start rule applies."""
    origin = t(0)

    def sample(micros: int) -> MetricsBatch:
        moment = origin + timedelta(microseconds=micros)
        point = MetricsPoint(t(-3600), moment, int(counter_at(history, micros)), 1)
        return p(c=point)

    second = first + gap
    usage = run([sample(first), sample(second)]).pod_usage("default", "p")
    assert usage is not None
    ((_, got),) = usage
    true_average = (counter_at(history, second) - counter_at(history, first)) / Fraction(
        gap, 1_000_000
    )
    assert abs(got.cpu_nanocores - true_average) < 2
    assert got.window == timedelta(microseconds=gap)
    assert got.timestamp == origin + timedelta(microseconds=second)


def test_usage_of_holds_the_values_of_the_rendered_items() -> None:
    storage = two_scrapes()
    objects = Objects({("pods", "a", "z"): {"app": "z"}, ("pods", "a", "y"): {"app": "y"}})
    wanted = parse_selector("app in (y,z)")
    names_asked = ["z", "y", "x", "z"]
    items = storage.pod_metrics_of("a", names_asked, wanted, t(31), objects)
    records = storage.pod_usage_of("a", names_asked, wanted, objects)
    assert [(r.namespace, r.name) for r in records] == names(items) == [("a", "y"), ("a", "z")]
    for item, record in zip(items, records, strict=True):
        assert item["timestamp"] == format_time(record.timestamp)  # type: ignore[arg-type]
        assert item["window"] == format_go_duration(record.window)
        assert item["containers"] == [
            {
                "name": c.name,
                "usage": render_usage(Usage(c.cpu_nanocores, c.memory_bytes, T0, T0 - T0)),
            }
            for c in record.containers
        ]


@pytest.mark.parametrize(
    ("batches", "expected"), [s[1:] for s in SCENARIOS], ids=[s[0] for s in SCENARIOS]
)
def test_reads_between_scrapes_see_each_scrape(
    batches: list[MetricsBatch], expected: Served
) -> None:
    # A pod's usage is remembered per pair of scrapes: read after every store (twice, and
    # through a list the caller changes), it is what a storage that never was read serves.
    storage = MetricsStorage(timedelta(seconds=15))
    for count, batch in enumerate(batches, start=1):
        storage.store(batch)
        first = storage.pod_usage("default", "p")
        if first is not None:
            first.clear()
        assert served(storage) == served(run(batches[:count]))
    assert served(storage) == expected


@pytest.mark.parametrize(
    ("batches", "expected"), [s[1:] for s in SCENARIOS], ids=[s[0] for s in SCENARIOS]
)
def test_usage_records_read_between_scrapes_see_each_scrape(
    batches: list[MetricsBatch], expected: Served
) -> None:
    # The records are remembered per pair of scrapes too: read after every store (twice),
    # they are those of a storage that never was read.
    everything = parse_selector("")
    storage = MetricsStorage(timedelta(seconds=15))
    for count, batch in enumerate(batches, start=1):
        storage.store(batch)
        first = storage.pod_usage_of("default", ["p"], everything)
        second = storage.pod_usage_of("default", ["p"], everything)
        fresh = run(batches[:count]).pod_usage_of("default", ["p"], everything)
        assert first == second == fresh
    assert bool(storage.pod_usage_of("default", ["p"], everything)) is (expected is not None)


def test_usage_records_follow_labels_that_change_between_scrapes() -> None:
    # Remembering a pod's record must not remember whether it matched: labels are read anew.
    storage = two_scrapes()
    objects = Objects({("pods", "a", "z"): {"app": "z"}, ("pods", "a", "y"): {"app": "y"}})
    wanted = parse_selector("app=y")
    assert [r.name for r in storage.pod_usage_of("a", ["y", "z"], wanted, objects)] == ["y"]
    objects.known[("pods", "a", "z")] = {"app": "y"}
    del objects.known[("pods", "a", "y")]
    assert [r.name for r in storage.pod_usage_of("a", ["y", "z"], wanted, objects)] == ["z"]


@given(
    st.lists(st.sampled_from(["w", "x", "y", "z", "gone"]), max_size=6),
    st.one_of(
        st.none(),
        st.dictionaries(
            st.sampled_from(["w", "x", "y", "z"]), st.sampled_from(["web", "db"]), max_size=4
        ),
    ),
    st.sampled_from(["app=web", "app in (web,db)", "app!=db", ""]),
)
def test_usage_of_selects_what_the_rendered_read_selects(
    asked: list[str], apps: dict[str, str] | None, selector: str
) -> None:
    """``pod_usage_of`` (one loop over the snapshot) reads exactly the pods and values of
    ``pod_metrics_of`` (``_matching``), with or without the objects' labels, twice over
    (the second read from the snapshot's records)."""

    def scrape(at: float) -> MetricsBatch:
        point = pt(at, at * CORE)
        fresh = pt(at, at * CORE, start=at - 12)  # served once, from its synthetic start
        return MetricsBatch(
            {"n1": point},
            {("a", "w"): {"c": fresh}, ("a", "x"): {"c": point}, ("a", "y"): {"c": point}},
        )

    storage = run([scrape(15), scrape(30)])
    storage.store(MetricsBatch({}, {**scrape(45).pods, ("a", "z"): {"c": pt(45, 1)}}))
    objects = None
    if apps is not None:
        objects = Objects({("pods", "a", name): {"app": app} for name, app in apps.items()})
    wanted = parse_selector(selector)
    items = storage.pod_metrics_of("a", asked, wanted, t(46), objects)
    for _ in range(2):
        records = storage.pod_usage_of("a", asked, wanted, objects)
        assert [("a", r.name) for r in records] == names(items)
        for item, record in zip(items, records, strict=True):
            assert item["timestamp"] == format_time(record.timestamp)  # type: ignore[arg-type]
            assert item["window"] == format_go_duration(record.window)


# Whole seconds (ties, equal times) and microseconds (windows' fractional seconds); small
# counters (equal, one apart) and large ones.
_moments = st.one_of(
    st.integers(-60, 40).map(t),
    st.integers(-60_000_000, 40_000_000).map(lambda us: T0 + timedelta(microseconds=us)),
)
_counters = st.one_of(st.integers(0, 3), st.integers(0, 10**13))
_points = st.builds(
    MetricsPoint, st.one_of(st.none(), _moments), _moments, _counters, st.integers(0, 10**12)
)
_pairs = st.lists(
    st.tuples(
        st.sampled_from(["app", "side", "init"]),
        _points,
        _points,
        st.sampled_from([True, True, True, False]),
    ),
    max_size=3,
    unique_by=lambda c: c[0],
)


@given(_pairs, st.booleans())
# Two containers sampled at the same time over different windows: the first one is earliest.
@example([("app", pt(30, 9), pt(15, 0), True), ("side", pt(30, 9), pt(20, 0), True)], True)
# A counter one below the previous one: refused (its rate would truncate to zero).
@example([("app", pt(30, 5), pt(15, 6), True), ("side", pt(30, 9), pt(15, 0), True)], True)
# The same time twice, and a start time going backwards: both refused.
@example([("app", pt(30, 9), pt(30, 0), True), ("side", pt(30, 9), pt(15, 0), True)], True)
@example([("app", pt(30, 9, start=-10), pt(15, 0, start=-5), True)], True)
def test_record_from_points_is_the_record_of_the_computed_usage(
    pairs: list[tuple[str, MetricsPoint, MetricsPoint, bool]], stored_before: bool
) -> None:
    # Each container's last point and previous one (kept or not), for a pod whose previous
    # scrape was stored or not.
    last = {name: point for name, point, _, _ in pairs}
    prev = {name: before for name, _, before, kept in pairs if kept} if stored_before else None
    # The fused loop (``pod_usage_of``'s record when no reader rendered the pod first) is
    # the general path's record: the same containers, earliest container, sums, or None.
    key = ("ns", "p")
    snapshot = _Snapshot(pods_last={key: last}, pods_prev={} if prev is None else {key: prev})
    general = record_of(key, MetricsStorage._compute_pod_usage(snapshot, key))
    assert record_from_points(key, last, prev) == general
    if general is not None:
        assert general.cpu_milli == sum(nano_to_milli(c.cpu_nanocores) for c in general.containers)
        assert general.memory_milli == sum(
            units_to_milli(c.memory_bytes) for c in general.containers
        )


def _general_record(
    key: tuple[str, str], last: dict[str, MetricsPoint], prev: dict[str, MetricsPoint]
) -> object:
    snapshot = _Snapshot(pods_last={key: last}, pods_prev={key: prev})
    return record_of(key, MetricsStorage._compute_pod_usage(snapshot, key))


_SHARED_NOW, _SHARED_BEFORE = t(30), t(15)


@pytest.mark.parametrize(
    ("reads", "expected_windows"),
    [
        # One scrape's pods share their time objects: the window is reused from pod to pod.
        ([(_SHARED_NOW, _SHARED_BEFORE), (_SHARED_NOW, _SHARED_BEFORE)], [15, 15]),
        # The next scrape (new objects, another span): computed afresh, not the last one's.
        ([(_SHARED_NOW, _SHARED_BEFORE), (t(45), _SHARED_NOW), (t(50), t(45))], [15, 15, 5]),
        # Equal times in other objects, and the same later time over another earlier one.
        ([(t(30), t(15)), (t(30), t(15)), (_SHARED_NOW, t(20))], [15, 15, 10]),
        # A pair refused (no time passed) between two served ones.
        (
            [(_SHARED_NOW, _SHARED_BEFORE), (_SHARED_NOW, _SHARED_NOW), (t(31), t(1))],
            [15, None, 30],
        ),
    ],
    ids=["shared-times", "next-scrape", "equal-not-same", "refused-between"],
)
def test_records_built_in_a_row_are_each_the_record_of_their_usage(
    reads: list[tuple[datetime, datetime]], expected_windows: list[int | None]
) -> None:
    # ``record_from_points`` keeps the last window it computed by the identity of the two
    # times: each record of a run of reads equals the general path's, whatever came before.
    windows = []
    for i, (now, before) in enumerate(reads):
        key = ("ns", f"p{i}")
        last = {"app": MetricsPoint(t(-3600), now, 9 * CORE, 4096)}
        prev = {"app": MetricsPoint(t(-3600), before, 3 * CORE, 4096)}
        record = record_from_points(key, last, prev)
        assert record == _general_record(key, last, prev)
        assert record is not None
        windows.append(int(record.window.total_seconds()) if record.containers else None)
    assert windows == expected_windows


@pytest.mark.parametrize(
    ("cpu", "memory"),
    [
        (CORE, 2**63 // 1000),
        (CORE, 2**63 // 1000 + 1),
        (CORE, -5),
        (CORE, -(2**63)),
        (2**63 * 10**6 * 15, 1),
        (2**63 * 10**6 * 30, 1),
    ],
    ids=[
        "memory-at-int64",
        "memory-past-int64",
        "negative-memory",
        "memory-past-negative-int64",
        "cpu-near-int64",
        "cpu-past-int64",
    ],
)
def test_record_sums_saturate_as_the_general_path_does(cpu: int, memory: int) -> None:
    # The fused loop sums in plain integers inside int64 and falls back to the saturating
    # conversions outside: equal to the general path at and across the bounds.
    key = ("ns", "p")
    last = {"app": MetricsPoint(t(-3600), t(15), cpu, memory)}
    prev = {"app": MetricsPoint(t(-3600), t(0), 0, memory)}
    record = record_from_points(key, last, prev)
    assert record == _general_record(key, last, prev)


@pytest.mark.parametrize("rendered_first", [False, True], ids=["records-first", "rendered-first"])
def test_usage_records_are_alike_whoever_read_the_pod_first(rendered_first: bool) -> None:
    # A pod rendered first (its usages kept) gets its record from them; one read first as a
    # record, from its points: both records are equal, and a new scrape recomputes them.
    everything = parse_selector("")
    batches = [p(c=pt(0, 0), d=pt(1, 0)), p(c=pt(15, CORE), d=pt(16, 3 * CORE))]
    fresh = run(batches).pod_usage_of("default", ["p"], everything)
    storage = run(batches)
    if rendered_first:
        storage.pod_metrics_of("default", ["p"], everything, t(20))
    assert storage.pod_usage_of("default", ["p"], everything) == fresh
    assert fresh[0].cpu_milli == 67 + 200  # 1/15 and 3/15 of a core, rounded up
    storage.store(p(c=pt(30, 4 * CORE), d=pt(31, 3 * CORE)))
    (after,) = storage.pod_usage_of("default", ["p"], everything)
    assert (after.cpu_milli, after.window) == (200, timedelta(seconds=15))
