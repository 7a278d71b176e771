"""Field selector parsing and the list/watch predicate built from query parameters."""

from __future__ import annotations

from typing import Any

import pytest

from podscale.api.kinds import resource_for
from podscale.apiserver.errors import ApiError
from podscale.apiserver.operations.selectors import (
    FieldRequirement,
    build_predicate,
    parse_field_selector,
)

PODS = resource_for("", "v1", "pods")
EVENTS = resource_for("", "v1", "events")
NODES = resource_for("", "v1", "nodes")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", []),
        ("a=b", [FieldRequirement("a", "b")]),
        ("a==b,c!=d", [FieldRequirement("a", "b"), FieldRequirement("c", "d", negated=True)]),
        (r"a=x\,y", [FieldRequirement("a", "x,y")]),
        ("a=", [FieldRequirement("a", "")]),
    ],
    ids=["empty", "equals", "double-equals-and-not", "escaped-comma", "empty-value"],
)
def test_parse_field_selector(text: str, expected: list[FieldRequirement]) -> None:
    assert parse_field_selector(text) == expected


def test_parse_field_selector_without_operator_is_400() -> None:
    with pytest.raises(ApiError) as err:
        parse_field_selector("a=b,oops")
    assert err.value.code == 400
    assert err.value.status["message"] == "invalid selector: 'a=b,oops'; can't understand 'oops'"


def _pod(name: str, phase: str, labels: dict[str, str]) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": "ns", "labels": labels},
        "status": {"phase": phase},
    }


def test_no_selector_means_no_predicate() -> None:
    assert build_predicate(PODS, {}) == (None, False)


def test_label_and_field_selectors_combine() -> None:
    predicate, has_selector = build_predicate(
        PODS, {"labelSelector": "app in (a,b),!canary", "fieldSelector": "status.phase=Running"}
    )
    assert has_selector
    assert predicate is not None
    assert predicate(_pod("x", "Running", {"app": "a"}))
    assert not predicate(_pod("x", "Pending", {"app": "a"}))
    assert not predicate(_pod("x", "Running", {"app": "a", "canary": "1"}))
    assert not predicate(_pod("x", "Running", {"app": "c"}))


@pytest.mark.parametrize(
    ("info", "selector", "ok"),
    [
        (EVENTS, "involvedObject.uid=u1", True),
        (EVENTS, "source=kubelet", True),
        (EVENTS, "status.phase=Running", False),
        (NODES, "spec.unschedulable=false", True),
        (NODES, "spec.nodeName=x", False),
    ],
    ids=["event-uid", "event-source", "event-phase", "node-unschedulable", "node-nodename"],
)
def test_supported_field_labels_per_kind(info: Any, selector: str, ok: bool) -> None:
    if ok:
        build_predicate(info, {"fieldSelector": selector})
        return
    with pytest.raises(ApiError) as err:
        build_predicate(info, {"fieldSelector": selector})
    field = selector.split("=")[0]
    assert err.value.status["message"] == f"field label not supported: {field}"


def test_event_source_and_unset_bool_fields() -> None:
    predicate, _ = build_predicate(EVENTS, {"fieldSelector": "source=kubelet"})
    assert predicate is not None
    assert predicate({"metadata": {}, "source": {"component": "kubelet"}})
    node_predicate, _ = build_predicate(NODES, {"fieldSelector": "spec.unschedulable=false"})
    assert node_predicate is not None
    assert node_predicate({"metadata": {"name": "n"}, "spec": {}})


def test_bad_label_selector_is_400() -> None:
    with pytest.raises(ApiError) as err:
        build_predicate(PODS, {"labelSelector": "a in"})
    assert err.value.code == 400
