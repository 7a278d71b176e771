"""Selector watches judge each event by its new state and the state it replaced."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from podscale.apiserver.operations.watch_filter import filter_event
from podscale.store.interface import WatchEvent


def obj(tier: str, rv: int) -> dict[str, Any]:
    return {
        "metadata": {
            "name": "x",
            "namespace": "default",
            "resourceVersion": str(rv),
            "labels": {"tier": tier},
        }
    }


def web(o: dict[str, Any]) -> bool:
    return bool(o["metadata"]["labels"].get("tier") == "web")


def event(kind: str, new: str, old: str | None, *, known: bool = True) -> WatchEvent:
    previous = orjson.dumps(obj(old, 4)) if old is not None else None
    return WatchEvent(kind, obj(new, 5), 5, previous_json=previous, previous_known=known)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kind", "old", "new", "known", "expected"),
    [
        ("ADDED", None, "web", True, "ADDED"),
        ("ADDED", None, "db", True, None),
        ("MODIFIED", "web", "web", True, "MODIFIED"),
        ("MODIFIED", "web", "db", True, "DELETED"),
        ("MODIFIED", "db", "web", True, "ADDED"),
        ("MODIFIED", "db", "db", True, None),
        ("DELETED", "web", "web", True, "DELETED"),
        ("DELETED", "db", "db", True, None),
        ("MODIFIED", None, "web", False, "MODIFIED"),
        ("MODIFIED", None, "db", False, None),
        ("DELETED", None, "web", False, "DELETED"),
    ],
    ids=[
        "created-matching",
        "created-elsewhere",
        "stays-in",
        "leaves",
        "enters",
        "stays-out",
        "deleted-while-matching",
        "deleted-elsewhere",
        "lost-history-matching",
        "lost-history-not-matching",
        "lost-history-deleted",
    ],
)
def test_filter_event(
    kind: str, old: str | None, new: str, known: bool, expected: str | None
) -> None:
    passed = filter_event(event(kind, new, old, known=known), web)
    assert (passed[0] if passed else None) == expected


def test_leaving_sends_the_previous_state_at_the_event_revision() -> None:
    passed = filter_event(event("MODIFIED", "db", "web"), web)
    assert passed is not None
    kind, sent = passed
    assert kind == "DELETED"
    assert sent["metadata"]["labels"] == {"tier": "web"}  # what the client had
    assert sent["metadata"]["resourceVersion"] == "5"  # at the event's revision
