"""The memos of ``sync.SyncMemo`` equal the general path. ``replicasets.StateMemo`` reads a
ReplicaSet exactly as ``replica_set_state`` does: per ``(uid, resourceVersion)``,
recomputed when the version moves, never for local dicts. ``revisions.NewReplicaSetMemo``
answers as ``find_new_replica_set`` and reuses an answer only for the identical dicts."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.deployment.hashing import POD_TEMPLATE_HASH_LABEL
from podscale.controllers.deployment.replicasets import StateMemo, replica_set_state
from podscale.controllers.deployment.revisions import NewReplicaSetMemo, find_new_replica_set

JSON = dict[str, Any]

_counts = st.integers(min_value=0, max_value=20)
_times = st.sampled_from(["2026-01-01T00:00:00Z", "2026-01-01T00:00:05Z", "", None])


@st.composite
def _replica_set_content(draw: st.DrawFn, name: str, uid: str) -> JSON:
    """A ReplicaSet body as the server stores it (every field the state reads varies)."""
    meta: JSON = {"name": name, "uid": uid, "generation": draw(st.integers(0, 5))}
    created = draw(_times)
    if created is not None:
        meta["creationTimestamp"] = created
    if draw(st.booleans()):
        meta["deletionTimestamp"] = "2026-01-01T00:01:00Z"
    meta["annotations"] = draw(
        st.dictionaries(st.sampled_from(["a", "deployment.kubernetes.io/revision"]), st.text())
    )
    status: JSON = {
        "replicas": draw(_counts),
        "readyReplicas": draw(_counts),
        "availableReplicas": draw(_counts),
        "observedGeneration": draw(st.integers(0, 5)),
    }
    if draw(st.booleans()):
        status["conditions"] = [{"type": "ReplicaFailure", "status": "True"}]
    spec: JSON = {}
    replicas = draw(st.one_of(st.none(), _counts))
    if replicas is not None:
        spec["replicas"] = replicas
    return {"metadata": meta, "spec": spec, "status": status}


def _versioned(content: JSON, version: str | None) -> JSON:
    meta = dict(content["metadata"])
    if version is not None:
        meta["resourceVersion"] = version
    return {**content, "metadata": meta}


@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b"]), st.integers(1, 4), st.data()),
        min_size=1,
        max_size=12,
    )
)
def test_memo_equals_the_general_read_over_any_sequence_of_versions(
    reads: list[tuple[str, int, st.DataObject]],
) -> None:
    # The server's promise the memo relies on: one (uid, resourceVersion), one content.
    memo = StateMemo()
    stored: dict[tuple[str, int], JSON] = {}
    for uid, version, data in reads:
        if (uid, version) not in stored:
            content = data.draw(_replica_set_content(f"rs-{uid}", uid))
            stored[uid, version] = _versioned(content, str(version))
        rs = stored[uid, version]
        assert memo.state(rs) == replica_set_state(rs)


def test_a_new_resource_version_is_read_again() -> None:
    memo = StateMemo()
    first = {"metadata": {"name": "x", "uid": "u", "resourceVersion": "1"}, "spec": {"replicas": 1}}
    second = {
        "metadata": {"name": "x", "uid": "u", "resourceVersion": "2"},
        "spec": {"replicas": 5},
    }
    assert memo.state(first).replicas == 1
    assert memo.state(first) is memo.state(first)  # remembered
    assert memo.state(second).replicas == 5  # invalidated by the version
    assert memo.state(second) == replica_set_state(second)
    assert len(memo) == 1


@pytest.mark.parametrize(
    "metadata",
    [
        {"name": "x", "uid": "u"},
        {"name": "x", "resourceVersion": "1"},
        {"name": "x", "uid": "", "resourceVersion": "1"},
        {"name": "x", "uid": "u", "resourceVersion": ""},
    ],
    ids=["no-version", "no-uid", "empty-uid", "empty-version"],
)
def test_local_dicts_are_never_remembered(metadata: JSON) -> None:
    memo = StateMemo()
    rs: JSON = {"metadata": metadata, "spec": {"replicas": 2}}
    assert memo.state(rs) == replica_set_state(rs)
    rs["spec"]["replicas"] = 3  # a local dict may change: it is read again
    assert memo.state(rs).replicas == 3
    assert len(memo) == 0


def test_forget_drops_a_deleted_replica_set() -> None:
    memo = StateMemo()
    rs = {"metadata": {"name": "x", "uid": "u", "resourceVersion": "7"}}
    memo.state(rs)
    memo.forget("u")
    memo.forget("never-seen")
    assert len(memo) == 0


def _rs(name: str, created: str, image: str, version: str = "1") -> JSON:
    return {
        "metadata": {
            "name": name,
            "uid": f"uid-{name}",
            "resourceVersion": version,
            "creationTimestamp": created,
        },
        "spec": {
            "template": {
                "metadata": {"labels": {"app": "web", POD_TEMPLATE_HASH_LABEL: name}},
                "spec": {"containers": [{"name": "c", "image": image}]},
            }
        },
    }


@pytest.mark.parametrize(
    ("image", "expected"),
    [("nginx:1", "older"), ("nginx:2", "newest"), ("nginx:3", None)],
    ids=["two-match-oldest-wins", "one-match", "none"],
)
def test_find_new_replica_set_with_the_memo_equals_the_general_read(
    image: str, expected: str | None
) -> None:
    template = {
        "metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": image}]},
    }
    replica_sets = [
        _rs("newer", "2026-01-01T00:00:09Z", "nginx:1"),
        _rs("older", "2026-01-01T00:00:01Z", "nginx:1"),
        _rs("newest", "2026-01-01T00:00:20Z", "nginx:2"),
    ]
    memo = StateMemo()
    for _ in range(2):  # the second round reads from the memo
        general = find_new_replica_set(template, replica_sets)
        memoized = find_new_replica_set(template, replica_sets, state_of=memo.state)
        assert memoized is general
        assert (None if general is None else general["metadata"]["name"]) == expected


def _template(image: str) -> JSON:
    return {
        "metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": image}]},
    }


def test_new_replica_set_memo_reuses_an_answer_only_for_the_identical_dicts() -> None:
    memo = NewReplicaSetMemo()
    template = _template("nginx:1")
    older = _rs("older", "2026-01-01T00:00:01Z", "nginx:1")
    newer = _rs("newer", "2026-01-01T00:00:09Z", "nginx:2")
    replica_sets = [older, newer]
    first = memo.find("d", template, replica_sets)
    assert first is older
    assert memo.find("d", template, [older, newer]) is older  # the same objects: reused
    # A new version of a ReplicaSet (a new dict) is looked at again, even if only its
    # template changed, so is a new template, a list of another length or order.
    rolled = _rs("older", "2026-01-01T00:00:01Z", "nginx:3", version="2")
    assert memo.find("d", template, [rolled, newer]) is None
    assert memo.find("d", _template("nginx:2"), [rolled, newer]) is newer
    assert memo.find("d", _template("nginx:2"), [rolled]) is None
    flipped = [newer, older]
    assert memo.find("d", template, flipped) is find_new_replica_set(template, flipped)
    assert len(memo) == 1


@pytest.mark.parametrize("uid", [None, ""], ids=["no-uid", "empty-uid"])
def test_new_replica_set_memo_needs_a_deployment_uid(uid: str | None) -> None:
    memo = NewReplicaSetMemo()
    template = _template("nginx:1")
    replica_sets = [_rs("only", "2026-01-01T00:00:01Z", "nginx:1")]
    assert memo.find(uid, template, replica_sets) is replica_sets[0]
    template["spec"]["containers"][0]["image"] = "nginx:9"  # a local dict may change
    assert memo.find(uid, template, replica_sets) is None
    assert len(memo) == 0


def test_new_replica_set_memo_forgets_a_deleted_deployment() -> None:
    memo = NewReplicaSetMemo()
    memo.find("d", _template("nginx:1"), [])
    memo.forget("d")
    memo.forget("never-seen")
    assert len(memo) == 0
