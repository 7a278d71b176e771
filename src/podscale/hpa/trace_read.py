"""Reading a stored decision trace back: ``trace_from_dict``, the inverse of ``trace_to_dict``.

The HPA controller stores ``trace_to_dict`` of the last decision (``trace_json`` makes the
same document in one pass; ``podscale.controllers.hpa.history_store`` writes it) and
``podscale describe hpa`` reads it back here, then renders it with
``trace_render.render_trace``. Required fields raise on absence (``TraceFormatError``);
fields with a record default fall back to it, so a trace stored by an older podscale still
reads. Neighbours: ``trace`` (the records and ``trace_to_dict``), ``contest`` (the
``contest`` entry's records).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from podscale.api.timestamps import parse_time
from podscale.hpa.contest import ContestTrace, ReplicasWrite
from podscale.hpa.trace import (
    DecisionTrace,
    LimitTrace,
    MetricTrace,
    PolicyTrace,
    StabilizationTrace,
)
from podscale.hpa.types import CalculationTrace, Recommendation

__all__ = ["TraceFormatError", "trace_from_dict"]


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
