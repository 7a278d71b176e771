"""The decision trace: a machine-readable record of why ``decide`` chose what it chose.

Upstream explains a decision only through conditions, events and verbose logs. podscale
records every step of every decision: each metric's proposal with the pods set aside and
the ratios before and after rebalancing (``CalculationTrace``), what stabilization chose
from which recommendations, which policy limited the change, the min/max clamp, and
(set by the controller, ``contest_verdict``) another manager writing the target's replicas.
``trace_to_dict`` gives JSON-ready data and ``trace_from_dict`` reads it back (the HPA
controller stores the last trace on the HPA; ``podscale describe hpa`` renders it);
``render_trace`` the text that ``podscale explain-scale`` prints.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any, Final, NamedTuple

from podscale.api.timestamps import format_time as _format_time
from podscale.api.timestamps import parse_time
from podscale.hpa.conditions import format_time
from podscale.hpa.contest import ContestTrace, ReplicasWrite
from podscale.hpa.types import CalculationTrace, Recommendation

__all__ = [
    "LAST_DECISION_STATE",
    "DecisionTrace",
    "LimitTrace",
    "MetricTrace",
    "PolicyTrace",
    "StabilizationTrace",
    "TraceFormatError",
    "render_trace",
    "trace_from_dict",
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


class TraceFormatError(ValueError):
    """A document that is not the ``trace_to_dict`` form of a ``DecisionTrace``."""


# Reading back: required fields raise on absence; fields with a record default fall back
# to it, so a trace stored by an older podscale (fewer optional fields) still reads.
def _time(value: Any) -> datetime:
    return parse_time(str(value))


def _pair(value: Any) -> tuple[float, float]:
    low, high = value
    return float(low), float(high)


def _optional_int(value: Any) -> int | None:
    return None if value is None else int(value)


def _optional_float(value: Any) -> float | None:
    return None if value is None else float(value)


def _optional_str(value: Any) -> str | None:
    return None if value is None else str(value)


def _names(value: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in (value or {}).items()}


def _calculation(doc: Mapping[str, Any]) -> CalculationTrace:
    return CalculationTrace(
        metric=str(doc["metric"]),
        target_type=str(doc["target_type"]),
        current_value=int(doc["current_value"]),
        target_value=int(doc["target_value"]),
        usage_ratio=float(doc["usage_ratio"]),
        tolerances=_pair(doc["tolerances"]),
        within_tolerance=bool(doc["within_tolerance"]),
        ready_pod_count=int(doc.get("ready_pod_count", 0)),
        ignored_pods=_names(doc.get("ignored_pods")),
        unready_pods=_names(doc.get("unready_pods")),
        missing_pods=tuple(str(p) for p in doc.get("missing_pods") or ()),
        rebalanced_ratio=_optional_float(doc.get("rebalanced_ratio")),
        outcome=str(doc.get("outcome", "")),
    )


def _metric(doc: Mapping[str, Any]) -> MetricTrace:
    calculation = doc.get("calculation")
    return MetricTrace(
        position=int(doc["position"]),
        type=str(doc["type"]),
        name=str(doc["name"]),
        replicas=_optional_int(doc.get("replicas")),
        error=_optional_str(doc.get("error")),
        calculation=None if calculation is None else _calculation(calculation),
    )


def _stabilization(doc: Mapping[str, Any]) -> StabilizationTrace:
    return StabilizationTrace(
        path=str(doc["path"]),
        recommendations=tuple(
            Recommendation(int(r["replicas"]), _time(r["timestamp"]))
            for r in doc.get("recommendations") or ()
        ),
        down_window_seconds=float(doc["down_window_seconds"]),
        up_window_seconds=_optional_float(doc.get("up_window_seconds")),
        before=int(doc["before"]),
        after=int(doc["after"]),
        reason=str(doc["reason"]),
    )


def _limit(doc: Mapping[str, Any]) -> LimitTrace:
    return LimitTrace(
        before=int(doc["before"]),
        after=int(doc["after"]),
        reason=str(doc["reason"]),
        min_replicas=int(doc["min_replicas"]),
        max_replicas=int(doc["max_replicas"]),
        direction=str(doc["direction"]),
        rate_limit=_optional_int(doc.get("rate_limit")),
        select_policy=_optional_str(doc.get("select_policy")),
        policies=tuple(
            PolicyTrace(str(p["type"]), int(p["value"]), int(p["period_seconds"]), int(p["allows"]))
            for p in doc.get("policies") or ()
        ),
    )


def _write(doc: Mapping[str, Any]) -> ReplicasWrite:
    return ReplicasWrite(
        manager=str(doc["manager"]),
        operation=str(doc["operation"]),
        subresource=str(doc["subresource"]),
        time=str(doc["time"]),
        replicas=int(doc["replicas"]),
        replaced=_optional_int(doc.get("replaced")),
        contested=bool(doc.get("contested", True)),
    )


def _contest(doc: Mapping[str, Any]) -> ContestTrace:
    return ContestTrace(
        reason=str(doc["reason"]),
        message=str(doc["message"]),
        manager=str(doc["manager"]),
        writes_in_window=int(doc["writes_in_window"]),
        last=_write(doc["last"]),
        observed=bool(doc.get("observed", False)),
    )


def _decision(doc: Mapping[str, Any]) -> DecisionTrace:
    tolerances, stabilization, limit, contest = (
        doc.get("tolerances"),
        doc.get("stabilization"),
        doc.get("limit"),
        doc.get("contest"),
    )
    return DecisionTrace(
        hpa=str(doc["hpa"]),
        at=_time(doc["at"]),
        current_replicas=int(doc["current_replicas"]),
        status_replicas=int(doc["status_replicas"]),
        min_replicas=int(doc["min_replicas"]),
        max_replicas=int(doc["max_replicas"]),
        branch=str(doc["branch"]),
        desired_replicas=int(doc["desired_replicas"]),
        rescale=bool(doc["rescale"]),
        reason=str(doc["reason"]),
        tolerances=None if tolerances is None else _pair(tolerances),
        metrics=tuple(_metric(m) for m in doc.get("metrics") or ()),
        invalid_metrics=int(doc.get("invalid_metrics", 0)),
        proposed_replicas=_optional_int(doc.get("proposed_replicas")),
        proposed_by=str(doc.get("proposed_by", "")),
        stabilization=None if stabilization is None else _stabilization(stabilization),
        limit=None if limit is None else _limit(limit),
        notes=tuple(str(n) for n in doc.get("notes") or ()),
        passive_replicas=_optional_int(doc.get("passive_replicas")),
        proactive_replicas=_optional_int(doc.get("proactive_replicas")),
        window=_optional_str(doc.get("window")),
        decided_by=str(doc.get("decided_by", "")),
        contest=None if contest is None else _contest(contest),
    )


def trace_from_dict(document: Mapping[str, Any]) -> DecisionTrace:
    """The ``DecisionTrace`` that ``trace_to_dict`` turned into ``document``.

    Times come back at the second precision ``trace_to_dict`` keeps, so ``render_trace`` of
    the result equals ``render_trace`` of the original. Raises ``TraceFormatError`` when
    ``document`` is not such a dict (a field missing or of the wrong type).
    """
    if not isinstance(document, Mapping):
        raise TraceFormatError(f"not a decision trace: a {type(document).__name__}, not an object")
    try:
        return _decision(document)
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        detail = f"missing field {err}" if isinstance(err, KeyError) else str(err)
        raise TraceFormatError(f"not a decision trace: {detail}") from None


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _render_calculation(calc: CalculationTrace) -> list[str]:
    low, high = 1.0 - calc.tolerances[0], 1.0 + calc.tolerances[1]
    band = "within" if calc.within_tolerance else "outside"
    lines = [
        f"current {calc.current_value} vs target {calc.target_value} ({calc.target_type}): "
        f"ratio {_ratio(calc.usage_ratio)}, {band} tolerance [{low:.2f}, {high:.2f}]"
    ]
    if calc.ready_pod_count or calc.ignored_pods or calc.unready_pods or calc.missing_pods:
        lines.append(f"pods: {calc.ready_pod_count} counted")
    for title, pods in (("ignored", calc.ignored_pods), ("unready", calc.unready_pods)):
        if pods:
            listed = ", ".join(f"{name} ({why})" for name, why in sorted(pods.items()))
            lines.append(f"{title}: {listed}")
    if calc.missing_pods:
        lines.append("missing metrics: " + ", ".join(sorted(calc.missing_pods)))
    if calc.rebalanced_ratio is not None:
        lines.append(
            f"ratio after rebalancing missing/unready pods: {_ratio(calc.rebalanced_ratio)}"
        )
    if calc.outcome:
        lines.append(f"outcome: {calc.outcome}")
    return lines


def _render_limit(limit: LimitTrace) -> list[str]:
    lines = [
        f"limits: {limit.before} -> {limit.after} ({limit.reason}); "
        f"bounds [{limit.min_replicas}, {limit.max_replicas}]"
    ]
    if limit.rate_limit is not None:
        policy = f" (selectPolicy {limit.select_policy})" if limit.select_policy else ""
        lines.append(f"  rate limit going {limit.direction}: {limit.rate_limit}{policy}")
    for p in limit.policies:
        lines.append(f"  policy {p.type} {p.value} per {p.period_seconds}s allows {p.allows}")
    return lines


def _render_predictive(trace: DecisionTrace) -> list[str]:
    def shown(value: int | None) -> str:
        return "-" if value is None else str(value)

    lines = [
        f"  passive (metrics): {shown(trace.passive_replicas)}; "
        f"proactive (forecast): {shown(trace.proactive_replicas)}"
    ]
    if trace.window is not None:
        lines.append(
            f"  window {trace.window}: bounds [{trace.min_replicas}, {trace.max_replicas}]"
        )
    return lines


def render_trace(trace: DecisionTrace) -> str:
    """Human-readable explanation, one fact per line."""
    verdict = (
        f"scale {trace.current_replicas} -> {trace.desired_replicas}"
        if trace.rescale
        else f"keep {trace.current_replicas}"
    )
    out = [f"HPA {trace.hpa} at {format_time(trace.at)}: {verdict}"]
    if trace.reason:
        out.append(f"  reason: {trace.reason}")
    out.append(
        f"  target: spec.replicas {trace.current_replicas}, status.replicas "
        f"{trace.status_replicas}; HPA bounds [{trace.min_replicas}, {trace.max_replicas}]"
    )
    out.append(f"  path: {trace.branch}")
    if trace.tolerances is not None:
        down, up = trace.tolerances
        out.append(f"  tolerance: scale-down {down:g}, scale-up {up:g}")
    for metric in trace.metrics:
        head = f"  metric[{metric.position}] {metric.type}"
        if metric.error is not None:
            out.append(f"{head}: invalid: {metric.error}")
            continue
        out.append(f"{head} {metric.name}: proposes {metric.replicas}")
        if metric.calculation is not None:
            out.extend(f"    {line}" for line in _render_calculation(metric.calculation))
    if trace.metrics:
        valid = len(trace.metrics) - trace.invalid_metrics
        out.append(f"  {valid} of {len(trace.metrics)} metrics valid")
    if trace.proposed_replicas is not None:
        by = f" from {trace.proposed_by}" if trace.proposed_by else ""
        out.append(f"  largest proposal: {trace.proposed_replicas}{by}")
    if trace.proactive_replicas is not None or trace.window is not None:
        out.extend(_render_predictive(trace))
    if (stab := trace.stabilization) is not None:
        windows = f"down window {stab.down_window_seconds:g}s"
        if stab.up_window_seconds is not None:
            windows = f"up window {stab.up_window_seconds:g}s, {windows}"
        seen = ", ".join(f"{r.replicas}@{format_time(r.timestamp)}" for r in stab.recommendations)
        out.append(
            f"  stabilization ({stab.path}; {windows}): {stab.before} -> {stab.after} "
            f"({stab.reason}); recommendations [{seen}]"
        )
    if trace.limit is not None:
        out.extend(f"  {line}" for line in _render_limit(trace.limit))
    out.extend(f"  note: {note}" for note in trace.notes)
    if trace.contest is not None:
        out.append(f"  replicas contested ({trace.contest.reason}): {trace.contest.message}")
    # Only a predictive decision names its winner: an HPA's explanation reads as before.
    predictive = trace.proactive_replicas is not None or trace.window is not None
    decided = f" (decided by {trace.decided_by})" if predictive and trace.decided_by else ""
    out.append(f"  desired replicas: {trace.desired_replicas}{decided}")
    return "\n".join(out)
