"""The WebApp operator's pure decisions: the owned ReplicaSet, its patch, the status."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.selector_parser import parse_selector
from podscale.api.selectors import selector_from_label_selector
from podscale.controllers.webapp.decisions import (
    desired_replica_set,
    desired_status,
    is_controlled_by,
    not_owned_message,
    replica_set_patch,
    selector_string,
)
from podscale.controllers.webapp.kind import CRD_NAME, NAME_LABEL, WEBAPP, definition

JSON = dict[str, Any]


def webapp(replicas: int | None = 3, generation: int = 2, **spec: Any) -> JSON:
    body: JSON = {"image": "nginx:1", **spec}
    if replicas is not None:
        body["replicas"] = replicas
    return {
        "apiVersion": "examples.podscale.dev/v1alpha1",
        "kind": "WebApp",
        "metadata": {"name": "web", "namespace": "shop", "uid": "u-1", "generation": generation},
        "spec": body,
    }


def stored(rs: JSON) -> JSON:
    """``rs`` as the API server keeps it: container defaults added to the template."""
    container = rs["spec"]["template"]["spec"]["containers"][0]
    container.update(imagePullPolicy="IfNotPresent", terminationMessagePath="/dev/termination-log")
    rs["spec"]["template"]["spec"]["restartPolicy"] = "Always"
    return rs


def test_the_replica_set_is_owned_sized_and_labelled() -> None:
    rs = desired_replica_set(webapp(port=8080, resources={"requests": {"cpu": "0.5"}}))
    assert rs["metadata"]["name"] == "web"
    assert rs["metadata"]["namespace"] == "shop"
    assert rs["metadata"]["ownerReferences"] == [
        {
            "apiVersion": "examples.podscale.dev/v1alpha1",
            "kind": "WebApp",
            "name": "web",
            "uid": "u-1",
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    assert rs["spec"]["replicas"] == 3
    selector = selector_from_label_selector(rs["spec"]["selector"])
    assert selector.matches(rs["spec"]["template"]["metadata"]["labels"])
    (container,) = rs["spec"]["template"]["spec"]["containers"]
    assert container == {
        "name": "app",
        "image": "nginx:1",
        "ports": [{"containerPort": 8080, "protocol": "TCP"}],
        # Canonical, as stored, so that comparing with the stored template finds no change.
        "resources": {"requests": {"cpu": "500m"}},
    }


def test_replicas_missing_reads_as_the_crd_default() -> None:
    assert desired_replica_set(webapp(replicas=None))["spec"]["replicas"] == 1


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({}, None),
        ({"replicas": 5}, {"spec": {"replicas": 5}}),
        ({"image": "nginx:2"}, "template"),
        ({"port": 80}, "template"),
    ],
    ids=["unchanged", "replicas", "image", "port-added"],
)
def test_patch_only_what_differs(change: JSON, expected: JSON | str | None) -> None:
    current = stored(desired_replica_set(webapp()))
    wanted = webapp()
    wanted["spec"].update(change)
    patch = replica_set_patch(wanted, current)
    if expected == "template":
        assert patch is not None
        assert set(patch["spec"]) == {"template"}
        assert patch["spec"]["template"] == desired_replica_set(wanted)["spec"]["template"]
    else:
        assert patch == expected


def test_a_removed_field_rewrites_the_template() -> None:
    current = stored(desired_replica_set(webapp(port=80)))
    patch = replica_set_patch(webapp(), current)
    assert patch is not None
    assert "ports" not in patch["spec"]["template"]["spec"]["containers"][0]


@given(st.integers(min_value=0, max_value=1000), st.integers(min_value=0, max_value=1000))
def test_a_patched_replica_set_needs_no_further_patch(start: int, target: int) -> None:
    current = stored(desired_replica_set(webapp(replicas=start)))
    patch = replica_set_patch(webapp(replicas=target), current)
    if patch is not None:
        current["spec"].update(patch["spec"])
    assert replica_set_patch(webapp(replicas=target), current) is None


@pytest.mark.parametrize(
    ("rs_status", "replicas", "ready"),
    [(None, 0, 0), ({}, 0, 0), ({"replicas": 4, "readyReplicas": 3}, 4, 3)],
    ids=["no-replica-set", "no-status-yet", "reported"],
)
def test_status_follows_the_replica_set(rs_status: JSON | None, replicas: int, ready: int) -> None:
    rs = None if rs_status is None else {"status": rs_status}
    status = desired_status(webapp(), rs)
    assert status == {
        "replicas": replicas,
        "readyReplicas": ready,
        "selector": f"{NAME_LABEL}=web",
        "observedGeneration": 2,
    }


def test_the_status_selector_selects_the_pods() -> None:
    app = webapp()
    template = desired_replica_set(app)["spec"]["template"]
    assert parse_selector(selector_string(app)).matches(template["metadata"]["labels"])


@pytest.mark.parametrize(
    ("refs", "controlled"),
    [
        ([], False),
        ([{"uid": "u-1", "controller": True}], True),
        ([{"uid": "u-1"}], False),
        ([{"uid": "other", "controller": True}], False),
    ],
    ids=["orphan", "controller", "owner-not-controller", "other-controller"],
)
def test_is_controlled_by(refs: list[JSON], controlled: bool) -> None:
    rs = {"metadata": {"ownerReferences": refs}}
    assert is_controlled_by(rs, webapp()) is controlled


def test_not_owned_message_names_both() -> None:
    assert not_owned_message(webapp()) == (
        'ReplicaSet "web" already exists and is not controlled by WebApp "web"'
    )


def test_the_shipped_crd_matches_the_kind() -> None:
    crd = definition()
    assert crd["metadata"]["name"] == CRD_NAME
    names = crd["spec"]["names"]
    assert (crd["spec"]["group"], names["kind"], names["plural"]) == (
        WEBAPP.group,
        WEBAPP.kind,
        WEBAPP.plural,
    )
    (version,) = crd["spec"]["versions"]
    assert version["name"] == WEBAPP.version
    assert version["subresources"]["scale"]["labelSelectorPath"] == ".status.selector"
    assert [c["name"] for c in version["additionalPrinterColumns"]] == [
        "Desired",
        "Ready",
        "Image",
        "Age",
    ]


LOAD = "load.podscale.dev/v1alpha1"


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        ({}, {LOAD: "x"}, {LOAD: "x"}),
        ({LOAD: "x"}, {LOAD: "y"}, {LOAD: "y"}),
        ({LOAD: "x"}, {}, {LOAD: None}),
        ({}, {"other.example/a": "b"}, None),
    ],
    ids=["added", "changed", "removed", "not-passed-on"],
)
def test_load_annotations_pass_on_to_the_replica_set(
    before: dict[str, str], after: dict[str, str], expected: dict[str, str | None] | None
) -> None:
    old, new = webapp(), webapp()
    old["metadata"]["annotations"] = before
    new["metadata"]["annotations"] = after
    current = stored(desired_replica_set(old))
    patch = replica_set_patch(new, current)
    if expected is None:
        assert patch is None
    else:
        assert patch == {"metadata": {"annotations": expected}}
