"""``pod_usage_values`` (PodMetrics values read in process) against ``pod_resource_values``
(the same items rendered as metrics-server's JSON): every sample, timestamp, window and
error must be the same, so the HPA decides alike on both paths."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api import Quantity
from podscale.apiserver.metricsapis.pod_usage import ContainerUsage, PodUsage
from podscale.controllers.hpa.metrics_values import (
    nano_to_milli,
    pod_resource_values,
    pod_usage_values,
    units_to_milli,
)
from podscale.hpa.types import MetricsUnavailable, PodMetric
from podscale.metrics.server.render import render_pod_metrics
from podscale.metrics.server.usage import Usage

NOW = datetime(2026, 1, 1, 12, tzinfo=UTC)

times = st.datetimes(
    min_value=datetime(2020, 1, 1), max_value=datetime(2030, 1, 1), timezones=st.just(UTC)
)
windows = st.timedeltas(min_value=timedelta(microseconds=1), max_value=timedelta(hours=2))
containers = st.lists(
    st.tuples(
        st.sampled_from(["app", "side", "init"]),
        st.integers(0, 10**14),
        st.integers(0, 10**15),
        times,
        windows,
    ),
    max_size=3,
    unique_by=lambda c: c[0],
)
pods = st.lists(
    st.tuples(st.sampled_from(["a", "b", "c", "d"]), containers),
    max_size=4,
    unique_by=lambda p: p[0],
)


def _both(
    spec: list[tuple[str, list[tuple[str, int, int, datetime, timedelta]]]],
) -> tuple[list[dict[str, object]], list[PodUsage]]:
    items, records = [], []
    for name, cs in spec:
        usages = [(c, Usage(cpu, mem, at, window)) for c, cpu, mem, at, window in cs]
        items.append(render_pod_metrics("ns", name, {}, NOW, usages))
        earliest = min((u for _, u in usages), key=lambda u: u.timestamp, default=None)
        records.append(
            PodUsage(
                "ns",
                name,
                earliest.timestamp if earliest else None,
                earliest.window if earliest else timedelta(0),
                tuple(ContainerUsage(c, u.cpu_nanocores, u.memory_bytes) for c, u in usages),
            )
        )
    return items, records


def _read(
    fn: object, arg: object, resource: str, container: str | None
) -> tuple[dict[str, PodMetric], datetime] | str:
    try:
        return fn(arg, resource, container)  # type: ignore[operator, no-any-return]
    except MetricsUnavailable as err:
        return str(err)


@given(
    pods, st.sampled_from(["cpu", "memory", "ephemeral-storage"]), st.sampled_from([None, "app"])
)
def test_values_read_like_their_json(
    spec: list[tuple[str, list[tuple[str, int, int, datetime, timedelta]]]],
    resource: str,
    container: str | None,
) -> None:
    items, records = _both(spec)
    assert _read(pod_usage_values, records, resource, container) == _read(
        pod_resource_values, items, resource, container
    )


@given(
    pods, st.sampled_from(["cpu", "memory", "ephemeral-storage"]), st.sampled_from([None, "app"])
)
def test_values_read_alike_from_records_with_their_sums(
    spec: list[tuple[str, list[tuple[str, int, int, datetime, timedelta]]]],
    resource: str,
    container: str | None,
) -> None:
    # A provider's precomputed sums (``cpu_milli``/``memory_milli``) give what summing the
    # record's containers gives.
    _, records = _both(spec)
    summed = [
        r._replace(
            cpu_milli=sum(nano_to_milli(c.cpu_nanocores) for c in r.containers),
            memory_milli=sum(units_to_milli(c.memory_bytes) for c in r.containers),
        )
        for r in records
    ]
    assert _read(pod_usage_values, summed, resource, container) == _read(
        pod_usage_values, records, resource, container
    )


# Few distinct times and windows (equal values in distinct objects too): records in a row
# share them or not, as one scrape's pods do or two nodes' do.
_few_times = st.sampled_from([0, 0, 1, 2]).map(lambda s: NOW + timedelta(seconds=s, microseconds=3))
_few_windows = st.sampled_from([15, 15, 14]).map(lambda s: timedelta(seconds=s, milliseconds=1))
_shared_pods = st.lists(
    st.tuples(
        st.sampled_from(["a", "b", "c", "d", "e"]),
        st.lists(
            st.tuples(
                st.sampled_from(["app", "side"]),
                st.integers(0, 10**10),
                st.integers(0, 10**10),
                _few_times,
                _few_windows,
            ),
            max_size=2,
            unique_by=lambda c: c[0],
        ),
    ),
    max_size=5,
    unique_by=lambda p: p[0],
)


@given(_shared_pods, st.sampled_from(["cpu", "memory"]))
def test_whole_pod_values_reuse_only_equal_times_and_windows(
    spec: list[tuple[str, list[tuple[str, int, int, datetime, timedelta]]]], resource: str
) -> None:
    # ``_sum_containers`` converts a record's timestamp and window only when they differ
    # from the previous record's: every pod still reads as its rendered JSON reads.
    items, records = _both(spec)
    assert _read(pod_usage_values, records, resource, None) == _read(
        pod_resource_values, items, resource, None
    )


@pytest.mark.parametrize(
    ("sums", "expected"),
    [((None, None), 3), ((7, None), 7)],
    ids=["summed-by-the-reader", "the-record's-sum"],
)
def test_a_record_sum_is_used_as_given(sums: tuple[int | None, int | None], expected: int) -> None:
    # The reader trusts the record's sum (the provider computes it from the same containers);
    # without one it sums them itself.
    record = PodUsage(
        "ns", "p", NOW, timedelta(seconds=15), (ContainerUsage("c", 2_500_000, 1),), *sums
    )
    samples, _ = pod_usage_values([record], "cpu", None)
    assert samples["p"].value == expected


@pytest.mark.parametrize(
    ("cpu", "milli"),
    [(0, 0), (1, 1), (999_999, 1), (1_000_000, 1), (1_000_001, 2), (250_000_000, 250)],
    ids=["zero", "one-nano", "under-a-milli", "a-milli", "over-a-milli", "250m"],
)
def test_cpu_rounds_up_to_a_millicore(cpu: int, milli: int) -> None:
    at = NOW + timedelta(microseconds=700_000)
    record = PodUsage("ns", "p", at, timedelta(seconds=15), (ContainerUsage("c", cpu, 0),))
    samples, stamp = pod_usage_values([record], "cpu", None)
    assert samples == {"p": PodMetric(milli, NOW, timedelta(seconds=15))}
    assert stamp == NOW  # whole seconds, as the rendered timestamp


# The integer conversions ``pod_usage_values`` uses instead of building a Quantity per
# container: equal to the Quantity's milli value everywhere, int64 saturation included.
huge = st.integers(-(2**70), 2**70)
around_rounding = st.integers(-(10**7), 10**7)


@given(st.one_of(huge, around_rounding, st.sampled_from([0, 1, -1, 999_999, 10**6, -(10**6)])))
def test_nano_to_milli_is_the_quantity_milli_value(nanos: int) -> None:
    assert nano_to_milli(nanos) == Quantity(nanos, -9, "DecimalSI").milli_value()


@given(st.one_of(huge, st.sampled_from([0, 1, -1, 2**63 // 1000, -(2**63) // 1000 - 1])))
def test_units_to_milli_is_the_quantity_milli_value(units: int) -> None:
    assert units_to_milli(units) == Quantity(units, 0, "BinarySI").milli_value()
