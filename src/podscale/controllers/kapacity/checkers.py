"""A Metrics stability checker's rules: what each metric compares, and whether it holds.

A Metrics checker (``types.StabilityChecker`` with ``metrics``) lists Kapacity
MetricSpecs: an autoscaling/v2 MetricSpec plus an optional ``name`` and, podscale's
addition, an optional ``operator`` (``==``, ``>``, ``<``, ``>=``, ``<=``). Each reads as
the rule "<actual> <operator> <target>"; without an operator podscale uses ``>`` (the
metric going above its target is the anomaly). The actual value is what the HPA reports
for that metric and target type (``podscale.hpa`` ``MetricProposal``): a Utilization
target compares the current average utilization percent with ``averageUtilization``;
an AverageValue target the average per pod with ``averageValue``; a Value target the
object's or external metric's value with ``value`` (quantities in milli-units). A
checker is anomalous when any of its rules holds. ``checker_readings`` (the async shell)
reads the values through the IHPA controller's ``MetricsClient`` and builds
``stability.CheckerReading``s with ``checker_name``. Kapacity declares these checkers but
its controller does not evaluate them yet; the comparison is podscale's.
Pure.
"""

from __future__ import annotations

import operator as op
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from podscale.controllers.kapacity.reading import KapacityError
from podscale.controllers.kapacity.types import StabilityChecker
from podscale.hpa.calculator_math import quantity_milli
from podscale.hpa.types import MetricProposal

__all__ = [
    "DEFAULT_OPERATOR",
    "MetricRule",
    "Operator",
    "TargetKind",
    "checker_name",
    "holds",
    "observed",
    "rule_of",
]

Operator = Literal["==", ">", "<", ">=", "<="]
TargetKind = Literal["Utilization", "AverageValue", "Value"]
DEFAULT_OPERATOR: Final[Operator] = ">"
_COMPARE: Final[Mapping[str, Callable[[int, int], bool]]] = {
    "==": op.eq,
    ">": op.gt,
    "<": op.lt,
    ">=": op.ge,
    "<=": op.le,
}
_SOURCE_FIELD: Final = {
    "Resource": "resource",
    "ContainerResource": "containerResource",
    "Pods": "pods",
    "Object": "object",
    "External": "external",
}


@dataclass(frozen=True, slots=True)
class MetricRule:
    """One checker metric: the MetricSpec the HPA engine reads, and its comparison.

    ``target`` is a percent for Utilization, milli-units otherwise."""

    spec: Mapping[str, Any]
    operator: Operator
    kind: TargetKind
    target: int
    name: str = ""


def rule_of(metric: Mapping[str, Any], path: str) -> MetricRule:
    """``metric`` as a rule; ``KapacityError`` naming the field when it cannot compare."""
    raw_operator = metric.get("operator", DEFAULT_OPERATOR)
    if raw_operator not in _COMPARE:
        supported = ", ".join(f'"{o}"' for o in _COMPARE)
        raise KapacityError(
            f'{path}.operator: Unsupported value: "{raw_operator}": supported values: {supported}'
        )
    source_field = _SOURCE_FIELD.get(str(metric.get("type")))
    if source_field is None:
        raise KapacityError(f"{path}.type: unsupported metric source type {metric.get('type')!r}")
    source = metric.get(source_field)
    target = source.get("target") if isinstance(source, Mapping) else None
    if not isinstance(target, Mapping):
        raise KapacityError(f"{path}.{source_field}.target: Required value")
    kind = target.get("type")
    at = f"{path}.{source_field}.target"
    if kind not in ("Utilization", "AverageValue", "Value"):
        raise KapacityError(f"{at}.type: unsupported target type {kind!r}")
    try:
        if kind == "Utilization":
            value = int(target.get("averageUtilization") or 0)
        elif kind == "AverageValue":
            value = quantity_milli(target.get("averageValue") or 0)
        else:
            value = quantity_milli(target.get("value") or 0)
    except (TypeError, ValueError) as err:  # an unparsable quantity or percent
        raise KapacityError(f"{at}: {err}") from None
    spec = {key: value for key, value in metric.items() if key not in ("name", "operator")}
    return MetricRule(spec, raw_operator, kind, value, str(metric.get("name") or ""))


def observed(rule: MetricRule, proposal: MetricProposal) -> int:
    """The actual value of ``rule``'s metric as the HPA reports it for its target type."""
    if rule.kind == "Utilization":
        if proposal.utilization is None:  # only a Resource utilization target has one
            raise KapacityError("no utilization reported for this metric")
        return proposal.utilization
    return proposal.raw_value


def holds(rule: MetricRule, actual: int) -> bool:
    """Whether "<actual> <operator> <target>" is true: the rule sees an anomaly."""
    return _COMPARE[rule.operator](actual, rule.target)


def checker_name(index: int, checker: StabilityChecker) -> str:
    """The first metric's ``name`` if it has one, else ``checker-<index>``: the key under
    which the controller remembers the checker's last anomaly."""
    if checker.metrics:
        first = checker.metrics[0].get("name")
        if isinstance(first, str) and first:
            return first
    if checker.external is not None and checker.external.name:
        return checker.external.name
    return f"checker-{index}"
