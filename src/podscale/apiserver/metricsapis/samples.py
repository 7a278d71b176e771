"""Metric samples and their wire form: ``MetricValue`` and ``ExternalMetricValue`` JSON.

A sample is one value of one series: for custom metrics, of one described object (plus the
series' own labels, which ``metricLabelSelector`` filters on); for external metrics, of one
label set. ``metricsapis.push`` decodes pushed bodies into samples, providers
(``podscale.metrics.push``) keep them, and the ``render_*`` functions here give the JSON of
custom_metrics/v1beta2 ``MetricValue`` and external_metrics/v1beta1 ``ExternalMetricValue``
(``staging/src/k8s.io/metrics/pkg/apis/*/types.go``): ``windowSeconds``/``window`` are
omitted when unset, ``metric.selector`` and ``metricLabels`` are always present.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final, NamedTuple

from podscale.api import Quantity, Selector
from podscale.api.kinds import all_kinds
from podscale.store.objects import format_timestamp

__all__ = [
    "CUSTOM_GROUP_VERSION",
    "EXTERNAL_GROUP_VERSION",
    "CustomSample",
    "ExternalSample",
    "described_kind",
    "is_finite",
    "label_selector_json",
    "render_custom",
    "render_external",
    "sorted_labels",
    "split_group_resource",
]

JSON = dict[str, Any]
Labels = tuple[tuple[str, str], ...]

CUSTOM_GROUP_VERSION: Final = ("custom.metrics.k8s.io", "v1beta2")
EXTERNAL_GROUP_VERSION: Final = ("external.metrics.k8s.io", "v1beta1")


def is_finite(value: Quantity) -> bool:
    """Whether ``value`` is a finite double, as every metric pipeline stores values.

    Quantities are exact, so ``"1e400"`` parses; but Prometheus, the adapters and the HPA's
    ratios are float64, where it is infinite and would drive every HPA on it to its maximum.
    The check reads the digits and exponent as a float literal: cheap even for ``1e999999``.
    """
    return math.isfinite(float(f"{value.unscaled}e{value.exponent}"))


# LabelSelector operators for the set-based requirement operators (ParseToLabelSelector).
_EXPRESSION_OPERATORS: Final = {
    "in": "In",
    "notin": "NotIn",
    "exists": "Exists",
    "!": "DoesNotExist",
}


class CustomSample(NamedTuple):
    """A value of ``metric`` for the object ``name`` of ``group_resource`` (``namespace``
    None: root-scoped). ``labels`` are the series labels, sorted; ``timestamp`` None means
    "when it was written". ``kind``/``api_version`` describe the object ("" if unknown).

    An immutable NamedTuple, not a frozen dataclass: the simulated kubelets push one per
    pod every publish, and a tuple of ten fields is built in a third of the time. Change a
    field with ``_replace``."""

    group_resource: str
    namespace: str | None
    name: str
    metric: str
    value: Quantity
    labels: Labels = ()
    timestamp: datetime | None = None
    window_seconds: int | None = None
    kind: str = ""
    api_version: str = ""


class ExternalSample(NamedTuple):
    """A value of the external ``metric`` in ``namespace`` for one label set (sorted); a
    NamedTuple like ``CustomSample``."""

    namespace: str
    metric: str
    value: Quantity
    labels: Labels = ()
    timestamp: datetime | None = None
    window_seconds: int | None = None


def split_group_resource(group_resource: str) -> tuple[str, str]:
    """``deployments.apps`` -> (``apps``, ``deployments``), as ``schema.ParseGroupResource``."""
    resource, _, group = group_resource.partition(".")
    return group, resource


@functools.cache  # the registry is fixed: one scan per resource name
def described_kind(group_resource: str) -> tuple[str, str]:
    """(apiVersion, kind) of a registered resource's preferred version; ("", "") otherwise."""
    group, resource = split_group_resource(group_resource)
    for info in all_kinds():
        if info.top_level and info.preferred and (info.group, info.plural) == (group, resource):
            return info.api_version, info.kind
    return "", ""


def sorted_labels(labels: Mapping[str, str] | None) -> Labels:
    return tuple(sorted((labels or {}).items()))


def label_selector_json(selector: Selector) -> JSON | None:
    """A ``LabelSelector`` for a parsed selector (upstream ``ParseToLabelSelector``), None
    for an empty one. Equality goes to ``matchLabels``; ``!=`` becomes ``NotIn`` with one
    value and ``gt``/``lt`` (which LabelSelectors cannot express) are left out."""
    if selector.empty() or selector.matches_nothing:
        return None
    match_labels: dict[str, str] = {}
    expressions: list[JSON] = []
    for requirement in selector.requirements:
        operator = requirement.operator
        if operator in ("=", "==") and len(requirement.values) == 1:
            match_labels[requirement.key] = requirement.values[0]
        elif operator == "!=":
            expressions.append(
                {"key": requirement.key, "operator": "NotIn", "values": list(requirement.values)}
            )
        elif operator in _EXPRESSION_OPERATORS:
            expression: JSON = {"key": requirement.key, "operator": _EXPRESSION_OPERATORS[operator]}
            if requirement.values:
                expression["values"] = sorted(requirement.values)
            expressions.append(expression)
    body: JSON = {}
    if match_labels:
        body["matchLabels"] = match_labels
    if expressions:
        body["matchExpressions"] = expressions
    return body


def _value_fields(value: Quantity, timestamp: datetime, window: int | None, key: str) -> JSON:
    fields: JSON = {"timestamp": format_timestamp(timestamp)}
    if window is not None:
        fields[key] = window
    fields["value"] = value.format_canonical()
    return fields


def render_custom(
    sample: CustomSample, metric_selector: Selector, written_at: datetime | None = None
) -> JSON:
    """The ``MetricValue`` of ``sample``; ``metric.selector`` echoes the request's metric
    selector, as the adapters do. ``written_at`` stands in for a missing timestamp."""
    reference: JSON = {}
    if sample.kind:
        reference["kind"] = sample.kind
    if sample.namespace:
        reference["namespace"] = sample.namespace
    reference["name"] = sample.name
    if sample.api_version:
        reference["apiVersion"] = sample.api_version
    moment = sample.timestamp or written_at
    if moment is None:
        raise ValueError("a sample without a timestamp needs written_at")
    return {
        "describedObject": reference,
        "metric": {"name": sample.metric, "selector": label_selector_json(metric_selector)},
        **_value_fields(sample.value, moment, sample.window_seconds, "windowSeconds"),
    }


def render_external(sample: ExternalSample, written_at: datetime | None = None) -> JSON:
    """The ``ExternalMetricValue`` of ``sample`` (``metricLabels`` always an object)."""
    moment = sample.timestamp or written_at
    if moment is None:
        raise ValueError("a sample without a timestamp needs written_at")
    return {
        "metricName": sample.metric,
        "metricLabels": dict(sample.labels),
        **_value_fields(sample.value, moment, sample.window_seconds, "window"),
    }
