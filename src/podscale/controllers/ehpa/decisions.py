"""What an EffectiveHorizontalPodAutoscaler serves and writes: pure decisions.

- ``cron_active`` is Crane's cron trigger (KEDA's rule, ``podscale.cron.window``): a cron
  is active from a fire time of ``start`` until its next ``end`` fire time, in its zone.
- ``cron_value`` is what Crane's metric adapter serves as ``crane_autoscaling_cron``: the
  largest ``targetReplicas`` of the active crons (at least 1); with none active, 1 when
  other metrics work beside the cron (prediction enabled, or the generated HPA has other
  metrics), so the cron does not hold replicas up, else the target's current replicas, so
  a cron-only EHPA keeps what it has outside its windows.
- ``next_cron_change``: the next start or end fire of any cron, when the served value may
  change (the controller wakes then and publishes).
- ``prediction_value`` is what ``crane_autoscaling_prediction`` serves: the largest
  predicted value from now to ``predictionWindowSeconds`` ahead (None, as Crane's "time
  series is outdated", when the forecast does not cover now or predicts nothing above 0).
- ``generated_hpa``: the HPA ``ehpa-<name>`` (Crane's labels, controlled by the EHPA; in
  Preview it scales the Substitute of the same name), and ``set_condition`` /
  ``mirrored_conditions`` the status conditions (Crane's ``Ready`` and ``PredictionReady``
  plus the HPA's own three, copied).
``metrics`` builds the HPA's metrics; ``controller`` applies all this.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Final
from zoneinfo import ZoneInfo

from podscale.controllers.ehpa.kind import EHPA, GROUP, MANAGED_BY, SUBSTITUTE_KIND, UID_LABEL
from podscale.controllers.ehpa.types import Cron, EhpaSpec, Strategy
from podscale.controllers.ehpa.validation import zone_of
from podscale.cron import parse, window_active_keda
from podscale.forecast.types import Forecast

__all__ = [
    "covers",
    "cron_active",
    "cron_value",
    "format_time",
    "generated_hpa",
    "generated_name",
    "mirrored_conditions",
    "next_cron_change",
    "prediction_value",
    "set_condition",
]

JSON = dict[str, Any]
_CRON_DIALECT: Final = "standard"


def format_time(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def generated_name(ehpa_name: str) -> str:
    return f"ehpa-{ehpa_name}"


def cron_active(cron: Cron, now: datetime, local: ZoneInfo) -> bool:
    """Whether ``now`` is inside the cron's window. Raises ``CronError`` / ``ValueError``
    for a schedule or zone that does not parse (the adapter's error)."""
    zone = zone_of(cron.timezone, local)
    start = parse(cron.start, _CRON_DIALECT)
    end = parse(cron.end, _CRON_DIALECT)
    return window_active_keda(start, end, now, zone)


def cron_value(
    spec: EhpaSpec, now: datetime, local: ZoneInfo, *, current_replicas: int, hpa_metrics: int
) -> int:
    """``crane_autoscaling_cron`` for this EHPA at ``now`` (see the module docstring).
    ``hpa_metrics``: how many metrics the generated HPA has, the cron's included."""
    active = [c.target_replicas for c in spec.crons if cron_active(c, now, local)]
    if active:
        return max(1, *active)
    if spec.prediction_enabled or hpa_metrics > 1:
        return 1
    return current_replicas


def next_cron_change(spec: EhpaSpec, now: datetime, local: ZoneInfo) -> datetime | None:
    """The earliest start or end fire time of any cron strictly after ``now``."""
    fires: list[datetime] = []
    for cron in spec.crons:
        zone = zone_of(cron.timezone, local)
        for text in (cron.start, cron.end):
            found = parse(text, _CRON_DIALECT).next_after(now, zone)
            if found is not None:
                fires.append(found)
    return min(fires, default=None)


def prediction_value(forecast: Forecast, now: datetime, window_seconds: int) -> float | None:
    """The largest prediction over ``[now, now + window]``; None when there is none above
    zero (Crane serves nothing then, and the HPA skips the metric)."""
    if forecast.value_at(now) is None:
        return None
    # The step holding ``now + window`` counts, as Crane keeps samples up to the end.
    end = now + timedelta(seconds=window_seconds) + forecast.step
    largest = forecast.max_between(now, end)
    return largest if largest is not None and largest > 0 else None


def generated_hpa(obj: Mapping[str, Any], spec: EhpaSpec, metrics: Sequence[JSON]) -> JSON:
    """The HPA Crane generates for ``obj`` (its ``metadata``/``spec`` only)."""
    meta: Mapping[str, Any] = obj.get("metadata") or {}
    name = generated_name(str(meta.get("name") or ""))
    if spec.strategy == Strategy.PREVIEW:
        target = {"apiVersion": f"{GROUP}/{EHPA.version}", "kind": SUBSTITUTE_KIND, "name": name}
    else:
        target = spec.target.to_json()
    hpa_spec: JSON = {
        "scaleTargetRef": target,
        "minReplicas": spec.min_replicas,
        "maxReplicas": spec.max_replicas,
    }
    if metrics:  # none: the API server's default (CPU at 80%), as for any HPA
        hpa_spec["metrics"] = list(metrics)
    if spec.behavior is not None:
        hpa_spec["behavior"] = spec.behavior
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {
            "name": name,
            "namespace": meta.get("namespace"),
            "labels": owned_labels(obj),
            "ownerReferences": [owner_reference(obj)],
        },
        "spec": hpa_spec,
    }


