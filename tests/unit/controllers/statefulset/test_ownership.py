"""Claiming: only members (``<set>-<ordinal>``) matching the selector are adopted or kept."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from podscale.controllers.statefulset.ownership import (
    adoption_patch,
    claim_action,
    release_patch,
)
from podscale.hpa.conditions import format_time

from .builders import NOW, make_pod, make_sts

JSON = dict[str, Any]


def orphan(pod: JSON) -> None:
    del pod["metadata"]["ownerReferences"]


def rename(name: str) -> Callable[[JSON], None]:
    return lambda pod: pod["metadata"].update({"name": name})


def relabel(pod: JSON) -> None:
    pod["metadata"]["labels"]["app"] = "other"


def other_owner(pod: JSON) -> None:
    pod["metadata"]["ownerReferences"][0]["uid"] = "someone-else"


def terminating(pod: JSON) -> None:
    pod["metadata"]["deletionTimestamp"] = format_time(NOW)


def elsewhere(pod: JSON) -> None:
    pod["metadata"]["namespace"] = "other"


@pytest.mark.parametrize(
    ("changes", "set_deleting", "expected"),
    [
        ((), False, "keep"),
        ((orphan,), False, "adopt"),
        ((orphan, rename("web-x")), False, "ignore"),
        ((orphan, rename("db-0")), False, "ignore"),
        ((orphan, relabel), False, "ignore"),
        ((orphan, terminating), False, "ignore"),
        ((orphan, elsewhere), False, "ignore"),
        ((orphan,), True, "ignore"),
        ((relabel,), False, "release"),
        ((rename("db-0"),), False, "release"),
        ((relabel,), True, "ignore"),
        ((), True, "keep"),
        ((other_owner,), False, "ignore"),
    ],
    ids=[
        "owned",
        "orphan-member",
        "orphan-not-a-member",
        "orphan-of-other-name",
        "orphan-not-selected",
        "orphan-terminating",
        "orphan-other-namespace",
        "set-deleting-adopts-nothing",
        "owned-unselected",
        "owned-renamed",
        "set-deleting-releases-nothing",
        "set-deleting-keeps",
        "other-controller",
    ],
)
def test_claim_action(
    changes: tuple[Callable[[JSON], None], ...], set_deleting: bool, expected: str
) -> None:
    sts = make_sts()
    if set_deleting:
        sts["metadata"]["deletionTimestamp"] = format_time(NOW)
    pod = make_pod(sts, 1)
    for change in changes:
        change(pod)
    assert claim_action(sts, pod) == expected


def test_patches_carry_the_owner_and_the_pod_uid() -> None:
    sts = make_sts()
    pod = make_pod(sts, 0)
    adopt = adoption_patch(sts, pod)
    assert adopt["metadata"]["uid"] == "pod-0"
    assert adopt["metadata"]["ownerReferences"][0]["kind"] == "StatefulSet"
    assert adopt["metadata"]["ownerReferences"][0]["controller"] is True
    assert release_patch(sts, pod) == {
        "metadata": {"ownerReferences": [{"$patch": "delete", "uid": "sts-uid"}], "uid": "pod-0"}
    }
