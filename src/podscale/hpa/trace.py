"""The decision trace: a machine-readable record of why ``decide`` chose what it chose.

Upstream explains a decision only through conditions, events and verbose logs. podscale
records every step of every decision: each metric's proposal with the pods set aside and
the ratios before and after rebalancing (``CalculationTrace``), what stabilization chose
from which recommendations, which policy limited the change, the min/max clamp, and
(set by the controller, ``contest_verdict``) another manager writing the target's replicas.
This module holds the records and ``trace_to_dict``, their JSON-ready form (the HPA
controller stores the last trace; ``trace_json`` makes the same document in one pass).
Neighbours: ``trace_read`` (``trace_from_dict`` reads it back; ``podscale describe hpa``
renders it) and ``trace_render`` (``render_trace``, the text that ``podscale
explain-scale`` prints).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any, Final, NamedTuple

from podscale.api.timestamps import format_time as _format_time
from podscale.hpa.contest import ContestTrace
from podscale.hpa.types import CalculationTrace, Recommendation

__all__ = [
    "LAST_DECISION_STATE",
    "DecisionTrace",
    "LimitTrace",
    "MetricTrace",
    "PolicyTrace",
    "StabilizationTrace",
    "trace_to_dict",
]


# The name of the document holding an HPA's last decision trace (``trace_to_dict``) in the
# control plane's history store, under the HPA's uid: the HPA controller writes it
# (``podscale.controllers.hpa.history_store``), ``podscale describe`` reads it through the
# API server. Defined here, with the format, so readers need not import the controller.
LAST_DECISION_STATE: Final = "hpa/last-decision"


class MetricTrace(NamedTuple):
    """One ``spec.metrics[i]``: its proposal or its error."""

    position: int  # the index in spec.metrics
    type: str
    name: str
    replicas: int | None
    error: str | None = None
    calculation: CalculationTrace | None = None


class StabilizationTrace(NamedTuple):
    """What the stabilization window did to the combined proposal."""

    path: str  # "legacy" (no behavior) or "behavior"
    recommendations: tuple[Recommendation, ...]  # the history it looked at
    down_window_seconds: float
    up_window_seconds: float | None  # None on the legacy path
    before: int
    after: int
    reason: str


class PolicyTrace(NamedTuple):
    """One scaling policy and the bound it alone would allow now."""

    type: str
    value: int
    period_seconds: int
    allows: int


class LimitTrace(NamedTuple):
    """The rate limit and min/max clamp applied after stabilization."""

    before: int
    after: int
    reason: str
    min_replicas: int
    max_replicas: int
    direction: str  # "up", "down" or "none"
    rate_limit: int | None = None
    select_policy: str | None = None
    policies: tuple[PolicyTrace, ...] = ()


class DecisionTrace(NamedTuple):
    """Every step of one decision, in the order the controller takes them."""

    hpa: str
    at: datetime
    current_replicas: int
    status_replicas: int
    min_replicas: int
    max_replicas: int
    branch: str
    desired_replicas: int
    rescale: bool
    reason: str
    tolerances: tuple[float, float] | None = None
    metrics: tuple[MetricTrace, ...] = ()
    invalid_metrics: int = 0
    proposed_replicas: int | None = None
    proposed_by: str = ""
    stabilization: StabilizationTrace | None = None
    limit: LimitTrace | None = None
    notes: tuple[str, ...] = ()
    # A predictive autoscaler's parts (``podscale.hpa.predictive``): the metrics' proposal,
    # the forecast's, the schedule window whose bounds applied, and which part won.
    passive_replicas: int | None = None
    proactive_replicas: int | None = None
    window: str | None = None
    decided_by: str = ""
    # Beyond every autoscaler: another manager writing the target's spec.replicas inside
    # the fight window (``podscale.hpa.contest_verdict``); None when nobody did.
    contest: ContestTrace | None = None


# How ``_plain`` converts a value, by its class (every test below depends on the class
# only): computed once per class, as a trace holds thousands of values of a dozen classes.
_SCALAR, _TIME, _DURATION, _FIELDS, _MAPPING, _SEQUENCE = range(6)
_HOW: dict[type, tuple[int, tuple[str, ...]]] = dict.fromkeys(
    (str, int, float, bool, type(None)), (_SCALAR, ())
)


def _how(value: Any) -> tuple[int, tuple[str, ...]]:
    cls = type(value)
    found = _HOW.get(cls)
    if found is not None:
        return found
    if isinstance(value, datetime):
        how: tuple[int, tuple[str, ...]] = (_TIME, ())
    elif isinstance(value, timedelta):
        how = (_DURATION, ())
    elif isinstance(value, tuple) and hasattr(value, "_fields"):  # a trace record
        how = (_FIELDS, tuple(value._fields))
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        how = (_FIELDS, tuple(f.name for f in dataclasses.fields(value)))
    elif isinstance(value, Mapping):
        how = (_MAPPING, ())
    elif isinstance(value, list | tuple):
        how = (_SEQUENCE, ())
    else:
        how = (_SCALAR, ())
    _HOW[cls] = how
    return how


# The classes ``_plain`` hands back as they are (``_SCALAR`` in ``_HOW``): tested inline
# before a call, as most of a trace's values are of these.
_SCALARS: Final = frozenset((str, int, float, bool, type(None)))


def _plain(value: Any) -> Any:
    found = _HOW.get(type(value))
    how, fields = _how(value) if found is None else found
    if how == _SCALAR:
        return value
    scalars = _SCALARS
    if how == _FIELDS:
        if (
            type(value) is Recommendation
            and type(value.replicas) is int
            and type(value.timestamp) is datetime
        ):
            # Its form built at once (a stored trace holds the stabilization window's
            # recommendations): what the general branch gives for an int and a datetime.
            return {"replicas": value.replicas, "timestamp": _format_time(value.timestamp)}
        result = {}
        for name in fields:
            field_value = getattr(value, name)
            result[name] = field_value if type(field_value) in scalars else _plain(field_value)
        return result
    if how == _SEQUENCE:
        return [v if type(v) in scalars else _plain(v) for v in value]
    if how == _MAPPING:
        return {str(k): v if type(v) in scalars else _plain(v) for k, v in value.items()}
    if how == _TIME:
        return _format_time(value)  # ``conditions.format_time``, without its wrapper call
    return value.total_seconds()


def trace_to_dict(trace: DecisionTrace) -> dict[str, Any]:
    """JSON-ready form: datetimes as RFC 3339, tuples as lists."""
    result = _plain(trace)
    assert isinstance(result, dict)
    return result
