"""``PodMemo`` (``podscale.controllers.hpa.pod_memo``) answers what ``pod_facts`` and
``pod_request`` answer, keeps them per pod object and resourceVersion, and reads a pod
afresh whenever it is another object or another version; its list memo (``all_values``)
keeps a list of the very same objects by identity alone."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import pytest

from podscale.controllers.hpa.pod_memo import PodMemo
from podscale.hpa.pod_facts import pod_facts
from podscale.hpa.pods import pod_request
from podscale.hpa.types import MetricError


def _pod(version: str = "1", *, cpu: str | None = "100m", phase: str = "Running") -> Any:
    resources = {"requests": {"cpu": cpu}} if cpu is not None else {}
    return {
        "metadata": {"name": "p", "resourceVersion": version},
        "spec": {"containers": [{"name": "c", "resources": resources}]},
        "status": {
            "phase": phase,
            "startTime": "2024-05-01T12:00:00Z",
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    }


def test_answers_equal_the_plain_functions_and_are_kept() -> None:
    memo = PodMemo()
    pod = _pod()
    first = memo.facts(pod)
    assert first == pod_facts(pod)
    assert memo.facts(pod) is first  # kept: not extracted again
    assert memo.request(pod, "", "cpu") == pod_request(pod, "", "cpu") == 100
    assert memo.request(pod, "c", "cpu") == 100
    assert memo.request(pod, "", "cpu") == 100  # kept
    assert len(memo) == 3


@pytest.mark.parametrize(
    "change",
    ["another-object", "edited-in-place-new-version"],
)
def test_a_changed_pod_is_read_afresh(change: str) -> None:
    memo = PodMemo()
    pod = _pod("1")
    assert memo.request(pod, "", "cpu") == 100
    kept = memo.facts(pod)
    assert kept is not None
    assert kept.set_aside is None
    if change == "another-object":
        pod = _pod("2", cpu="250m", phase="Pending")
    else:  # not what the informer does, yet the version alone tells the memo
        pod["metadata"]["resourceVersion"] = "2"
        pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "250m"
        pod["status"]["phase"] = "Pending"
    assert memo.request(pod, "", "cpu") == 250
    facts = memo.facts(pod)
    assert facts == pod_facts(pod)
    assert facts is not None
    assert facts.set_aside == ("unready", "pending")


def test_an_equal_pod_of_another_identity_is_not_taken_for_the_kept_one() -> None:
    memo = PodMemo()
    pod = _pod()
    memo.facts(pod)
    twin = _pod()
    assert memo.facts(twin) == memo.facts(pod)
    assert len(memo) == 2  # kept per object


def test_a_failing_request_is_not_kept() -> None:
    memo = PodMemo()
    pod = _pod(cpu=None)
    for _ in range(2):
        with pytest.raises(MetricError, match="missing request for cpu in container c"):
            memo.request(pod, "", "cpu")
    assert len(memo) == 0


def test_the_memo_is_cleared_at_its_limit() -> None:
    memo = PodMemo(limit=3)
    pods = [_pod(str(i)) for i in range(7)]
    for pod in pods:
        assert memo.facts(pod) == pod_facts(pod)
    assert len(memo) <= 3


def test_a_pod_whose_metadata_is_another_mapping_is_versioned_alike() -> None:
    memo = PodMemo()
    pod = _pod("7")
    pod["metadata"] = MappingProxyType(pod["metadata"])
    assert memo.facts(pod) == pod_facts(pod)
    assert memo.request(pod, "", "cpu") == 100
    assert memo.facts(pod) is memo.facts(pod)


@pytest.mark.parametrize(
    ("change", "container", "resource"),
    [
        ("none", "", "cpu"),
        ("another-object", "", "cpu"),
        ("edited-in-place-new-version", "", "cpu"),
        ("none", "c", "cpu"),  # another container asked of the same pod
        ("none", "", "memory"),  # another resource: its request is missing
    ],
    ids=["kept", "another-object", "new-version", "another-container", "another-resource"],
)
def test_values_answer_facts_and_request_and_follow_changes(
    change: str, container: str, resource: str
) -> None:
    memo = PodMemo()
    pod = _pod("1")
    first = memo.values(pod, "", "cpu")
    assert first == (pod_facts(pod), 100)
    if change == "another-object":
        pod = _pod("2", cpu="250m", phase="Pending")
    elif change == "edited-in-place-new-version":
        pod["metadata"]["resourceVersion"] = "2"
        pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "250m"
        pod["status"]["phase"] = "Pending"
    answer = memo.values(pod, container, resource)
    try:
        request: int | None = pod_request(pod, container, resource)
    except MetricError:
        request = None
    assert answer == (pod_facts(pod), request)
    if change == "none" and (container, resource) == ("", "cpu"):
        assert answer is first  # kept: one lookup, nothing extracted again


def test_values_do_not_keep_a_failing_request() -> None:
    memo = PodMemo()
    pod = _pod(cpu=None)
    for _ in range(2):
        assert memo.values(pod, "", "cpu") == (pod_facts(pod), None)
    pod["metadata"]["resourceVersion"] = "2"
    pod["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "300m"}}
    assert memo.values(pod, "", "cpu") == (pod_facts(pod), 300)


def _plain(pods: list[Any], container: str, resource: str) -> list[Any]:
    """``values`` of each pod as the plain functions answer it."""
    answers = []
    for pod in pods:
        try:
            request: int | None = pod_request(pod, container, resource)
        except MetricError:
            request = None
        answers.append((pod_facts(pod), request))
    return answers


@pytest.mark.parametrize(
    "change",
    [
        "none",
        "one-replaced",
        "one-replaced-same-version",
        "one-added",
        "one-dropped",
        "reordered",
        "another-container",
        "another-resource",
        "failing-request",
    ],
)
def test_all_values_answer_values_of_each_and_follow_changes(change: str) -> None:
    memo = PodMemo()
    pods = [_pod(str(i)) for i in range(4)]
    first = memo.all_values(pods, "", "cpu")
    assert list(first) == _plain(pods, "", "cpu")
    container, resource = "", "cpu"
    pods = list(pods)  # another list of the same objects: still kept
    if change == "one-replaced":
        pods[2] = _pod("9", cpu="250m", phase="Pending")
    elif change == "one-replaced-same-version":  # only its identity tells
        pods[2] = _pod("2", cpu="250m", phase="Pending")
    elif change == "one-added":
        pods.append(_pod("5", cpu="300m"))
    elif change == "one-dropped":
        pods.pop()
    elif change == "reordered":
        pods[1], pods[3] = pods[3], pods[1]
    elif change == "another-container":
        container = "c"
    elif change == "another-resource":
        resource = "memory"  # missing: every request None, nothing kept
    elif change == "failing-request":
        pods[3] = _pod("7", cpu=None)
    answers = memo.all_values(pods, container, resource)
    assert list(answers) == _plain(pods, container, resource)
    if change == "none":
        assert answers is first  # kept: nothing looked up again
    again = memo.all_values(pods, container, resource)
    assert list(again) == _plain(pods, container, resource)


def test_all_values_keep_a_list_of_the_same_objects_by_identity_alone() -> None:
    # The list memo's contract: the informer never edits a cached pod, so the very same
    # objects are the same pods and none is read again; the per-pod memo (``values``)
    # still reads a pod's version when the list changed.
    memo = PodMemo()
    pods = [_pod(str(i)) for i in range(3)]
    first = memo.all_values(pods, "", "cpu")
    pods[1]["metadata"]["resourceVersion"] = "8"
    pods[1]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "250m"
    assert memo.all_values(list(pods), "", "cpu") is first
    pods.append(_pod("5", cpu="300m"))
    assert list(memo.all_values(pods, "", "cpu")) == _plain(pods, "", "cpu")


def test_all_values_of_no_pods_and_of_unusual_metadata() -> None:
    memo = PodMemo()
    assert list(memo.all_values([], "", "cpu")) == []
    pod = _pod("3")
    pod["metadata"] = MappingProxyType(pod["metadata"])
    for _ in range(2):
        assert list(memo.all_values([pod], "", "cpu")) == _plain([pod], "", "cpu")


def test_kept_lists_are_cleared_at_the_limit() -> None:
    memo = PodMemo(limit=2)
    for i in range(5):
        pods = [_pod(str(i))]
        assert list(memo.all_values(pods, "", "cpu")) == _plain(pods, "", "cpu")
    assert len(memo) <= 4 * 2  # each of its four tables
