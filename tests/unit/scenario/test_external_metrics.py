"""``spec.externalMetrics``: loading and validating the series, step-hold values, and the
publication schedule a run follows (``podscale.scenario.external_schedule``)."""

from __future__ import annotations

import copy
import dataclasses
import itertools
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.quantity import parse_quantity
from podscale.replay.window import choose_window, shift_scenario
from podscale.scenario.external_schedule import REPUBLISH_EVERY, ExternalMetricFeed
from podscale.scenario.loader import ScenarioError, parse_scenario
from podscale.scenario.model import ExternalMetricSeries, ExternalMetricValue

BASE: dict[str, Any] = {
    "apiVersion": "podscale.dev/v1alpha1",
    "kind": "Scenario",
    "metadata": {"name": "queue"},
    "spec": {"duration": "10m"},
}
LABEL_VALUE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or"
    " '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or"
    " 'my_value',  or '12345', regex used for validation is"
    " '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
NAMESPACE = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and"
    " must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex"
    " used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)


def s(seconds: float) -> timedelta:
    return timedelta(seconds=seconds)


def with_metrics(*series: Any) -> dict[str, Any]:
    doc = copy.deepcopy(BASE)
    doc["spec"]["externalMetrics"] = list(series)
    return doc


def messages(doc: Any, tmp_path: Path) -> list[str]:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(doc, base_dir=tmp_path)
    err = caught.value
    return [f'unknown field "{f}"' for f in err.unknown_fields] + [str(e) for e in err.errors]


def series(*values: tuple[float, str], name: str = "q", **labels: str) -> ExternalMetricSeries:
    steps = tuple(ExternalMetricValue(s(at), parse_quantity(v)) for at, v in values)
    return ExternalMetricSeries(name, labels=labels, values=steps)


def test_series_load_with_defaults_and_values_in_time_order(tmp_path: Path) -> None:
    doc = with_metrics(
        {
            "name": "queue_messages_ready",
            "labels": {"queue": "orders"},
            "values": [{"at": "6m", "value": "600"}, {"at": "2m", "value": 90}],
        },
        {"name": "queue_messages_ready", "namespace": "jobs", "values": [{"at": "0", "value": 1}]},
    )
    loaded = parse_scenario(doc, base_dir=tmp_path).external_metrics
    assert loaded == (
        series((120, "90"), (360, "600"), name="queue_messages_ready", queue="orders"),
        ExternalMetricSeries(
            "queue_messages_ready", "jobs", {}, (ExternalMetricValue(s(0), parse_quantity("1")),)
        ),
    )
    assert parse_scenario(BASE, base_dir=tmp_path).external_metrics == ()


