"""Validation of a PredictiveHorizontalPodAutoscaler's spec, as Kubernetes field errors.

The HPA part (``scaleTargetRef``, replica bounds, ``metrics``, ``behavior``) goes through
podscale's own HPA rules (``podscale.api.validation.hpa.validate_hpa_spec`` on the
defaulted ``types.hpa_view``), so the errors and paths are the HPA's (``spec.metrics[0]...``).
Then the PHPA's fields: ``mode``; ``prediction`` (metrics naming ``spec.metrics`` entries,
``history`` a positive duration of at most 35 days, ``algorithm``, ``quantile`` a decimal
in (0, 1), ``leadTime`` ``auto`` or a positive duration, ``refreshInterval`` positive,
``scaleDownLimit`` 0-100%); ``schedules`` (unique names, a cron that parses in its dialect
(``schedules.parse_window``) and has fixed minutes, a time zone that loads, bounds in order).

Where it runs: the API server admits custom resources by their CRD alone (schema, CEL
rules) and has no hook for a kind's own validation (no admission webhooks), and it may not
import controllers. So the CRD's schema and CEL rules refuse what they can at admission,
and the controller calls ``validate_phpa`` on every sync and reports an invalid object in a
condition (``message`` gives the text) instead of acting on it. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any, Final
from zoneinfo import ZoneInfo

from podscale.api.durations import DurationError
from podscale.api.feature_gates import DEFAULT_FEATURE_GATES
from podscale.api.field_errors import (
    FieldError,
    FieldPath,
    duplicate,
    invalid,
    not_supported,
    required,
)
from podscale.api.validation.hpa import spec_options_for, validate_hpa_spec
from podscale.controllers.phpa.schedules import parse_window
from podscale.controllers.phpa.types import (
    ALGORITHMS,
    AUTO,
    MODES,
    hpa_view,
    metric_name,
    parse_percent,
    parse_quantile,
    parse_span,
)
from podscale.cron import CronError

__all__ = ["MAX_HISTORY", "message", "validate_phpa"]

MAX_HISTORY: Final = timedelta(days=35)
_SPEC: Final = FieldPath("spec")


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _span(value: Any, path: FieldPath, *, allow_auto: bool = False) -> list[FieldError]:
    if allow_auto and value == AUTO:
        return []
    try:
        span = parse_span(value)
    except DurationError as err:
        return [invalid(path, value, str(err))]
    if span <= timedelta(0):
        return [invalid(path, value, "must be greater than 0")]
    return []


def _prediction(
    raw: Mapping[str, Any], metrics: Sequence[Any], path: FieldPath
) -> list[FieldError]:
    errors: list[FieldError] = []
    names = [metric_name(m) for m in metrics if isinstance(m, Mapping)]
    seen: set[str] = set()
    for i, name in enumerate(raw.get("metrics") or ()):
        at = path.child("metrics").index(i)
        if name in seen:
            errors.append(duplicate(at, name))
        elif name not in names:
            known = ", ".join(names)
            errors.append(invalid(at, name, f"must name one of spec.metrics: {known}"))
        seen.add(str(name))
    history = raw.get("history")
    if history is not None:
        span_errors = _span(history, path.child("history"))
        errors += span_errors
        if not span_errors and parse_span(history) > MAX_HISTORY:
            errors.append(invalid(path.child("history"), history, "must be at most 35d"))
    algorithm = raw.get("algorithm")
    if algorithm is not None and algorithm not in ALGORITHMS:
        errors.append(not_supported(path.child("algorithm"), algorithm, ALGORITHMS))
    quantile = raw.get("quantile")
    if quantile is not None:
        try:
            inside = 0 < parse_quantile(quantile) < 1
        except ValueError:
            inside = False
        if not inside:
            detail = "must be a decimal greater than 0 and less than 1"
            errors.append(invalid(path.child("quantile"), quantile, detail))
    if raw.get("leadTime") is not None:
        errors += _span(raw["leadTime"], path.child("leadTime"), allow_auto=True)
    if raw.get("refreshInterval") is not None:
        errors += _span(raw["refreshInterval"], path.child("refreshInterval"))
    limit = raw.get("scaleDownLimit")
    if limit is not None:
        try:
            percent: int | None = parse_percent(limit)
        except ValueError:
            percent = None
        if percent is None or not 0 <= percent <= 100:
            detail = "must be a percentage from 0% to 100%"
            errors.append(invalid(path.child("scaleDownLimit"), limit, detail))
    return errors


def _zone_error(name: Any, path: FieldPath) -> list[FieldError]:
    try:
        ZoneInfo(str(name))
    except (ValueError, KeyError, OSError):  # not found, or not a zone key at all
        return [invalid(path, name, "unknown time zone")]
    return []


def _cron_errors(cron: Any, path: FieldPath) -> list[FieldError]:
    if not isinstance(cron, str) or not cron:
        return [required(path, "")]
    try:
        schedule = parse_window(cron)
    except CronError as err:
        return [invalid(path, cron, str(err))]
    if schedule.kind == "every":
        # Its fire times count from whoever asks: no fixed minutes to form a window.
        return [invalid(path, cron, "an @every schedule has no fixed minutes to form a window")]
    return []


def _schedule(
    raw: Mapping[str, Any], path: FieldPath, min_bound: int, seen: set[str]
) -> list[FieldError]:
    errors: list[FieldError] = []
    name = raw.get("name")
    if not name:
        errors.append(required(path.child("name"), ""))
    elif name in seen:
        errors.append(duplicate(path.child("name"), name))
    seen.add(str(name or ""))
    errors += _cron_errors(raw.get("cron"), path.child("cron"))
    if raw.get("timeZone") is not None:
        errors += _zone_error(raw["timeZone"], path.child("timeZone"))
    low, high = _int(raw.get("minReplicas")), _int(raw.get("maxReplicas"))
    if low is not None and low < min_bound:
        detail = f"must be greater than or equal to {min_bound}"
        errors.append(invalid(path.child("minReplicas"), low, detail))
    if high is not None and high < 1:
        errors.append(invalid(path.child("maxReplicas"), high, "must be greater than 0"))
    if low is not None and high is not None and high < low:
        detail = "must be greater than or equal to `minReplicas`"
        errors.append(invalid(path.child("maxReplicas"), high, detail))
    return errors


def _type_errors(spec: Mapping[str, Any]) -> list[FieldError]:
    # The CRD's schema refuses these at admission; an object read from a file has not been
    # through it. Worded as the schema's errors are ("... in body must be of type object").
    errors: list[FieldError] = []
    for key, wanted, kind in (
        ("behavior", Mapping, "object"),
        ("prediction", Mapping, "object"),
        ("metrics", list, "array"),
        ("schedules", list, "array"),
    ):
        value = spec.get(key)
        items = value if kind == "array" and isinstance(value, list) else ()
        if value is not None and not isinstance(value, wanted):
            errors.append(_wrong_type(_SPEC.child(key), value, kind))
        for i, item in enumerate(items):
            if not isinstance(item, Mapping):
                errors.append(_wrong_type(_SPEC.child(key).index(i), item, "object"))
    return errors


def _wrong_type(path: FieldPath, value: Any, kind: str) -> FieldError:
    actual = {str: "string", bool: "boolean", int: "integer", float: "number", list: "array"}
    shown = actual.get(type(value), "object")
    return invalid(
        path, shown, f"{path} in body must be of type {kind}: {shown!r}".replace("'", '"')
    )


def validate_phpa(
    obj: Mapping[str, Any],
    *,
    old: Mapping[str, Any] | None = None,
    feature_gates: frozenset[str] = DEFAULT_FEATURE_GATES,
) -> list[FieldError]:
    """The field errors of a PHPA's spec (metadata is the API server's); ``old`` is the
    stored object on an update, for the HPA's ratcheting rules."""
    spec = obj.get("spec")
    if not isinstance(spec, Mapping):
        return [required(_SPEC, "")]
    wrong = _type_errors(spec)
    if wrong:
        return wrong
    try:
        view = hpa_view(obj)
        old_view = hpa_view(old) if old is not None else None
    except (TypeError, AttributeError, ValueError, KeyError):
        # Only an object that skipped the CRD's schema gets here (a file read as is).
        return [invalid(_SPEC, "", "a field has the wrong type")]
    errors = validate_hpa_spec(view, old=old_view, feature_gates=feature_gates)
    mode = spec.get("mode")
    if mode is not None and mode not in MODES:
        errors.append(not_supported(_SPEC.child("mode"), mode, MODES))
    prediction = spec.get("prediction")
    if prediction is not None:
        metrics = _mapping(view.get("spec")).get("metrics") or []
        errors += _prediction(_mapping(prediction), metrics, _SPEC.child("prediction"))
    min_bound = spec_options_for(view, old_view, feature_gates).min_replicas_lower_bound
    seen: set[str] = set()
    for i, window in enumerate(spec.get("schedules") or ()):
        errors += _schedule(_mapping(window), _SPEC.child("schedules").index(i), min_bound, seen)
    return errors


def message(errors: Sequence[FieldError]) -> str:
    """The errors as one text for a condition: one error alone, several in brackets,
    as upstream aggregates them in an Invalid status."""
    texts = [str(error) for error in errors]
    return texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
