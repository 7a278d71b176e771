"""``describe hpa``: kubectl's HorizontalPodAutoscaler (autoscaling/v2) description.

Name, labels, reference, one ``( current / target )`` row per metric (``resource cpu on pods
(as a percentage of request):  75% (75m) / 50%``; ``<unknown>`` without a current value),
replica bounds, the behavior when set, ``<Kind> pods:  N current / M desired``, conditions
and events: the layout of kubectl's ``describeHorizontalPodAutoscalerV2``. Then, beyond
kubectl, the ``Last decision:`` and ``Stored history:`` sections when the HPA controller
stored them (``podscale.cli.describe_annotations``) and the ``Replicas writes:`` by other
managers (``podscale.cli.describe_replicas_writes``): everything before them is kubectl's
output byte for byte. Pure: the caller (``podscale.cli.describe``) fetches the HPA, its
events and its state documents and passes ``now``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from podscale.apiserver.printing.format import format_quantity
from podscale.cli.describe_annotations import (
    describe_last_decision,
    describe_stored_history,
    write_annotations,
)
from podscale.cli.describe_replicas_writes import describe_replicas_writes
from podscale.cli.describe_text import SKIPPED_ANNOTATIONS, DescribeWriter, format_timestamp
from podscale.hpa.contest import REPLICAS_WRITES_STATE
from podscale.hpa.trace import LAST_DECISION_STATE

__all__ = ["describe_hpa"]

JSON = dict[str, Any]
UNKNOWN = "<unknown>"


def _go_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _current(statuses: list[Any], index: int, source: str) -> JSON:
    """``status.currentMetrics[index].<source>.current`` when present, else {}."""
    if index >= len(statuses) or not isinstance(statuses[index], dict):
        return {}
    section = statuses[index].get(source)
    return (section.get("current") or {}) if isinstance(section, dict) else {}


def _value_row(current: JSON, target: JSON, field: str) -> str:
    shown = format_quantity(current[field]) if current.get(field) is not None else UNKNOWN
    return f"{shown} / {format_quantity(target.get(field))}"


def _resource_row(out: DescribeWriter, label: str, current: JSON, target: JSON) -> None:
    out.write(1, label)
    if target.get("averageValue") is not None:
        out.write(0, f":\t{_value_row(current, target, 'averageValue')}\n")
        return
    shown = UNKNOWN
    if current.get("averageUtilization") is not None:
        shown = f"{current['averageUtilization']}% ({format_quantity(current.get('averageValue'))})"
    wanted = "<auto>"
    if target.get("averageUtilization") is not None:
        wanted = f"{target['averageUtilization']}%"
    out.write(1, f"(as a percentage of request):\t{shown} / {wanted}\n")


def _write_metric(out: DescribeWriter, metric: JSON, statuses: list[Any], index: int) -> None:
    kind = str(metric.get("type") or "")
    if kind == "Resource" or kind == "ContainerResource":
        source_name = "resource" if kind == "Resource" else "containerResource"
        source = metric.get(source_name) or {}
        label = f"resource {source.get('name', '')} on pods"
        if kind == "ContainerResource":
            label = (
                f"resource {source.get('name', '')} of container "
                f"{_go_quote(str(source.get('container', '')))} on pods"
            )
        current = _current(statuses, index, source_name)
        _resource_row(out, label, current, source.get("target") or {})
        return
    if kind == "Pods":
        source = metric.get("pods") or {}
        name = _go_quote(str((source.get("metric") or {}).get("name", "")))
        row = _value_row(
            _current(statuses, index, "pods"), source.get("target") or {}, "averageValue"
        )
        out.write(1, f"{name} on pods:\t{row}\n")
        return
    if kind == "Object":
        source = metric.get("object") or {}
        described = source.get("describedObject") or {}
        name = str((source.get("metric") or {}).get("name", ""))
        out.write(1, f'"{name}" on {described.get("kind", "")}/{described.get("name", "")} ')
        target = source.get("target") or {}
        field = "averageValue" if target.get("type") == "AverageValue" else "value"
        label = "target average value" if field == "averageValue" else "target value"
        row = _value_row(_current(statuses, index, "object"), target, field)
        out.write(0, f"({label}):\t{row}\n")
        return
    if kind == "External":
        source = metric.get("external") or {}
        name = _go_quote(str((source.get("metric") or {}).get("name", "")))
        target = source.get("target") or {}
        field = "averageValue" if target.get("averageValue") is not None else "value"
        label = "target average value" if field == "averageValue" else "target value"
        row = _value_row(_current(statuses, index, "external"), target, field)
        out.write(1, f"{name} ({label}):\t{row}\n")
        return
    out.write(1, f"<unknown metric type {_go_quote(kind)}>\n")


def _write_rules(out: DescribeWriter, direction: str, rules: Any) -> None:
    if not isinstance(rules, dict):
        return
    out.write(1, f"{direction}:\n")
    if rules.get("stabilizationWindowSeconds") is not None:
        out.write(2, f"Stabilization Window: {rules['stabilizationWindowSeconds']} seconds\n")
    policies = rules.get("policies") or []
    if policies:
        out.write(2, f"Select Policy: {rules.get('selectPolicy') or '<unset>'}\n")
        out.write(2, "Policies:\n")
        for policy in policies:
            out.write(
                3,
                f"- Type: {policy.get('type', '')}\tValue: {policy.get('value', 0)}\t"
                f"Period: {policy.get('periodSeconds', 0)} seconds\n",
            )
    if rules.get("tolerance") is not None:
        out.write(2, f"Tolerance: {format_quantity(rules['tolerance'])}\n")


def describe_hpa(
    hpa: JSON, events: list[JSON], now: datetime, documents: Mapping[str, Any] | None = None
) -> str:
    """The description of an autoscaling/v2 HPA with its events, then its last decision
    and stored history from ``documents`` (its state documents by name, if any)."""
    metadata = hpa.get("metadata") or {}
    spec = hpa.get("spec") or {}
    status = hpa.get("status") or {}
    ref = spec.get("scaleTargetRef") or {}
    out = DescribeWriter()
    out.write(0, f"Name:\t{metadata.get('name', '')}\n")
    out.write(0, f"Namespace:\t{metadata.get('namespace', '')}\n")
    out.write_map("Labels", metadata.get("labels"))
    write_annotations(out, metadata.get("annotations"), SKIPPED_ANNOTATIONS)
    out.write(0, f"CreationTimestamp:\t{format_timestamp(metadata.get('creationTimestamp'))}\n")
    out.write(0, f"Reference:\t{ref.get('kind', '')}/{ref.get('name', '')}\n")
    out.write(0, "Metrics:\t( current / target )\n")
    statuses = list(status.get("currentMetrics") or [])
    for index, metric in enumerate(spec.get("metrics") or []):
        if isinstance(metric, dict):
            _write_metric(out, metric, statuses, index)
    min_replicas = spec.get("minReplicas")
    out.write(0, f"Min replicas:\t{min_replicas if min_replicas is not None else '<unset>'}\n")
    out.write(0, f"Max replicas:\t{spec.get('maxReplicas', 0)}\n")
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        out.write(0, "Behavior:\n")
        _write_rules(out, "Scale Up", behavior.get("scaleUp"))
        _write_rules(out, "Scale Down", behavior.get("scaleDown"))
    out.write(0, f"{ref.get('kind', '')} pods:\t")
    current, desired = status.get("currentReplicas", 0), status.get("desiredReplicas", 0)
    out.write(0, f"{current} current / {desired} desired\n")
    conditions = [c for c in status.get("conditions") or [] if isinstance(c, dict)]
    if conditions:
        out.write(0, "Conditions:\n")
        out.write(1, "Type\tStatus\tReason\tMessage\n")
        out.write(1, "----\t------\t------\t-------\n")
        for cond in conditions:
            out.write(
                1,
                f"{cond.get('type', '')}\t{cond.get('status', '')}\t"
                f"{cond.get('reason', '')}\t{cond.get('message', '')}\n",
            )
    out.write_events(events, now)
    documents = documents or {}
    return (
        out.render()
        + describe_last_decision(documents.get(LAST_DECISION_STATE))
        + describe_stored_history(documents.get("hpa/history"))
        + describe_replicas_writes(documents.get(REPLICAS_WRITES_STATE))
    )