INVALID: list[tuple[Any, list[str]]] = [
    ("q", ['spec.externalMetrics: Invalid value: "q": must be of type array']),
    (["q"], ['spec.externalMetrics[0]: Invalid value: "q": must be of type object']),
    (
        [{"values": [{"at": "1m", "value": 1}], "unit": "s"}],
        [
            'unknown field "spec.externalMetrics[0].unit"',
            "spec.externalMetrics[0].name: Required value",
        ],
    ),
    (
        [{"name": "q/x", "values": [{"at": "1m", "value": 1}]}],
        ["spec.externalMetrics[0].name: Invalid value: \"q/x\": may not contain '/'"],
    ),
    (
        [{"name": "q", "namespace": "Jobs", "values": [{"at": "1m", "value": 1}]}],
        [f'spec.externalMetrics[0].namespace: Invalid value: "Jobs": {NAMESPACE}'],
    ),
    (
        [{"name": "q", "labels": {"queue": "a b"}, "values": [{"at": "1m", "value": 1}]}],
        [f'spec.externalMetrics[0].labels: Invalid value: "a b": {LABEL_VALUE}'],
    ),
    ([{"name": "q"}], ["spec.externalMetrics[0].values: Required value"]),
    ([{"name": "q", "values": []}], ["spec.externalMetrics[0].values: Required value"]),
    (
        [{"name": "q", "values": [{"value": 1}, {"at": "1m"}, {"at": "2m", "value": "-1"}]}],
        [
            "spec.externalMetrics[0].values[0].at: Required value",
            "spec.externalMetrics[0].values[1].value: Required value",
            'spec.externalMetrics[0].values[2].value: Invalid value: "-1": '
            "must be greater than or equal to 0",
        ],
    ),
    (
        [{"name": "q", "values": [{"at": "11m", "value": 1}, {"at": "soon", "value": 1}]}],
        [
            'spec.externalMetrics[0].values[0].at: Invalid value: "11m": '
            "must not be after spec.duration",
            'spec.externalMetrics[0].values[1].at: Invalid value: "soon": '
            'time: invalid duration "soon"',
        ],
    ),
    (
        [{"name": "q", "values": [{"at": "1m", "value": 1}, {"at": "60s", "value": 2}]}],
        ['spec.externalMetrics[0].values[1].at: Duplicate value: "60s"'],
    ),
    (
        [
            {"name": "q", "labels": {"a": "1", "b": "2"}, "values": [{"at": "0s", "value": 1}]},
            {"name": "q", "labels": {"b": "2", "a": "1"}, "values": [{"at": "1m", "value": 1}]},
            {"name": "q", "labels": {"a": "1"}, "values": [{"at": "0s", "value": 1}]},
        ],
        ['spec.externalMetrics[1]: Duplicate value: "default/q{a=1,b=2}"'],
    ),
    (
        [
            {
                "name": "q",
                "values": [
                    {"at": "1m", "value": 1, "stopped": True},
                    {"at": "2m", "stopped": False},
                    {"at": "3m", "stopped": "yes"},
                ],
            }
        ],
        [
            "spec.externalMetrics[0].values[0].stopped: Invalid value: true: "
            "must not be set with a value",
            "spec.externalMetrics[0].values[1].value: Required value",
            'spec.externalMetrics[0].values[2].stopped: Invalid value: "yes": '
            "must be of type boolean",
            "spec.externalMetrics[0].values[2].value: Required value",
        ],
    ),
]


@pytest.mark.parametrize(
    ("metrics", "expected"),
    INVALID,
    ids=[
        "not-a-list",
        "not-an-object",
        "unknown-field-and-no-name",
        "name-not-a-path-segment",
        "namespace-not-a-label",
        "label-value",
        "no-values",
        "empty-values",
        "value-fields",
        "at-after-duration-and-unparsable",
        "same-at-twice",
        "same-series-twice",
        "stopped-with-a-value-or-not-true",
    ],
)
def test_invalid_series_report_each_problem_at_its_path(
    metrics: Any, expected: list[str], tmp_path: Path
) -> None:
    doc = copy.deepcopy(BASE)
    doc["spec"]["externalMetrics"] = metrics
    assert messages(doc, tmp_path) == expected


@pytest.mark.parametrize(
    ("offset", "expected"),
    [(0, None), (59, None), (60, "90"), (359, "90"), (360, "600"), (3600, "600")],
    ids=["before", "just-before", "first", "held", "second", "long-after"],
)
def test_a_value_holds_until_the_next(offset: float, expected: str | None) -> None:
    held = series((360, "600"), (60, "90")).value_at(s(offset))
    assert held == (None if expected is None else parse_quantity(expected))


def run_feed(feed: ExternalMetricFeed, until: float) -> list[tuple[float, str, str]]:
    """Step the feed as a run does: to each next publication, until ``until`` seconds."""
    published = []
    while (at := feed.next_at()) is not None and at <= s(until):
        for p in feed.due(at):
            published.append((at.total_seconds(), p.series.name, str(p.value)))
    return published


def test_publications_start_at_the_first_value_and_repeat_every_30s() -> None:
    feed = ExternalMetricFeed([series((60, "90"), (75, "100"), name="a"), series((70, "5"))])
    assert s(30) == REPUBLISH_EVERY
    assert run_feed(feed, 140) == [
        (60, "a", "90"),
        (70, "q", "5"),
        (75, "a", "100"),  # a new value goes out at its own time, not on the 30 s beat
        (100, "q", "5"),
        (105, "a", "100"),
        (130, "q", "5"),
        (135, "a", "100"),
    ]


