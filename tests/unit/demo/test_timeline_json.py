"""The demo timeline's versioned JSON: the document, round-trips, and clear load errors."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.demo.timeline import Sample, Timeline, TimelineError, TimelineEvent
from podscale.demo.timeline_json import (
    API_VERSION,
    KIND,
    read_timeline,
    timeline_from_json,
    timeline_to_json,
    write_timeline,
)
from podscale.scenario.hpa_metrics import MetricReading

UP = "cpu resource utilization (percentage of request) above target"


def at(seconds: float) -> timedelta:
    return timedelta(seconds=seconds)


def sample(seconds: float, current: int) -> Sample:
    return Sample(at(seconds), 10.0, 50.0, 50, current, current, current)


def rescale(seconds: float, size: int) -> TimelineEvent:
    return TimelineEvent(at(seconds), "SuccessfulRescale", f"New size: {size}; reason: {UP}")


def test_json_document_shape() -> None:
    timeline = Timeline("php-apache", "demo", tolerance=0.05)
    timeline.append_sample(Sample(at(15), 25.0, None, 50, 4, 1, 1))
    timeline.append_event(rescale(15, 4))
    assert timeline_to_json(timeline) == {
        "apiVersion": "podscale.dev/v1alpha1",
        "kind": "DemoTimeline",
        "metadata": {"name": "php-apache", "namespace": "demo"},
        "tolerance": 0.05,
        "scaleUpWindowSeconds": 0.0,
        "scaleDownWindowSeconds": 300.0,
        "samples": [
            {
                "offsetSeconds": 15.0,
                "load": 25.0,
                "utilization": None,
                "targetUtilization": 50,
                "desiredReplicas": 4,
                "currentReplicas": 1,
                "readyReplicas": 1,
                "targets": "",
                "metrics": [],
            }
        ],
        "events": [
            {
                "offsetSeconds": 15.0,
                "type": "Normal",
                "reason": "SuccessfulRescale",
                "message": f"New size: 4; reason: {UP}",
            }
        ],
    }


offsets = st.integers(min_value=0, max_value=10 * 86400 * 10**6).map(
    lambda us: timedelta(microseconds=us)
)
finite = st.floats(min_value=0, max_value=1e9, allow_nan=False)
counts = st.integers(min_value=0, max_value=10_000)
readings = st.builds(
    MetricReading,
    st.text(max_size=20),
    st.none() | finite,
    finite,
    st.sampled_from(["%", ""]),
    st.booleans(),
)
samples_strategy = st.builds(
    Sample,
    offsets,
    finite,
    st.none() | finite,
    st.integers(1, 1000),
    counts,
    counts,
    counts,
    st.text(max_size=30),
    st.lists(readings, max_size=3).map(tuple),
)
windows = st.integers(min_value=0, max_value=3600).map(lambda s: timedelta(seconds=s))
events_strategy = st.builds(
    TimelineEvent,
    offsets,
    st.text(max_size=20),
    st.text(max_size=80),
    st.sampled_from(["Normal", "Warning"]),
)


@given(
    name=st.text(min_size=1, max_size=20),
    tolerance=st.floats(min_value=0, max_value=1),
    samples=st.lists(samples_strategy, max_size=20),
    events=st.lists(events_strategy, max_size=10),
    up=windows,
    down=windows,
)
def test_json_round_trip(
    name: str,
    tolerance: float,
    samples: list[Sample],
    events: list[TimelineEvent],
    up: timedelta,
    down: timedelta,
) -> None:
    timeline = Timeline(
        name,
        tolerance=tolerance,
        scale_up_window=up,
        scale_down_window=down,
        samples=sorted(samples, key=lambda s: s.offset),
        events=sorted(events, key=lambda e: e.offset),
    )
    # Through text, as a file would carry it.
    document = json.loads(json.dumps(timeline_to_json(timeline)))
    assert timeline_from_json(document) == timeline


def test_file_round_trip(tmp_path: Path) -> None:
    timeline = Timeline(
        "php-apache", samples=[sample(0, 1), sample(15, 2)], events=[rescale(15, 2)]
    )
    path = tmp_path / "timeline.json"
    write_timeline(timeline, path)
    assert read_timeline(path) == timeline


def _document(**changes: Any) -> dict[str, Any]:
    document = timeline_to_json(Timeline("web", samples=[sample(0, 1)], events=[rescale(0, 1)]))
    for dotted, value in changes.items():
        target: Any = document
        *parents, last = dotted.split("__")
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        target[last] = value
    return document


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ([], "<document>: expected an object, got list []"),
        (
            _document(apiVersion="podscale.dev/v1"),
            "not a timeline: apiVersion 'podscale.dev/v1', kind 'DemoTimeline' "
            "(expected apiVersion 'podscale.dev/v1alpha1', kind 'DemoTimeline')",
        ),
        (_document(kind="Scenario"), "not a timeline: apiVersion 'podscale.dev/v1alpha1', kind"),
        (_document(metadata=None), "metadata: expected an object, got nothing"),
        (_document(metadata__name=3), "metadata.name: expected a string, got int 3"),
        (_document(samples={}), "samples: expected a list, got dict {}"),
        (_document(samples__0__load="7"), "samples[0].load: expected a number, got str '7'"),
        (_document(samples__0__load=True), "samples[0].load: expected a number, got bool True"),
        (
            _document(samples__0__utilization=float("inf")),
            "samples[0].utilization: expected a finite",
        ),
        (
            _document(samples__0__desiredReplicas=1.5),
            "samples[0].desiredReplicas: expected an integer, got float 1.5",
        ),
        (_document(samples__0__offsetSeconds=-1), "samples[0].offsetSeconds: must be non-negative"),
        (_document(events__0__reason=None), "events[0].reason: expected a string, got nothing"),
        (
            _document(samples__0__metrics=[{"label": "cpu", "target": 50, "unit": "%"}]),
            "samples[0].metrics[0].average: expected a boolean, got nothing",
        ),
        (_document(scaleDownWindowSeconds=-5), "scaleDownWindowSeconds: must be non-negative"),
    ],
    ids=[
        "not-an-object",
        "wrong-version",
        "wrong-kind",
        "no-metadata",
        "name-not-string",
        "samples-not-list",
        "load-string",
        "load-bool",
        "utilization-infinite",
        "replicas-float",
        "negative-offset",
        "event-reason-missing",
        "metric-average-missing",
        "negative-window",
    ],
)
def test_from_json_errors(document: Any, message: str) -> None:
    with pytest.raises(TimelineError) as caught:
        timeline_from_json(document)
    assert str(caught.value).startswith(message)


def test_from_json_rejects_out_of_order_samples() -> None:
    document = timeline_to_json(Timeline("web", samples=[sample(0, 1), sample(10, 1)]))
    document["samples"].reverse()
    with pytest.raises(TimelineError, match="earlier than the last one"):
        timeline_from_json(document)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "Expecting property name"),
        ('{"apiVersion": "v1", "kind": "DemoTimeline"}', "not a timeline: apiVersion 'v1'"),
    ],
    ids=["bad-json", "bad-version"],
)
def test_read_timeline_errors_name_the_file(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "t.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TimelineError) as caught:
        read_timeline(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)


def test_read_timeline_missing_file(tmp_path: Path) -> None:
    with pytest.raises(TimelineError, match="No such file"):
        read_timeline(tmp_path / "absent.json")


def test_constants() -> None:
    assert (API_VERSION, KIND) == ("podscale.dev/v1alpha1", "DemoTimeline")
