"""The JSON form of a demo ``Timeline`` (``podscale.demo.timeline``), versioned.

``timeline_to_json`` and ``timeline_from_json`` convert to and from plain JSON values;
``write_timeline`` and ``read_timeline`` do the same through a file. The document::

    {"apiVersion": "podscale.dev/v1alpha1", "kind": "DemoTimeline",
     "metadata": {"name": "php-apache", "namespace": "default"}, "tolerance": 0.1,
     "samples": [{"offsetSeconds": 15.0, "load": 25.0, "utilization": 87.5,
                  "targetUtilization": 50, "desiredReplicas": 4, "currentReplicas": 1,
                  "readyReplicas": 1, "targets": "cpu: 87%/50%",
                  "metrics": [{"label": "cpu", "current": 87.5, "target": 50.0,
                               "unit": "%", "average": true}]}],
     "scaleUpWindowSeconds": 0.0, "scaleDownWindowSeconds": 300.0,
     "events": [{"offsetSeconds": 15.0, "type": "Normal", "reason": "SuccessfulRescale",
                 "message": "New size: 4; reason: ..."}]}

Loading checks the version and every field, failing on the first bad one with its path
(``samples[3].load: expected a number, got str '7'``); a document whose apiVersion or kind
differs is refused rather than guessed at.
"""

from __future__ import annotations

import json
import math
from datetime import timedelta
from pathlib import Path
from typing import Any, Final

from podscale.demo.timeline import Sample, Timeline, TimelineError, TimelineEvent
from podscale.scenario.hpa_metrics import MetricReading

__all__ = [
    "API_VERSION",
    "KIND",
    "read_timeline",
    "timeline_from_json",
    "timeline_to_json",
    "write_timeline",
]

API_VERSION: Final = "podscale.dev/v1alpha1"
KIND: Final = "DemoTimeline"


def timeline_to_json(timeline: Timeline) -> dict[str, Any]:
    """The versioned JSON document (plain dicts and lists, ready for ``json.dumps``)."""
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "metadata": {"name": timeline.name, "namespace": timeline.namespace},
        "tolerance": timeline.tolerance,
        "scaleUpWindowSeconds": timeline.scale_up_window.total_seconds(),
        "scaleDownWindowSeconds": timeline.scale_down_window.total_seconds(),
        "samples": [_sample_to_json(s) for s in timeline.samples],
        "events": [_event_to_json(e) for e in timeline.events],
    }


def timeline_from_json(document: Any) -> Timeline:
    """Load a document written by ``timeline_to_json``; ``TimelineError`` names the field."""
    return _Reader().timeline(document)


def write_timeline(timeline: Timeline, path: Path) -> None:
    """Write the JSON document to ``path`` (UTF-8, indented, stable key order)."""
    text = json.dumps(timeline_to_json(timeline), indent=2, allow_nan=False)
    path.write_text(text + "\n", encoding="utf-8")


