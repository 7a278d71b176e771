"""The ``--controllers`` flag and the controller factories (podscale.controllers.registry)."""

from __future__ import annotations

import random

import pytest

from podscale.client.inprocess import InProcessApi
from podscale.controllers.registry import CONTROLLER_NAMES, build_controllers, select_controllers
from podscale.store.memory import MemoryStore
from podscale.testing import FakeClock

ALL = frozenset(CONTROLLER_NAMES)


@pytest.mark.parametrize(
    ("flag", "expected"),
    [
        ("*", ALL),
        ("", frozenset()),
        ("*,-garbagecollector", ALL - {"garbage-collector-controller"}),
        ("-garbage-collector-controller,*", ALL - {"garbage-collector-controller"}),
        ("replicaset", frozenset({"replicaset-controller"})),
        (
            " deployment , replicaset-controller ",
            frozenset({"deployment-controller", "replicaset-controller"}),
        ),
        ("replicaset,-replicaset", frozenset()),
    ],
    ids=["star", "empty", "star-minus-alias", "minus-before-star", "alias", "spaces", "cancel"],
)
def test_select_controllers(flag: str, expected: frozenset[str]) -> None:
    assert select_controllers(flag) == expected


@pytest.mark.parametrize("flag", ["cronjob", "*,-nope"], ids=["unknown", "unknown-disable"])
def test_select_controllers_rejects_unknown_names(flag: str) -> None:
    with pytest.raises(ValueError, match=r"is not in the list of known controllers: "):
        select_controllers(flag)


def test_build_controllers_in_registry_order() -> None:
    clock = FakeClock()
    api = InProcessApi.for_store(MemoryStore(clock), clock)
    enabled = select_controllers("statefulset,replicaset")
    names = [c.name for c in build_controllers(api, clock, random.Random(1), enabled)]
    assert names == ["replicaset", "statefulset"]
    every = build_controllers(api, clock, random.Random(1))
    assert len(every) == len(CONTROLLER_NAMES)
