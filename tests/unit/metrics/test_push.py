"""``PushMetricsProvider``: series, selectors, object filtering, expiry on a FakeClock."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api import Selector, parse_quantity, parse_selector
from podscale.apiserver.errors import ApiError
from podscale.apiserver.metricsapis.providers import (
    CustomMetricInfo,
    CustomScope,
    ExternalMetricInfo,
)
from podscale.apiserver.metricsapis.samples import CustomSample
from podscale.metrics.push import DEFAULT_TTL, PushMetricsProvider
from podscale.metrics.push_values import milli_quantity
from podscale.testing.clock import FakeClock

JSON = dict[str, Any]
PODS_RPS = CustomMetricInfo("pods", True, "rps")
EVERYTHING = Selector.everything()
START = datetime(2026, 1, 1, tzinfo=UTC)


class Labels:
    """``ObjectLabels`` over a dict: (resource, namespace, name) -> labels."""

    def __init__(self, objects: Mapping[tuple[str, str | None, str], Mapping[str, str]]) -> None:
        self.objects = dict(objects)

    def labels_of(
        self, group_resource: str, namespace: str | None, name: str
    ) -> Mapping[str, str] | None:
        return self.objects.get((group_resource, namespace, name))


def _by_selector(
    provider: PushMetricsProvider, selector: str = "", metric_selector: str = ""
) -> dict[str, str]:
    items = asyncio.run(
        provider.get_metric_by_selector(
            "default", parse_selector(selector), PODS_RPS, parse_selector(metric_selector)
        )
    )
    return {i["describedObject"]["name"]: i["value"] for i in items}


def _by_name(provider: PushMetricsProvider, name: str, metric_selector: str = "") -> JSON:
    return asyncio.run(
        provider.get_metric_by_name("default", name, PODS_RPS, parse_selector(metric_selector))
    )


def _error(call: Any) -> tuple[int, str]:
    with pytest.raises(ApiError) as caught:
        asyncio.run(call)
    return caught.value.code, caught.value.status["message"]


def test_set_pod_metric_reads_back_by_name_and_selector() -> None:
    provider = PushMetricsProvider(FakeClock(START))
    provider.set_pod_metric("default", "web-1", "rps", "1.5", window_seconds=30)
    provider.set_pod_metric("default", "web-2", "rps", 2)
    provider.set_pod_metric("other", "web-3", "rps", 9)
    item = _by_name(provider, "web-1")
    assert item["value"] == "1500m"
    assert item["windowSeconds"] == 30
    assert item["timestamp"] == "2026-01-01T00:00:00Z"
    assert item["describedObject"] == {
        "kind": "Pod",
        "namespace": "default",
        "name": "web-1",
        "apiVersion": "v1",
    }
    assert _by_selector(provider) == {"web-1": "1500m", "web-2": "2"}


@pytest.mark.parametrize(
    ("metric_selector", "expected"),
    [
        ("", {"a": "6", "b": "10"}),
        ("verb=GET", {"a": "1", "b": "10"}),
        ("verb in (GET,PUT)", {"a": "3", "b": "10"}),
        ("verb=DELETE", {}),
    ],
    ids=["all-series-summed", "one-series", "two-series", "none"],
)
def test_metric_selector_filters_series_and_sums_the_rest(
    metric_selector: str, expected: dict[str, str]
) -> None:
    provider = PushMetricsProvider(FakeClock(START))
    for verb, value in (("GET", 1), ("PUT", 2), ("POST", 3)):
        provider.set_pod_metric("default", "a", "rps", value, labels={"verb": verb})
    provider.set_pod_metric("default", "b", "rps", 10, labels={"verb": "GET"})
    assert _by_selector(provider, metric_selector=metric_selector) == expected


def test_newest_timestamp_wins_when_series_are_summed() -> None:
    provider = PushMetricsProvider(FakeClock(START))
    later = START + timedelta(seconds=20)
    provider.set_pod_metric("default", "a", "rps", 1, labels={"v": "1"}, timestamp=later)
    provider.set_pod_metric("default", "a", "rps", 2, labels={"v": "2"}, window_seconds=5)
    item = _by_name(provider, "a")
    assert (item["value"], item["timestamp"]) == ("3", "2026-01-01T00:00:20Z")
    assert "windowSeconds" not in item


def test_label_selector_uses_live_objects() -> None:
    objects = Labels(
        {
            ("pods", "default", "web-1"): {"app": "web"},
            ("pods", "default", "db-1"): {"app": "db"},
        }
    )
    provider = PushMetricsProvider(FakeClock(START), objects=objects)
    for pod in ("web-1", "db-1", "gone-1"):
        provider.set_pod_metric("default", pod, "rps", 1)
    assert _by_selector(provider, "app=web") == {"web-1": "1"}
    # An empty selector still drops the deleted pod: its samples never leak into a decision.
    assert _by_selector(provider) == {"db-1": "1", "web-1": "1"}
    assert _by_selector(provider, "app=cache") == {}


def test_without_objects_the_label_selector_is_not_applied() -> None:
    provider = PushMetricsProvider(FakeClock(START))
    provider.set_pod_metric("default", "web-1", "rps", 1)
    assert _by_selector(provider, "app=anything") == {"web-1": "1"}


@pytest.mark.parametrize(
    ("name", "metric_selector", "message"),
    [
        ("web-1", "", None),
        ("web-9", "", "the server could not find the metric rps for pods web-9"),
        (
            "web-1",
            "verb=PUT",
            "the server could not find the metric rps for pods web-1 with selector verb=PUT",
        ),
    ],
    ids=["found", "other-object", "no-matching-series"],
)
def test_get_by_name_not_found_texts(name: str, metric_selector: str, message: str | None) -> None:
    provider = PushMetricsProvider(FakeClock(START))
    provider.set_pod_metric("default", "web-1", "rps", 1, labels={"verb": "GET"})
    call = provider.get_metric_by_name("default", name, PODS_RPS, parse_selector(metric_selector))
    if message is None:
        assert asyncio.run(call)["value"] == "1"
    else:
        assert _error(call) == (404, message)


def test_unknown_metric_is_404_everywhere() -> None:
    provider = PushMetricsProvider(FakeClock(START))
    provider.set_pod_metric("other", "web-1", "rps", 1)
    missing = "the server could not find the metric rps for pods"
    assert _error(provider.get_metric_by_name("default", "web-1", PODS_RPS, EVERYTHING)) == (
        404,
        missing,
    )
    assert _error(provider.get_metric_by_selector("default", EVERYTHING, PODS_RPS, EVERYTHING)) == (
        404,
        missing,
    )
    external = provider.get_external_metric("default", EVERYTHING, ExternalMetricInfo("queue"))
    assert _error(external) == (404, "the server could not find the metric queue for namespaces")


def test_values_expire_after_the_ttl() -> None:
    clock = FakeClock(START)
    provider = PushMetricsProvider(clock, ttl=30)
    provider.set_pod_metric("default", "a", "rps", 1)
    provider.set_external_metric("default", "queue", 5)
    clock.advance(20)
    provider.set_pod_metric("default", "b", "rps", 2)
    clock.advance(9.999)
    assert _by_selector(provider) == {"a": "1", "b": "2"}
    clock.advance(0.001)
    assert _by_selector(provider) == {"b": "2"}
    assert provider.list_external_metrics() == []
    clock.advance(20)
    assert provider.list_custom_metrics() == []
    assert _error(provider.get_metric_by_name("default", "b", PODS_RPS, EVERYTHING))[0] == 404


def test_rewriting_a_series_renews_it() -> None:
    clock = FakeClock(START)
    provider = PushMetricsProvider(clock, ttl=timedelta(seconds=10))
    provider.set_pod_metric("default", "a", "rps", 1)
    clock.advance(8)
    provider.set_pod_metric("default", "a", "rps", 4)
    clock.advance(8)
    assert _by_selector(provider) == {"a": "4"}


def test_no_ttl_never_expires_and_default_is_two_minutes() -> None:
    clock = FakeClock(START)
    forever = PushMetricsProvider(clock, ttl=None)
    default = PushMetricsProvider(clock)
    for provider in (forever, default):
        provider.set_pod_metric("default", "a", "rps", 1)
    clock.advance(DEFAULT_TTL)
    assert _by_selector(forever) == {"a": "1"}
    assert default.list_custom_metrics() == []
    assert timedelta(minutes=2) == DEFAULT_TTL


def test_listings_for_discovery() -> None:
    provider = PushMetricsProvider(FakeClock(START))
    provider.set_pod_metric("default", "a", "rps", 1)
    provider.set_pod_metric("prod", "b", "rps", 1, labels={"v": "x"})
    provider.set_custom_metric("nodes", None, "n1", "temperature", 40)
    provider.set_custom_metric("deployments.apps", "default", "web", "hits", "3")
    provider.set_external_metric("default", "queue", 1, labels={"q": "a"})
    provider.set_external_metric("prod", "queue", 1)
    assert sorted(provider.list_custom_metrics(), key=str) == sorted(
        [
            PODS_RPS,
            CustomMetricInfo("nodes", False, "temperature"),
            CustomMetricInfo("deployments.apps", True, "hits"),
        ],
        key=str,
    )
    assert provider.list_external_metrics() == [ExternalMetricInfo("queue")]
    provider.clear()
    assert (provider.list_custom_metrics(), provider.list_external_metrics()) == ([], [])


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("", [("a", "1"), ("b", "2"), ("", "3")]),
        ("q=a", [("a", "1")]),
        ("q", [("a", "1"), ("b", "2")]),
        ("!q", [("", "3")]),
        ("q=zzz", []),
    ],
    ids=["all", "equals", "exists", "not-exists", "none"],
)
def test_external_series_filtered_by_labels(selector: str, expected: list[tuple[str, str]]) -> None:
    provider = PushMetricsProvider(FakeClock(START))
    provider.set_external_metric("default", "queue", 1, labels={"q": "a"})
    provider.set_external_metric("default", "queue", 2, labels={"q": "b"}, window_seconds=60)
    provider.set_external_metric("default", "queue", 3)
    provider.set_external_metric("prod", "queue", 100, labels={"q": "a"})
    items = asyncio.run(
        provider.get_external_metric(
            "default", parse_selector(selector), ExternalMetricInfo("queue")
        )
    )
    got = [(i["metricLabels"].get("q", ""), i["value"]) for i in items]
    assert sorted(got) == sorted(expected)
    assert all(i["metricName"] == "queue" for i in items)


@given(
    values=st.dictionaries(
        st.sampled_from(["GET", "PUT", "POST", "PATCH"]),
        st.integers(min_value=-10_000, max_value=10_000),
        min_size=1,
    )
)
def test_all_series_of_an_object_sum_to_the_unfiltered_value(values: dict[str, int]) -> None:
    provider = PushMetricsProvider(FakeClock(START))
    for verb, value in values.items():
        provider.set_pod_metric("default", "a", "rps", value, labels={"verb": verb})
    assert parse_quantity(_by_name(provider, "a")["value"]) == parse_quantity(sum(values.values()))


@given(
    first=st.sets(st.sampled_from("abcdef"), min_size=1),
    second=st.sets(st.sampled_from("abcdef")),
)
def test_replace_keeps_exactly_the_new_set(first: set[str], second: set[str]) -> None:
    provider = PushMetricsProvider(FakeClock(START))
    for name in first:
        provider.set_pod_metric("default", name, "rps", 1)
    provider.set_pod_metric("default", "keep", "other", 1)
    samples = [
        CustomSample("pods", "default", name, "rps", parse_quantity(2)) for name in sorted(second)
    ]
    provider.write_custom_samples(CustomScope(PODS_RPS, "default", None), samples, replace=True)
    if second:
        assert _by_selector(provider) == dict.fromkeys(second, "2")
    else:
        assert (
            _error(provider.get_metric_by_selector("default", EVERYTHING, PODS_RPS, EVERYTHING))[0]
            == 404
        )
    assert CustomMetricInfo("pods", True, "other") in provider.list_custom_metrics()


def test_set_pod_metrics_writes_what_one_set_pod_metric_per_pod_writes() -> None:
    one_by_one = PushMetricsProvider(FakeClock(START))
    batched = PushMetricsProvider(FakeClock(START))
    values: dict[str, tuple[str | int, int | None]] = {"web-1": ("1500m", 30), "web-2": (2, None)}
    for pod, (value, window) in values.items():
        one_by_one.set_pod_metric("default", pod, "rps", value, window_seconds=window)
    batched.set_pod_metrics("default", "rps", values)
    assert _by_selector(batched) == _by_selector(one_by_one) == {"web-1": "1500m", "web-2": "2"}
    assert _by_name(batched, "web-1") == _by_name(one_by_one, "web-1")


def test_a_write_drops_the_series_that_expired_since_the_last_one() -> None:
    clock = FakeClock(START)
    provider = PushMetricsProvider(clock, ttl=timedelta(seconds=60))
    provider.set_pod_metric("default", "old", "rps", 1)
    clock.advance(timedelta(seconds=30))
    provider.set_pod_metrics("default", "rps", {"new": (2, None)})
    clock.advance(timedelta(seconds=31))  # "old" is 61 s old, "new" 31 s
    provider.set_pod_metrics("default", "rps", {"newer": (3, None)})
    # The stored series themselves, not a read (reads purge too).
    assert set(provider._custom) == {
        ("pods", "default", "new", "rps", ()),
        ("pods", "default", "newer", "rps", ()),
    }
    clock.advance(timedelta(seconds=30))
    provider.set_pod_metrics("default", "rps", {})
    assert set(provider._custom) == {("pods", "default", "newer", "rps", ())}


@given(
    st.dictionaries(
        st.sampled_from(["a", "b", "c", "d", "e"]),
        st.tuples(
            st.sampled_from(["1500m", "1500m ", "2", "0", 2, 2.0, 1.5]),
            st.none() | st.integers(1, 60),
        ),
    )
)
def test_set_pod_metrics_parses_a_shared_value_as_each_pod_would(
    values: dict[str, tuple[str | int | float, int | None]],
) -> None:
    """A value several pods share is parsed once per write: the stored samples are those of
    one ``set_pod_metric`` per pod, value for value (format and text too)."""
    one_by_one = PushMetricsProvider(FakeClock(START))
    batched = PushMetricsProvider(FakeClock(START))
    for pod, (value, window) in values.items():
        one_by_one.set_pod_metric("default", pod, "rps", value, window_seconds=window)
    batched.set_pod_metrics("default", "rps", values)
    assert {k: e.sample for k, e in batched._custom.items()} == {
        k: e.sample for k, e in one_by_one._custom.items()
    }
    assert {k: (e.pushed_at, e.expires_at) for k, e in batched._custom.items()} == {
        k: (e.pushed_at, e.expires_at) for k, e in one_by_one._custom.items()
    }


def test_set_pod_metrics_with_a_bad_value_writes_nothing() -> None:
    provider = PushMetricsProvider(FakeClock(START))
    with pytest.raises(ValueError, match="finite"):
        provider.set_pod_metrics("default", "rps", {"a": ("1", None), "b": ("1e400", None)})
    assert provider._custom == {}


@given(
    st.one_of(
        st.integers(0, 10**20).map(lambda n: f"{n}m"),
        st.from_regex(r"\A[0-9]{0,20}m?\Z", fullmatch=True),
        st.text(alphabet="0123456789m.-+ e²٣", max_size=8),
    )
)
def test_a_milli_text_reads_as_the_parser_reads_it(text: str) -> None:
    """The pushed milli-unit texts skip the parser: where the shortcut answers, the very
    quantity the parser gives (value, format, echoed text, printed form); elsewhere it
    leaves the text to the parser."""
    milli = milli_quantity(text)
    if milli is None:
        return
    parsed = parse_quantity(text)
    assert (milli.unscaled, milli.exponent, milli.format, milli.text, str(milli)) == (
        parsed.unscaled,
        parsed.exponent,
        parsed.format,
        parsed.text,
        str(parsed),
    )


@pytest.mark.parametrize(
    ("text", "taken"),
    [
        ("8123m", True),
        ("1000m", True),
        ("0m", False),
        ("0123m", False),
        ("-5m", False),
        ("5", False),
        ("٣m", False),
        ("1234567890123456789m", False),
    ],
    ids=[
        "usual",
        "whole-unit",
        "zero",
        "leading-zero",
        "negative",
        "no-suffix",
        "non-ascii",
        "long",
    ],
)
def test_which_texts_the_milli_shortcut_takes(text: str, taken: bool) -> None:
    assert (milli_quantity(text) is not None) == taken
