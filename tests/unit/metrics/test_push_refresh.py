"""``PushMetricsProvider.refresh_pod_metrics``: whether its values are stored at once or only
when someone reads, every read answers, and the stored series are (in order too), what
``set_pod_metrics(namespace, metric, values())`` at the same instants would give."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.api import Selector, parse_quantity
from podscale.apiserver.metricsapis.providers import CustomMetricInfo, CustomScope
from podscale.apiserver.metricsapis.samples import CustomSample
from podscale.metrics.push import PushMetricsProvider
from podscale.metrics.push_journal import SqlitePushJournal
from podscale.testing.clock import FakeClock

START = datetime(2026, 1, 1, tzinfo=UTC)
EVERYTHING = Selector.everything()
PODS = ["a", "b", "c", "d"]
TTL = timedelta(seconds=60)


def _values(names: tuple[str, ...], seed: int) -> dict[str, tuple[str, int | None]]:
    return {name: (f"{seed * 7 + i + 1}m", 15) for i, name in enumerate(names)}


def _observed(provider: PushMetricsProvider) -> Any:
    """Every answer of the custom metrics API over the two namespaces, then the stored
    series (in order) after those reads."""
    answers: list[Any] = []
    for namespace in ("default", "other"):
        for metric in ("rps", "rps2"):
            info = CustomMetricInfo("pods", True, metric)
            try:
                answers.append(
                    asyncio.run(
                        provider.get_metric_by_selector(namespace, EVERYTHING, info, EVERYTHING)
                    )
                )
                answers.append(
                    asyncio.run(provider.get_metric_by_name(namespace, "a", info, EVERYTHING))
                )
            except Exception as error:
                answers.append(repr(error))
    listed = list(provider.list_custom_metrics())
    return answers, listed, list(provider._custom.items()), provider._purge_after


def _apply(provider: PushMetricsProvider, clock: FakeClock, step: Any, lazy: bool) -> None:
    kind, namespace, metric, names, seed = step
    if kind == "publish":
        values = _values(names, seed)
        if lazy:
            provider.refresh_pod_metrics(namespace, metric, names, lambda: values)
        else:
            provider.set_pod_metrics(namespace, metric, values)
    elif kind == "wait":
        clock.advance(timedelta(seconds=seed))
    elif kind == "one":  # the same series as a published one, written on its own
        provider.set_pod_metric(namespace, names[0] if names else "a", metric, seed)
    elif kind == "labelled":  # another series of a published pod
        provider.set_pod_metric(namespace, "b", metric, seed, labels={"l": str(seed % 2)})
    elif kind == "replace":
        info = CustomMetricInfo("pods", True, metric)
        sample = CustomSample("pods", namespace, "c", metric, parse_quantity(str(seed)))
        provider.write_custom_samples(CustomScope(info, namespace, None), [sample], replace=True)
    elif kind == "external":
        provider.set_external_metric(namespace, metric, seed)
    elif kind == "clear":
        provider.clear()


STEPS = st.one_of(
    st.tuples(
        st.just("publish"),
        st.sampled_from(["default", "other"]),
        st.sampled_from(["rps", "rps2"]),
        st.sampled_from([(), ("a",), ("a", "b"), ("a", "b", "c"), ("b", "c", "d")]),
        st.integers(0, 50),
    ),
    st.tuples(st.just("wait"), st.just(""), st.just(""), st.just(()), st.integers(1, 90)),
    st.tuples(
        st.sampled_from(["one", "labelled", "replace", "external", "clear", "read"]),
        st.sampled_from(["default", "other"]),
        st.sampled_from(["rps", "rps2"]),
        st.sampled_from([(), ("c",)]),
        st.integers(1, 9),
    ),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(STEPS, max_size=30), st.sampled_from([TTL, None]))
def test_refreshing_answers_what_setting_answers(steps: list[Any], ttl: timedelta | None) -> None:
    lazy_clock, eager_clock = FakeClock(START), FakeClock(START)
    lazy = PushMetricsProvider(lazy_clock, ttl=ttl)
    eager = PushMetricsProvider(eager_clock, ttl=ttl)
    for step in steps:
        if step[0] == "read":
            assert _observed(lazy) == _observed(eager)
            continue
        _apply(lazy, lazy_clock, step, lazy=True)
        _apply(eager, eager_clock, step, lazy=False)
    assert _observed(lazy) == _observed(eager)


def test_values_are_read_only_when_someone_reads() -> None:
    clock = FakeClock(START)
    provider = PushMetricsProvider(clock, ttl=TTL)
    calls: list[int] = []

    def values(seed: int) -> Any:
        return lambda: calls.append(seed) or _values(("a", "b"), seed)

    provider.refresh_pod_metrics("default", "rps", ("a", "b"), values(1))
    assert calls == [1]  # the first write of these pods is stored at once
    for seed in (2, 3, 4):
        clock.advance(timedelta(seconds=15))
        provider.refresh_pod_metrics("default", "rps", ("a", "b"), values(seed))
    assert calls == [1]
    provider.list_custom_metrics()
    assert calls == [1, 4]  # only the last, as it overwrites the others
    assert provider._custom[("pods", "default", "a", "rps", ())].pushed_at == clock.now()


@pytest.mark.parametrize(
    ("names", "wait", "journaled"),
    [(("a", "c"), 15, False), (("a", "b"), 60, False), (("a", "b"), 15, True)],
    ids=["other-pods", "entries-expired", "journaled"],
)
def test_values_are_read_at_once_when_they_could_not_overwrite_in_place(
    names: tuple[str, ...], wait: int, journaled: bool, tmp_path: Path
) -> None:
    clock = FakeClock(START)
    journal = SqlitePushJournal(tmp_path / "m.db") if journaled else None
    provider = PushMetricsProvider(clock, ttl=TTL, journal=journal)
    provider.refresh_pod_metrics("default", "rps", ("a", "b"), lambda: _values(("a", "b"), 1))
    clock.advance(timedelta(seconds=wait))
    calls: list[int] = []
    provider.refresh_pod_metrics(
        "default", "rps", names, lambda: calls.append(2) or _values(names, 2)
    )
    assert calls == [2]


def test_values_not_of_the_named_pods_are_an_error_when_read() -> None:
    provider = PushMetricsProvider(FakeClock(START), ttl=TTL)
    provider.refresh_pod_metrics("default", "rps", ("a",), lambda: _values(("a",), 1))
    provider.refresh_pod_metrics("default", "rps", ("a",), lambda: _values(("b",), 1))
    with pytest.raises(ValueError, match="not of the pods"):
        provider.list_custom_metrics()
