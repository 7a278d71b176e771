"""``compare`` keeps what two lists compared to, by their bytes, and replays it exactly.

A list pair met again (a condition flipping back and forth) is not walked again: the paths
it added, modified and removed are inserted below wherever the pair now sits. The replay
must be what the general walk (``shortcuts=False``) finds, at any path; a pair whose
walk failed is never kept (its error names its path); pairs equal to Python but not in
JSON (``1``, ``1.0``, ``true``) are different pairs.
"""

from __future__ import annotations

from typing import Any

import pytest

from podscale.apiserver.fieldmanager import type_for
from podscale.apiserver.fieldmanager.compare import compare

JSON = dict[str, Any]
_STR: JSON = {"type": "string"}
_CONDITIONS: JSON = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"type": _STR, "status": _STR, "count": {"type": "integer"}},
    },
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": ["type"],
}
TYPE = type_for(
    {
        "type": "object",
        "properties": {
            "status": {"type": "object", "properties": {"conditions": _CONDITIONS}},
            "spec": {"type": "object", "properties": {"conditions": _CONDITIONS}},
        },
    }
)


def _at(where: str, conditions: Any) -> JSON:
    return {where: {"conditions": conditions}}


def _outcome(old: JSON, new: JSON, *, shortcuts: bool) -> Any:
    try:
        diff = compare(old, new, TYPE, shortcuts=shortcuts)
    except ValueError as err:
        return ("error", str(err))
    return tuple(s.to_fields_v1() for s in (diff.added, diff.modified, diff.removed))


_READY = {"type": "Ready", "status": "True"}
_NOT_READY = {"type": "Ready", "status": "False"}
_ABLE = {"type": "Able", "status": "True"}


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ([_READY, _ABLE], [_NOT_READY, _ABLE]),
        ([_NOT_READY, _ABLE], [_READY, _ABLE]),
        ([_READY], [_READY, _ABLE]),
        ([_READY, _ABLE], [_ABLE]),
        ([_READY, {"type": "Able", "count": 1}], [_READY, {"type": "Able", "count": 1.0}]),
        ([_READY, {"type": "Able", "count": 1}], [_READY, {"type": "Able", "count": True}]),
        ([_READY], [_READY, {"status": "x"}]),
        ([_READY], [_READY, "x"]),
    ],
    ids=[
        "flip",
        "flip-back",
        "item-added",
        "item-removed",
        "1-then-1.0",
        "1-then-true",
        "item-without-key-fails",
        "item-not-a-map-fails",
    ],
)
@pytest.mark.parametrize("where", ["status", "spec"])
def test_a_pair_met_again_is_what_the_general_walk_finds(
    before: list[Any], after: list[Any], where: str
) -> None:
    old, new = _at(where, before), _at(where, after)
    general = _outcome(old, new, shortcuts=False)
    # First walked (and kept, unless it failed), then met again at the same place and at
    # the other: the same changes, under the right parent, or the same error.
    assert _outcome(old, new, shortcuts=True) == general
    assert _outcome(old, new, shortcuts=True) == general
    other = "spec" if where == "status" else "status"
    moved_old, moved_new = _at(other, before), _at(other, after)
    assert _outcome(moved_old, moved_new, shortcuts=True) == _outcome(
        moved_old, moved_new, shortcuts=False
    )


def test_a_changed_pair_is_walked_afresh() -> None:
    old, new = _at("status", [_READY, _ABLE]), _at("status", [_NOT_READY, _ABLE])
    _outcome(old, new, shortcuts=True)
    changed = _at("status", [_NOT_READY, {"type": "Able", "status": "False"}])
    assert _outcome(old, changed, shortcuts=True) == _outcome(old, changed, shortcuts=False)
    added, modified, removed = _outcome(old, changed, shortcuts=True)
    assert modified == {
        "f:status": {
            "f:conditions": {
                'k:{"type":"Able"}': {"f:status": {}},
                'k:{"type":"Ready"}': {"f:status": {}},
            }
        }
    }
    assert added == removed == {}
