"""The three-way strategic merge patch of client-side apply, and the last-applied record.

The expected patches follow the shapes real kubectl sent for the same edits (kubectl-wire.md
§5, apply); the property test checks that applying the patch with the server's own strategic
merge yields the manifest wherever the manifest speaks.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.apiserver.patch.schema import schema_for
from podscale.apiserver.patch.strategic import apply_strategic_patch
from podscale.cli.apply import LAST_APPLIED, annotate_last_applied
from podscale.cli.apply_patch import create_three_way_patch

JSON = dict[str, Any]


def _rs(containers: list[JSON], replicas: int | None = 2, labels: JSON | None = None) -> JSON:
    spec: JSON = {
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": containers}},
    }
    if replicas is not None:
        spec["replicas"] = replicas
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": "web", "labels": labels or {"app": "web"}},
        "spec": spec,
    }


WEB = {"name": "web", "image": "nginx:1.25"}
WEB_FULL = {
    "name": "web",
    "image": "nginx:1.25",
    "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
    "ports": [{"containerPort": 80}, {"containerPort": 8080}],
}


def _live(manifest: JSON) -> JSON:
    """The manifest as stored: server defaults added (which apply must leave alone)."""
    live = copy.deepcopy(manifest)
    live["metadata"]["uid"] = "u1"
    for container in live["spec"]["template"]["spec"]["containers"]:
        container["imagePullPolicy"] = "IfNotPresent"
    live["status"] = {"replicas": 0}
    return live


@pytest.mark.parametrize(
    ("original", "modified", "expected"),
    [
        (_rs([WEB]), _rs([WEB]), {}),
        (
            _rs([WEB]),
            _rs([{"name": "web", "image": "nginx:1.26"}], replicas=4),
            {
                "spec": {
                    "replicas": 4,
                    "template": {
                        "spec": {
                            "$setElementOrder/containers": [{"name": "web"}],
                            "containers": [{"image": "nginx:1.26", "name": "web"}],
                        }
                    },
                }
            },
        ),
        (
            _rs([WEB_FULL, {"name": "side", "image": "busybox"}], labels={"app": "web", "t": "x"}),
            _rs(
                [{**WEB_FULL, "env": [WEB_FULL["env"][1]], "ports": [WEB_FULL["ports"][1]]}],
                replicas=None,
            ),
            {
                "metadata": {"labels": {"t": None}},
                "spec": {
                    "replicas": None,
                    "template": {
                        "spec": {
                            "$setElementOrder/containers": [{"name": "web"}],
                            "containers": [
                                {
                                    "name": "web",
                                    "$setElementOrder/env": [{"name": "B"}],
                                    "env": [{"$patch": "delete", "name": "A"}],
                                    "$setElementOrder/ports": [{"containerPort": 8080}],
                                    "ports": [{"$patch": "delete", "containerPort": 80}],
                                },
                                {"$patch": "delete", "name": "side"},
                            ],
                        }
                    },
                },
            },
        ),
    ],
    ids=["unchanged", "image-and-replicas", "removals-per-merge-key"],
)
def test_three_way_patch(original: JSON, modified: JSON, expected: JSON) -> None:
    assert create_three_way_patch(original, modified, _live(original)) == expected


def test_fields_others_set_are_kept_and_fields_removed_by_others_restored() -> None:
    manifest = _rs([WEB])
    live = _live(manifest)
    live["metadata"]["labels"]["extra"] = "controller"
    del live["spec"]["replicas"]
    patch = create_three_way_patch(manifest, manifest, live)
    assert patch == {"spec": {"replicas": 2}}


def test_without_last_applied_nothing_is_deleted() -> None:
    live = _live(_rs([WEB], labels={"app": "web", "t": "x"}))
    assert create_three_way_patch(None, _rs([WEB]), live) == {}


def test_finalizers_merge_as_a_set() -> None:
    original = {"apiVersion": "v1", "kind": "Pod", "metadata": {"finalizers": ["a", "b"]}}
    modified = {"apiVersion": "v1", "kind": "Pod", "metadata": {"finalizers": ["b", "c"]}}
    patch = create_three_way_patch(original, modified, copy.deepcopy(original))
    assert patch == {
        "metadata": {
            "finalizers": ["c"],
            "$deleteFromPrimitiveList/finalizers": ["a"],
            "$setElementOrder/finalizers": ["b", "c"],
        }
    }


_images = st.sampled_from(["nginx:1.25", "nginx:1.26", "busybox"])
_envs = st.lists(st.sampled_from(["A", "B", "C"]), unique=True, max_size=3).map(
    lambda names: [{"name": n, "value": n.lower()} for n in names]
)
_containers = st.lists(
    st.tuples(st.sampled_from(["web", "side", "log"]), _images, _envs),
    unique_by=lambda c: c[0],
    min_size=1,
    max_size=3,
).map(lambda items: [{"name": n, "image": i, "env": e} for n, i, e in items])


@given(
    before=_containers,
    after=_containers,
    replicas=st.one_of(st.none(), st.integers(0, 5)),
)
def test_patching_live_yields_the_manifest(
    before: list[JSON], after: list[JSON], replicas: int | None
) -> None:
    original = _rs(before)
    modified = _rs(after, replicas=replicas)
    live = _live(original)
    patch = create_three_way_patch(original, modified, live)
    result = apply_strategic_patch(live, patch, schema_for("apps/v1", "ReplicaSet"))
    containers = result["spec"]["template"]["spec"]["containers"]
    assert [c["name"] for c in containers] == [c["name"] for c in after]
    for got, wanted in zip(containers, after, strict=True):
        assert got["image"] == wanted["image"]
        assert got.get("env", []) == wanted["env"]
        if any(c["name"] == got["name"] for c in before):
            assert got["imagePullPolicy"] == "IfNotPresent"  # server defaults survive
    assert result["spec"].get("replicas") == replicas


def test_annotate_last_applied_records_the_manifest_like_kubectl() -> None:
    manifest = {"kind": "ReplicaSet", "metadata": {"name": "web", "annotations": {"x": "<y>"}}}
    annotated = annotate_last_applied(manifest, "default")
    recorded = annotated["metadata"]["annotations"][LAST_APPLIED]
    assert recorded == (
        '{"kind":"ReplicaSet","metadata":{"annotations":{"x":"\\u003cy\\u003e"},'
        '"name":"web","namespace":"default"}}\n'
    )
    assert json.loads(recorded)["metadata"]["annotations"] == {"x": "<y>"}
    assert manifest["metadata"] == {"name": "web", "annotations": {"x": "<y>"}}  # not mutated
    again = annotate_last_applied(annotated, "default")
    assert again["metadata"]["annotations"][LAST_APPLIED] == recorded