def covers(existing: Any, wanted: Any) -> bool:
    """Whether ``existing`` already holds everything ``wanted`` says: the API server fills
    defaults into what the controller writes (an HPA's ``behavior`` rules), which must not
    read as a change on every sync. Dicts: every wanted key covered (and, at the top,
    no key dropped); lists: same length, each item covered; anything else: equal."""
    if isinstance(wanted, Mapping):
        return isinstance(existing, Mapping) and all(
            key in existing and covers(existing[key], value) for key, value in wanted.items()
        )
    if isinstance(wanted, list):
        return (
            isinstance(existing, list)
            and len(existing) == len(wanted)
            and all(covers(e, w) for e, w in zip(existing, wanted, strict=True))
        )
    return bool(existing == wanted)


def owned_labels(obj: Mapping[str, Any]) -> dict[str, str]:
    meta: Mapping[str, Any] = obj.get("metadata") or {}
    name = str(meta.get("name") or "")
    return {
        "app.kubernetes.io/name": generated_name(name),
        "app.kubernetes.io/part-of": name,
        "app.kubernetes.io/managed-by": MANAGED_BY,
        UID_LABEL: str(meta.get("uid") or ""),
    }


def owner_reference(obj: Mapping[str, Any]) -> JSON:
    meta: Mapping[str, Any] = obj.get("metadata") or {}
    return {
        "apiVersion": f"{GROUP}/{EHPA.version}",
        "kind": EHPA.kind,
        "name": meta.get("name"),
        "uid": meta.get("uid"),
        "controller": True,
        "blockOwnerDeletion": True,
    }


def set_condition(
    conditions: Sequence[JSON],
    kind: str,
    status: str,
    reason: str,
    message: str,
    now: datetime,
) -> list[JSON]:
    """``conditions`` with the one of type ``kind`` set (appended when absent). The
    transition time moves only when the status changes, as metav1 conditions mean it
    (Crane stamps it on every write)."""
    out = [dict(c) for c in conditions]
    for condition in out:
        if condition.get("type") == kind:
            if condition.get("status") != status:
                condition["lastTransitionTime"] = format_time(now)
            condition.update(status=status, reason=reason, message=message)
            return out
    out.append(
        {
            "type": kind,
            "status": status,
            "lastTransitionTime": format_time(now),
            "reason": reason,
            "message": message,
        }
    )
    return out


def mirrored_conditions(
    conditions: Sequence[JSON], hpa_conditions: Iterable[Mapping[str, Any]], now: datetime
) -> list[JSON]:
    """``conditions`` with each of the HPA's copied in under its own type."""
    out = list(conditions)
    for c in hpa_conditions:
        out = set_condition(
            out,
            str(c.get("type") or ""),
            str(c.get("status") or "Unknown"),
            str(c.get("reason") or ""),
            str(c.get("message") or ""),
            now,
        )
    return out
