"""``set_node_ready`` against the plain rule it implements: a deep copy with its Ready
condition replaced, the input left as it was (it copies only the path it writes)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import pytest

from podscale.api.json_copy import copy_json
from podscale.runtime.simulated.node_objects import _ready_condition, node, set_node_ready
from podscale.runtime.simulated.nodes import _with_host_details

T0 = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
LATER = T0 + timedelta(minutes=5)


def reference_set_node_ready(node_obj: dict[str, Any], ready: bool, now: datetime) -> Any:
    """The rule on a deep copy of the whole node (what ``set_node_ready`` once did)."""
    changed = copy_json(node_obj)
    status = changed.setdefault("status", {})
    conditions = status.get("conditions") or []
    kept = [c for c in conditions if c.get("type") != "Ready"]
    previous = next((c for c in conditions if c.get("type") == "Ready"), None)
    condition = _ready_condition(ready, now)
    if previous is not None and previous.get("status") == condition["status"]:
        condition["lastTransitionTime"] = previous.get("lastTransitionTime")
    status["conditions"] = [*kept, condition]
    return changed


def _with_conditions(conditions: list[dict[str, Any]]) -> dict[str, Any]:
    built = node("n1", now=T0)
    built["status"]["conditions"] = conditions
    return built


def _no_status() -> dict[str, Any]:
    built = node("n1", now=T0)
    del built["status"]
    return built


PRESSURE = {"type": "MemoryPressure", "status": "False", "reason": "KubeletHasSufficientMemory"}
CASES = [
    (_with_host_details(node("n1", now=T0), 0), True),
    (_with_host_details(node("n1", now=T0), 0), False),
    (set_node_ready(node("n1", now=T0), False, T0), True),
    (set_node_ready(node("n1", now=T0), False, T0), False),
    (_with_conditions([PRESSURE, *node("n1", now=T0)["status"]["conditions"]]), True),
    (_with_conditions([]), True),
    (_no_status(), False),
]
IDS = [
    "heartbeat",
    "lost",
    "back-from-unknown",
    "still-unknown",
    "other-conditions-kept",
    "no-conditions",
    "no-status",
]


@pytest.mark.parametrize(("node_obj", "ready"), CASES, ids=IDS)
def test_set_node_ready_equals_the_rule_on_a_deep_copy(
    node_obj: dict[str, Any], ready: bool
) -> None:
    before = orjson.dumps(node_obj)
    got = set_node_ready(node_obj, ready, LATER)
    expected = reference_set_node_ready(node_obj, ready, LATER)
    assert orjson.dumps(got) == orjson.dumps(expected)  # same content, same key order
    assert orjson.dumps(node_obj) == before  # the input is untouched
    # A later change of the input's written path (the next heartbeat's) does not reach it.
    if "status" in node_obj:
        node_obj["status"]["conditions"] = []
        assert orjson.dumps(got) == orjson.dumps(expected)
