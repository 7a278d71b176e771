"""The engine's ``History`` and the last decision trace as ``StateStore`` documents.

Beyond upstream: kube-controller-manager keeps recommendations and scale events in memory,
so a restart forgets them (a fresh controller seeds the current count and rate limits
start over). podscale keeps them in the control plane's history store
(``podscale.history.StateStore``, ``ControllerContext.history``) under the HPA's
``metadata.uid``, so a restarted controller continues where the old one stopped, and the
HPA object carries only what its users wrote and its status:

- ``hpa/history`` (``HISTORY_STATE``): ``{"recommendations": [{"replicas", "time"}],
  "scaleUpEvents": [{"change", "time"}], "scaleDownEvents": [...]}`` (the explain-scale
  ``history`` shape; times RFC 3339 with microseconds). Bounded: only recommendations
  inside the longest stabilization window, one per replica count (its latest; the windows
  only ask "the highest/lowest count recommended after the cutoff", which this keeps
  exact), and only scale events inside their direction's longest policy period. Entries
  are sorted by time, so the last recommendation is the latest one.
- ``hpa/last-decision`` (``LAST_DECISION_STATE``): ``trace_to_dict`` of the last decision.

Writes happen only on change (``state_changes`` compares against the documents last
stored; a caller that knows the stored trace or history already matches, its
``trace_signature`` or ``history_key`` equal to the one it last stored or compared, passes
``trace_unchanged`` or ``history_unchanged`` to skip encoding it), and a change that
only refreshes the latest recommendation's time does not count, nor does a new trace that
differs only in its time or in the recommendations it looked at: a quiet HPA is never
written. In exchange the stored time of the latest recommendation may lag;
``load_history`` therefore takes it as made "now", which can only keep it in a window
longer (like upstream's seed at start), never shorter.

Older podscale versions kept both documents in the annotations ``HISTORY_ANNOTATION`` and
``LAST_DECISION_ANNOTATION`` (compact JSON); ``legacy_state`` reads them once so the
controller can move them into the store and remove them from the object.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any, Final

import orjson

from podscale.api.defaults_hpa import default_scale_down_rules, default_scale_up_rules
from podscale.api.timestamps import format_micro_time, parse_time
from podscale.controllers.hpa.history_key import Retention, kept_events, kept_recommendations
from podscale.hpa.decision import Decision
from podscale.hpa.policies import longest_policy_period
from podscale.hpa.trace import LAST_DECISION_STATE, DecisionTrace, StabilizationTrace
from podscale.hpa.trace_json import trace_document
from podscale.hpa.types import Config, History, Recommendation, ScaleEvent

__all__ = [
    "HISTORY_ANNOTATION",
    "HISTORY_STATE",
    "LAST_DECISION_ANNOTATION",
    "LAST_DECISION_STATE",
    "LEGACY_ANNOTATIONS",
    "Retention",
    "encode_history",
    "legacy_state",
    "load_history",
    "retention_for",
    "state_changes",
    "trace_signature",
]

_LOG = logging.getLogger(__name__)
JSON = dict[str, Any]
HISTORY_STATE: Final = "hpa/history"
# Where older versions kept the two documents (read once, then removed from the object).
HISTORY_ANNOTATION: Final = "autoscaling.podscale.dev/history"
LAST_DECISION_ANNOTATION: Final = "autoscaling.podscale.dev/last-decision"
LEGACY_ANNOTATIONS: Final = {
    HISTORY_ANNOTATION: HISTORY_STATE,
    LAST_DECISION_ANNOTATION: LAST_DECISION_STATE,
}


def retention_for(spec: Mapping[str, Any], config: Config) -> Retention:
    """The HPA's longest stabilization window and each direction's longest policy period
    (the legacy path, without ``behavior``, uses the controller's downscale window only)."""
    behavior = spec.get("behavior")
    if behavior is None:
        return _legacy_retention(config.downscale_stabilization)
    up = default_scale_up_rules(behavior.get("scaleUp"))
    down = default_scale_down_rules(behavior.get("scaleDown"))
    down_window = down.get("stabilizationWindowSeconds")
    windows = [
        timedelta(seconds=int(up.get("stabilizationWindowSeconds") or 0)),
        config.downscale_stabilization
        if down_window is None
        else timedelta(seconds=int(down_window)),
    ]
    return Retention(max(windows), longest_policy_period(up), longest_policy_period(down))


@lru_cache(maxsize=64)
def _legacy_retention(window: timedelta) -> Retention:
    # Cached by the window (a function of it alone; ``Retention`` is immutable): every sync
    # of an HPA without ``behavior`` asks it.
    return Retention(window, timedelta(0), timedelta(0))


@lru_cache(maxsize=4096)
def _format(moment: datetime) -> str:
    # Cached: a recommendation's time is formatted at every sync of its window (an equal
    # instant in another zone formats the same, in UTC).
    return format_micro_time(moment)


def _parse(text: Any) -> datetime:
    return parse_time(str(text))


def encode_history(history: History, *, now: datetime, retention: Retention) -> JSON:
    """The annotation document of ``history`` at ``now``, bounded by ``retention``."""
    recommendations = kept_recommendations(history, now - retention.recommendations)
    up = kept_events(history.scale_up_events, now - retention.scale_up_events)
    down = kept_events(history.scale_down_events, now - retention.scale_down_events)
    return {
        "recommendations": [{"replicas": r, "time": _format(t)} for r, t in recommendations],
        "scaleUpEvents": [{"change": e.replica_change, "time": _format(e.timestamp)} for e in up],
        "scaleDownEvents": [
            {"change": e.replica_change, "time": _format(e.timestamp)} for e in down
        ],
    }


def _history_signature(document: Mapping[str, Any]) -> Any:
    """The document without the latest recommendation's time (see the module docstring)."""
    recommendations = [dict(rec) for rec in document.get("recommendations") or []]
    if recommendations:
        recommendations[-1]["time"] = None
    return {**document, "recommendations": recommendations}


def _same_history(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """``_history_signature(old) == _history_signature(new)``, without copying every
    recommendation of both (every sync compares them). Shapes other than lists of dicts
    go through the signatures themselves."""
    old_recs = old.get("recommendations") or []
    new_recs = new.get("recommendations") or []
    if (
        type(old_recs) is not list
        or type(new_recs) is not list
        or any(type(rec) is not dict for rec in old_recs)
        or any(type(rec) is not dict for rec in new_recs)
    ):
        return bool(_history_signature(old) == _history_signature(new))
    if old.keys() | {"recommendations"} != new.keys() | {"recommendations"}:
        return False
    if any(old[key] != value for key, value in new.items() if key != "recommendations"):
        return False
    if len(old_recs) != len(new_recs) or old_recs[:-1] != new_recs[:-1]:
        return False
    return not old_recs or {**old_recs[-1], "time": None} == {**new_recs[-1], "time": None}


def _trace_signature(document: Mapping[str, Any]) -> Any:
    stabilization = document.get("stabilization")
    if isinstance(stabilization, Mapping):
        stabilization = {**stabilization, "recommendations": None}
    return {**document, "at": None, "stabilization": stabilization}


# Where ``trace_signature`` blanks a trace's time and the recommendations stabilization
# looked at: the positions of those fields in their records.
_AT: Final = DecisionTrace._fields.index("at")
_LOOKED_AT: Final = StabilizationTrace._fields.index("recommendations")
_STABILIZATION: Final = DecisionTrace._fields.index("stabilization")
_new = tuple.__new__


def trace_signature(trace: DecisionTrace) -> DecisionTrace:
    """The trace without what the stored comparison ignores (its time, the recommendations
    stabilization looked at): two traces with equal signatures have equal stored forms."""
    # ``_replace`` of both records, spelled as what it does (``tuple.__new__`` of the
    # record's own class over the fields, one changed): once per sync.
    stabilization = trace.stabilization
    if stabilization is not None:
        stabilization = _new(
            type(stabilization),
            (*stabilization[:_LOOKED_AT], (), *stabilization[_LOOKED_AT + 1 :]),
        )
    fields = list(trace)
    fields[_AT] = datetime.min
    fields[_STABILIZATION] = stabilization
    return _new(type(trace), fields)


def load_history(document: Any, *, now: datetime) -> History | None:
    """The history a ``hpa/history`` document holds, or None when there is none (or it is
    unreadable)."""
    if not document:
        return None
    try:
        recommendations = [
            Recommendation(int(rec["replicas"]), _parse(rec["time"]))
            for rec in document.get("recommendations") or []
        ]
        up = [
            ScaleEvent(int(e["change"]), _parse(e["time"]))
            for e in document.get("scaleUpEvents") or []
        ]
        down = [
            ScaleEvent(int(e["change"]), _parse(e["time"]))
            for e in document.get("scaleDownEvents") or []
        ]
    except (ValueError, TypeError, KeyError, AttributeError) as err:
        _LOG.warning("ignoring an unreadable %s document: %s", HISTORY_STATE, err)
        return None
    if recommendations:  # stored oldest first: the last one is the latest
        recommendations[-1] = Recommendation(recommendations[-1].replicas, now)
    return History(recommendations, up, down)


def legacy_state(hpa: Mapping[str, Any]) -> tuple[dict[str, JSON], bool]:
    """The documents an older version left in ``hpa``'s annotations (the readable ones), and
    whether it carries any of those annotations at all (then they are to be removed)."""
    annotations = (hpa.get("metadata") or {}).get("annotations") or {}
    present = any(name in annotations for name in LEGACY_ANNOTATIONS)
    documents: dict[str, JSON] = {}
    for annotation, name in LEGACY_ANNOTATIONS.items():
        try:
            document = orjson.loads(str(annotations.get(annotation) or "null"))
        except ValueError:
            continue
        if isinstance(document, dict):
            documents[name] = document
    return documents, present


def state_changes(
    stored: Mapping[str, Any],
    decision: Decision,
    history: History | None,
    *,
    spec: Mapping[str, Any],
    now: datetime,
    config: Config,
    trace_unchanged: bool = False,
    history_unchanged: bool = False,
) -> dict[str, JSON]:
    """The documents to store after ``decision`` (empty when nothing meaningful changed).

    ``stored``: the documents as last stored, by name. ``history`` is what the controller
    keeps for the next sync (None: nothing yet). ``trace_unchanged``: the caller vouches
    that the stored last decision is a trace with ``decision.trace``'s ``trace_signature``;
    ``history_unchanged``, that the stored history is a document the same as that of a
    history with ``history``'s ``history_key``.
    """
    changes: dict[str, JSON] = {}
    if history is not None and not history_unchanged:
        document = encode_history(history, now=now, retention=retention_for(spec, config))
        old = stored.get(HISTORY_STATE)
        if not isinstance(old, Mapping) or not _same_history(old, document):
            changes[HISTORY_STATE] = document
    if trace_unchanged:
        return changes
    # Through JSON, so tuples compare as the lists a stored document holds.
    trace = trace_document(decision.trace)
    old_trace = stored.get(LAST_DECISION_STATE)
    if not isinstance(old_trace, Mapping) or _trace_signature(old_trace) != _trace_signature(trace):
        changes[LAST_DECISION_STATE] = trace
    return changes