def test_a_feed_without_values_has_nothing_to_publish() -> None:
    assert ExternalMetricFeed([]).next_at() is None
    assert ExternalMetricFeed([ExternalMetricSeries("q")]).next_at() is None
    with pytest.raises(ValueError, match="republish_every must be positive"):
        ExternalMetricFeed([], timedelta(0))


@given(
    st.lists(st.integers(0, 600), min_size=1, max_size=5, unique=True),
    st.integers(1, 120),
)
def test_every_held_value_is_published_at_its_time_and_never_goes_stale(
    ats: list[int], every: int
) -> None:
    steps = [(at, str(i)) for i, at in enumerate(ats)]
    one = series(*steps)
    published = run_feed(ExternalMetricFeed([one], s(every)), 1200)
    times = [at for at, _, _ in published]
    assert times[0] == min(ats)
    # Each value goes out at its own ``at``; gaps never exceed the republish period.
    assert {at for at, _ in steps} <= set(times)
    assert all(0 < b - a <= every for a, b in itertools.pairwise(times))
    for at, _, value in published:
        assert parse_quantity(value) == one.value_at(s(at))


def stopped_series() -> ExternalMetricSeries:
    """90 from 1m, stopped at 3m, 40 again from 6m."""
    steps = (
        ExternalMetricValue(s(60), parse_quantity("90")),
        ExternalMetricValue(s(180), None),
        ExternalMetricValue(s(360), parse_quantity("40")),
    )
    return ExternalMetricSeries("q", values=steps)


def test_a_stopped_step_loads_as_no_value(tmp_path: Path) -> None:
    values = [{"at": "1m", "value": 90}, {"at": "3m", "stopped": True}, {"at": "6m", "value": 40}]
    doc = with_metrics({"name": "q", "values": values})
    assert parse_scenario(doc, base_dir=tmp_path).external_metrics == (stopped_series(),)


@pytest.mark.parametrize(
    ("offset", "expected"),
    [(60, "90"), (179, "90"), (180, None), (359, None), (360, "40")],
    ids=["published", "before-the-stop", "stopped", "still-stopped", "published-again"],
)
def test_a_stopped_series_holds_no_value(offset: float, expected: str | None) -> None:
    held = stopped_series().value_at(s(offset))
    assert held == (None if expected is None else parse_quantity(expected))


def test_a_stopped_series_is_not_republished_until_its_next_value() -> None:
    # Nothing between 3m and 6m: the push provider forgets the 90 after its ttl.
    assert run_feed(ExternalMetricFeed([stopped_series()]), 420) == [
        (60, "q", "90"),
        (90, "q", "90"),
        (120, "q", "90"),
        (150, "q", "90"),
        (360, "q", "40"),
        (390, "q", "40"),
        (420, "q", "40"),
    ]


def test_a_series_stopped_for_good_leaves_the_feed_with_nothing_to_publish() -> None:
    steps = (ExternalMetricValue(s(0), parse_quantity("1")), ExternalMetricValue(s(30), None))
    feed = ExternalMetricFeed([ExternalMetricSeries("q", values=steps)])
    assert run_feed(feed, 600) == [(0, "q", "1")]
    assert feed.next_at() is None


@pytest.mark.parametrize(
    ("start", "expected"),
    [
        (120, [(0, "90"), (60, None), (240, "40")]),
        (200, [(160, "40")]),
    ],
    ids=["window-before-the-stop", "window-inside-the-stop"],
)
def test_a_replay_window_keeps_the_stop(start: int, expected: list[tuple[int, str | None]]) -> None:
    doc = with_metrics({"name": "q", "values": [{"at": "0s", "value": 0}]})
    scenario = dataclasses.replace(
        parse_scenario(doc, base_dir=Path(".")), external_metrics=(stopped_series(),)
    )
    window = choose_window(scenario.duration, s(start), s(60), timedelta(0))
    (shifted,) = shift_scenario(scenario, window).external_metrics
    assert [
        (v.at.total_seconds(), None if v.value is None else str(v.value)) for v in shifted.values
    ] == expected
