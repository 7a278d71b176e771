"""The CRD status the naming and establishing controllers keep (``conditions``)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from podscale.apiserver.customresources.conditions import reconcile_status

JSON = dict[str, Any]
NOW = datetime(2026, 1, 2, tzinfo=UTC)


def _settled(crd: JSON, others: list[JSON], now: datetime = NOW) -> JSON:
    status = reconcile_status(crd, [*others, crd], now)
    return crd if status is None else {**crd, "status": status}


def _condition(crd: JSON, kind: str) -> JSON:
    return next(c for c in crd["status"]["conditions"] if c["type"] == kind)


def test_fresh_crd_is_accepted_and_established(crd_factory: Callable[..., JSON]) -> None:
    crd = _settled(crd_factory(), [])
    assert crd["status"]["acceptedNames"] == {
        "plural": "widgets",
        "singular": "widget",
        "shortNames": ["wd"],
        "kind": "Widget",
        "listKind": "WidgetList",
        "categories": ["all"],
    }
    assert _condition(crd, "NamesAccepted") == {
        "type": "NamesAccepted",
        "status": "True",
        "reason": "NoConflicts",
        "message": "no conflicts found",
        "lastTransitionTime": "2026-01-02T00:00:00Z",
    }
    assert _condition(crd, "Established")["reason"] == "InitialNamesAccepted"
    assert crd["status"]["storedVersions"] == ["v1"]
    # A settled status needs no further write.
    assert reconcile_status(crd, [crd], NOW + timedelta(hours=1)) is None


@pytest.mark.parametrize(
    ("overrides", "reason", "message"),
    [
        ({"kind": "Other"}, "PluralConflict", '"widgets" is already in use'),
        # The kind and its list kind both clash; the last check's reason stands, as upstream.
        (
            {"plural": "others", "kind": "Widget"},
            "ListKindConflict",
            '"WidgetList" is already in use',
        ),
        (
            {"plural": "others", "kind": "Other", "short_names": ("wd",)},
            "ShortNamesConflict",
            '"wd" is already in use',
        ),
    ],
    ids=["plural", "kind", "short-name"],
)
def test_conflicting_names_are_refused(
    crd_factory: Callable[..., JSON], overrides: JSON, reason: str, message: str
) -> None:
    first = _settled(crd_factory(), [])
    names = {"plural": "widgets", "kind": "Widget", "short_names": ()}
    names.update(overrides)
    second = crd_factory(categories=(), **names)
    second["metadata"]["name"] = "second.example.com"
    settled = _settled(second, [first])
    accepted = _condition(settled, "NamesAccepted")
    assert (accepted["status"], accepted["reason"], accepted["message"]) == (
        "False",
        reason,
        message,
    )
    established = _condition(settled, "Established")
    assert (established["status"], established["reason"]) == ("False", "NotAccepted")


def test_other_groups_do_not_conflict(crd_factory: Callable[..., JSON]) -> None:
    first = _settled(crd_factory(), [])
    other = _settled(crd_factory(group="other.io"), [first])
    assert _condition(other, "NamesAccepted")["status"] == "True"


def test_new_storage_version_is_recorded(crd_factory: Callable[..., JSON]) -> None:
    crd = _settled(crd_factory(versions=("v1", "v2")), [])
    crd["spec"]["versions"][0]["storage"] = False
    crd["spec"]["versions"][1]["storage"] = True
    later = _settled(crd, [])
    assert later["status"]["storedVersions"] == ["v1", "v2"]


def test_transition_time_kept_while_status_holds(crd_factory: Callable[..., JSON]) -> None:
    crd = _settled(crd_factory(), [])
    crd["spec"]["names"]["shortNames"] = ["wd", "wdg"]
    later = _settled(crd, [], NOW + timedelta(hours=2))
    assert later["status"]["acceptedNames"]["shortNames"] == ["wd", "wdg"]
    assert _condition(later, "NamesAccepted")["lastTransitionTime"] == "2026-01-02T00:00:00Z"
