"""What a stored history document is made of, as values: ``history_store`` formats it.

``kept_recommendations`` and ``kept_events`` are the bounding rules of the ``hpa/history``
document (``history_store``'s module docstring): per replica count its latest
recommendation inside the window, and the scale events inside their periods, in document
order. ``history_key`` is what the stored comparison sees of that document, unformatted:
``state_keeper`` keeps the key of the document last stored (or last found the same as the
stored one) and skips encoding and comparing the document while the key stays equal, which
is every sync of a quiet HPA.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from datetime import datetime, timedelta

from podscale.hpa.types import History, ScaleEvent

__all__ = ["Retention", "history_key", "kept_events", "kept_recommendations"]


@dataclass(frozen=True, slots=True)
class Retention:
    """How far back each part of the history still matters to a decision."""

    recommendations: timedelta
    scale_up_events: timedelta
    scale_down_events: timedelta


def kept_events(events: list[ScaleEvent], cutoff: datetime) -> list[ScaleEvent]:
    """The events after ``cutoff``, by time."""
    if not events:  # the usual case: no rescale inside the period (or none kept at all)
        return []
    return sorted((e for e in events if e.timestamp > cutoff), key=lambda e: e.timestamp)


def kept_recommendations(history: History, cutoff: datetime) -> list[tuple[int, datetime]]:
    """Per count its latest recommendation at or after ``cutoff``, in document order."""
    # Per count its latest time; among equal times the later list position is the later
    # recommendation (a first sync stores the seed, then appends its own). Positions only
    # grow, so a later one replaces the kept one exactly when its time is not earlier.
    latest: dict[int, tuple[datetime, int]] = {}
    get = latest.get
    for position, (replicas, timestamp) in enumerate(history.recommendations):
        # Upstream's windows drop only recommendations strictly before the cutoff.
        if timestamp >= cutoff:
            kept = get(replicas)
            if kept is None or timestamp >= kept[0]:
                latest[replicas] = (timestamp, position)
    if len(latest) == 1:
        ((replicas, (timestamp, _)),) = latest.items()
        return [(replicas, timestamp)]
    return [(r, t) for r, (t, _) in sorted(latest.items(), key=lambda item: item[1])]


def history_key(history: History, *, now: datetime, retention: Retention) -> Hashable:
    """What the stored comparison sees of ``encode_history(history, ...)``, unformatted: its
    recommendations (the latest one's time left out) and scale events. The document's
    ``_history_signature`` is a function of it, so a caller keeping the key of the document
    last stored (or last found the same as it) knows that an equal key needs no write,
    without encoding and comparing the document (every sync of every HPA does this)."""
    recommendations = kept_recommendations(history, now - retention.recommendations)
    latest = recommendations.pop()[0] if recommendations else None
    return (
        tuple(recommendations),
        latest,
        tuple(kept_events(history.scale_up_events, now - retention.scale_up_events)),
        tuple(kept_events(history.scale_down_events, now - retention.scale_down_events)),
    )