def read_timeline(path: Path) -> Timeline:
    """Load a file written by ``write_timeline``; errors name the file and the field."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise TimelineError(f"{path}: {err}") from err
    try:
        return timeline_from_json(document)
    except TimelineError as err:
        raise TimelineError(f"{path}: {err}") from err


def _sample_to_json(sample: Sample) -> dict[str, Any]:
    return {
        "offsetSeconds": sample.offset.total_seconds(),
        "load": sample.load,
        "utilization": sample.utilization,
        "targetUtilization": sample.target_utilization,
        "desiredReplicas": sample.desired_replicas,
        "currentReplicas": sample.current_replicas,
        "readyReplicas": sample.ready_replicas,
        "targets": sample.targets,
        "metrics": [
            {
                "label": m.label,
                "current": m.current,
                "target": m.target,
                "unit": m.unit,
                "average": m.average,
            }
            for m in sample.metrics
        ],
    }


def _event_to_json(event: TimelineEvent) -> dict[str, Any]:
    return {
        "offsetSeconds": event.offset.total_seconds(),
        "type": event.type,
        "reason": event.reason,
        "message": event.message,
    }


class _Reader:
    """Reads a timeline document, failing on the first bad field with its JSON path."""

    def timeline(self, document: Any) -> Timeline:
        doc = self._mapping(document, "<document>")
        api_version = doc.get("apiVersion")
        kind = doc.get("kind")
        if api_version != API_VERSION or kind != KIND:
            raise TimelineError(
                f"not a timeline: apiVersion {api_version!r}, kind {kind!r} "
                f"(expected apiVersion {API_VERSION!r}, kind {KIND!r})"
            )
        metadata = self._mapping(doc.get("metadata"), "metadata")
        timeline = Timeline(
            name=self._string(metadata.get("name"), "metadata.name"),
            namespace=self._string(metadata.get("namespace", "default"), "metadata.namespace"),
            tolerance=self._number(doc.get("tolerance", 0.1), "tolerance"),
            scale_up_window=self._seconds(doc, "scaleUpWindowSeconds", 0.0),
            scale_down_window=self._seconds(doc, "scaleDownWindowSeconds", 300.0),
        )
        for i, raw in enumerate(self._list(doc.get("samples", []), "samples")):
            timeline.append_sample(self._sample(raw, f"samples[{i}]"))
        for i, raw in enumerate(self._list(doc.get("events", []), "events")):
            timeline.append_event(self._event(raw, f"events[{i}]"))
        return timeline

    def _sample(self, raw: Any, path: str) -> Sample:
        item = self._mapping(raw, path)
        utilization = item.get("utilization")
        return Sample(
            offset=self._offset(item, path),
            load=self._number(item.get("load"), f"{path}.load"),
            utilization=(
                None if utilization is None else self._number(utilization, f"{path}.utilization")
            ),
            target_utilization=self._int(
                item.get("targetUtilization"), f"{path}.targetUtilization"
            ),
            desired_replicas=self._int(item.get("desiredReplicas"), f"{path}.desiredReplicas"),
            current_replicas=self._int(item.get("currentReplicas"), f"{path}.currentReplicas"),
            ready_replicas=self._int(item.get("readyReplicas"), f"{path}.readyReplicas"),
            targets=self._string(item.get("targets", ""), f"{path}.targets"),
            metrics=tuple(
                self._metric(m, f"{path}.metrics[{i}]")
                for i, m in enumerate(self._list(item.get("metrics", []), f"{path}.metrics"))
            ),
        )

    def _metric(self, raw: Any, path: str) -> MetricReading:
        item = self._mapping(raw, path)
        current = item.get("current")
        average = item.get("average")
        if not isinstance(average, bool):
            raise TimelineError(f"{path}.average: expected a boolean, got {_describe(average)}")
        return MetricReading(
            label=self._string(item.get("label"), f"{path}.label"),
            current=None if current is None else self._number(current, f"{path}.current"),
            target=self._number(item.get("target"), f"{path}.target"),
            unit=self._string(item.get("unit"), f"{path}.unit"),
            average=average,
        )

    def _seconds(self, doc: dict[str, Any], key: str, default: float) -> timedelta:
        seconds = self._number(doc.get(key, default), key)
        if seconds < 0:
            raise TimelineError(f"{key}: must be non-negative, got {seconds}")
        return timedelta(seconds=seconds)

    def _event(self, raw: Any, path: str) -> TimelineEvent:
        item = self._mapping(raw, path)
        return TimelineEvent(
            offset=self._offset(item, path),
            reason=self._string(item.get("reason"), f"{path}.reason"),
            message=self._string(item.get("message"), f"{path}.message"),
            type=self._string(item.get("type", "Normal"), f"{path}.type"),
        )

    def _offset(self, item: dict[str, Any], path: str) -> timedelta:
        seconds = self._number(item.get("offsetSeconds"), f"{path}.offsetSeconds")
        if seconds < 0:
            raise TimelineError(f"{path}.offsetSeconds: must be non-negative, got {seconds}")
        return timedelta(seconds=seconds)

    @staticmethod
    def _mapping(value: Any, path: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise TimelineError(f"{path}: expected an object, got {_describe(value)}")
        return value

    @staticmethod
    def _list(value: Any, path: str) -> list[Any]:
        if not isinstance(value, list):
            raise TimelineError(f"{path}: expected a list, got {_describe(value)}")
        return value

    @staticmethod
    def _string(value: Any, path: str) -> str:
        if not isinstance(value, str):
            raise TimelineError(f"{path}: expected a string, got {_describe(value)}")
        return value

    @staticmethod
    def _number(value: Any, path: str) -> float:
        # bool is an int subclass; true/false is never a number here.
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TimelineError(f"{path}: expected a number, got {_describe(value)}")
        if not math.isfinite(value):
            raise TimelineError(f"{path}: expected a finite number, got {value}")
        return float(value)

    @staticmethod
    def _int(value: Any, path: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TimelineError(f"{path}: expected an integer, got {_describe(value)}")
        return value


def _describe(value: Any) -> str:
    if value is None:
        return "nothing"
    return f"{type(value).__name__} {value!r}"
