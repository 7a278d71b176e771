"""``MetricsStorage.pod_usage_of`` with its memo (``selection_memo``) answers exactly as the
general path: the same storage read through an ``ObjectLabels`` without a version, which is
never memoised. Every change the memo's key must see is made between reads: a new scrape,
a pod's labels, a pod deleted or added, another selector or other names asked."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.selectors import Selector, parse_selector
from podscale.metrics.object_labels import StoreObjectLabels
from podscale.metrics.server.points import MetricsBatch, MetricsPoint
from podscale.metrics.server.selection_memo import NO_OBJECTS_VERSION, labels_version
from podscale.metrics.server.storage import MetricsStorage
from podscale.store.memory import MemoryStore
from podscale.testing.clock import FakeClock

T0 = datetime(2026, 1, 1, tzinfo=UTC)
Key = tuple[str, str | None, str]


class Plain:
    """``ObjectLabels`` over a dict, without a version: the general path."""

    def __init__(self, known: dict[Key, dict[str, str]]) -> None:
        self.known = known

    def labels_of(
        self, group_resource: str, namespace: str | None, name: str
    ) -> Mapping[str, str] | None:
        return self.known.get((group_resource, namespace, name))


class Versioned(Plain):
    """The same labels with a version moved by every change (as a store's revision)."""

    def __init__(self, known: dict[Key, dict[str, str]]) -> None:
        super().__init__(known)
        self.version = 1

    def labels_version(self, group_resource: str) -> int:
        return self.version

    def set(self, name: str, labels: dict[str, str] | None) -> None:
        if labels is None:
            self.known.pop(("pods", "a", name), None)
        else:
            self.known[("pods", "a", name)] = labels
        self.version += 1


def scrape(at: int, names: list[str]) -> MetricsBatch:
    def point(container_cpu: int) -> MetricsPoint:
        moment = T0 + timedelta(seconds=at)
        return MetricsPoint(T0 - timedelta(hours=1), moment, at * container_cpu, 4096 + at)

    pods = {("a", name): {"c": point(10**9 + i)} for i, name in enumerate(names)}
    return MetricsBatch({}, pods)


NAMES = ["v", "w", "x", "y", "z"]
APPS = ["web", "db"]
SELECTORS = ["app=web", "app in (web,db)", "app!=db", ""]

_step = st.one_of(
    st.tuples(
        st.just("read"), st.lists(st.sampled_from(NAMES), max_size=6), st.sampled_from(SELECTORS)
    ),
    st.tuples(
        st.just("label"), st.sampled_from(NAMES), st.one_of(st.none(), st.sampled_from(APPS))
    ),
    st.tuples(st.just("scrape"), st.lists(st.sampled_from(NAMES), unique=True, max_size=5)),
)


@given(st.lists(_step, max_size=14))
def test_memoised_reads_equal_the_general_path(steps: list[tuple[object, ...]]) -> None:
    memoised, general = MetricsStorage(timedelta(seconds=15)), MetricsStorage(timedelta(seconds=15))
    labels = Versioned({("pods", "a", name): {"app": "web"} for name in NAMES})
    at = 15
    for storage in (memoised, general):
        storage.store(scrape(0, NAMES))
        storage.store(scrape(at, NAMES))
    for step in steps:
        if step[0] == "read":
            asked, text = step[1], step[2]
            assert isinstance(asked, list)
            assert isinstance(text, str)
            # A fresh equal selector object half the time: the memo keys it by value.
            selector = (
                parse_selector(text)
                if len(asked) % 2
                else Selector(parse_selector(text).requirements)
            )
            expected = general.pod_usage_of("a", asked, selector, Plain(dict(labels.known)))
            got = memoised.pod_usage_of("a", asked, selector, labels)
            assert got == expected
            got.clear()  # the caller's own list: the memo is not changed through it
            assert memoised.pod_usage_of("a", asked, selector, labels) == expected
        elif step[0] == "label":
            name, app = step[1], step[2]
            assert isinstance(name, str)
            labels.set(name, None if app is None else {"app": str(app)})
        else:
            at += 15
            names = step[1]
            assert isinstance(names, list)
            for storage in (memoised, general):
                storage.store(scrape(at, names))


def reader() -> tuple[MetricsStorage, Versioned, Selector]:
    storage = MetricsStorage(timedelta(seconds=15))
    storage.store(scrape(0, NAMES))
    storage.store(scrape(15, NAMES))
    labels = Versioned({("pods", "a", name): {"app": "web"} for name in NAMES})
    return storage, labels, parse_selector("app=web")


def relabel(storage: MetricsStorage, labels: Versioned) -> None:
    labels.set("x", {"app": "db"})


def delete(storage: MetricsStorage, labels: Versioned) -> None:
    labels.set("y", None)


def rescrape(storage: MetricsStorage, labels: Versioned) -> None:
    storage.store(scrape(30, ["v", "w"]))


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (relabel, ["v", "w", "y", "z"]),
        (delete, ["v", "w", "x", "z"]),
        (rescrape, ["v", "w"]),
    ],
    ids=["pod-relabelled", "pod-deleted", "new-scrape"],
)
def test_a_change_is_seen_by_the_next_read(change: object, expected: list[str]) -> None:
    storage, labels, selector = reader()
    before = storage.pod_usage_of("a", NAMES, selector, labels)
    assert [r.name for r in before] == NAMES
    assert callable(change)
    change(storage, labels)
    after = storage.pod_usage_of("a", NAMES, selector, labels)
    assert [r.name for r in after] == expected
    general = storage.pod_usage_of("a", NAMES, selector, Plain(dict(labels.known)))
    assert after == general


def test_a_new_scrape_serves_its_own_records() -> None:
    storage, labels, selector = reader()
    first = storage.pod_usage_of("a", ["v"], selector, labels)
    storage.store(scrape(30, NAMES))
    second = storage.pod_usage_of("a", ["v"], selector, labels)
    assert first[0].timestamp != second[0].timestamp
    assert second == storage.pod_usage_of("a", ["v"], selector, Plain(dict(labels.known)))


def test_store_labels_version_moves_with_every_pod_write() -> None:
    store = MemoryStore(FakeClock(T0))
    objects = StoreObjectLabels(store)
    versions: list[int] = []

    def seen() -> None:
        version = labels_version(objects)
        assert version is not None
        versions.append(version)

    seen()
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "a"}}
    created = store.create("pods", pod)
    seen()
    store.update("pods", {**created, "metadata": {**created["metadata"], "labels": {"x": "1"}}})
    seen()
    store.create("configmaps", {"metadata": {"name": "c", "namespace": "a"}})
    seen()  # another resource: unchanged
    store.delete("pods", "a", "p")
    seen()
    assert versions[0] < versions[1] < versions[2] == versions[3] < versions[4]


def test_without_objects_every_pod_reads_unlabelled() -> None:
    assert labels_version(None) == NO_OBJECTS_VERSION
    assert labels_version(Plain({})) is None
    storage = MetricsStorage(timedelta(seconds=15))
    storage.store(scrape(0, NAMES))
    storage.store(scrape(15, NAMES))
    everything, some = parse_selector(""), parse_selector("app=web")
    assert [r.name for r in storage.pod_usage_of("a", ["x", "v"], everything)] == ["v", "x"]
    assert storage.pod_usage_of("a", ["x", "v"], some) == []
