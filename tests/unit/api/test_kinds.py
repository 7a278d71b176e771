"""The kind registry against what ``kubectl api-resources`` reports on a v1.35 cluster."""

from __future__ import annotations

import pytest

from podscale.api.kind_discovery import find_resource, preferred_version, served_group_versions
from podscale.api.kinds import (
    ALL_VERBS,
    KindInfo,
    all_kinds,
    is_built_in,
    kind_for,
    resource_for,
)

# (apiVersion, kind, plural, short names, namespaced, categories)
DISCOVERY_ROWS = [
    ("v1", "Pod", "pods", ("po",), True, ("all",)),
    ("v1", "Node", "nodes", ("no",), False, ()),
    ("v1", "Namespace", "namespaces", ("ns",), False, ()),
    ("v1", "Event", "events", ("ev",), True, ()),
    ("apps/v1", "ReplicaSet", "replicasets", ("rs",), True, ("all",)),
    ("apps/v1", "Deployment", "deployments", ("deploy",), True, ("all",)),
    ("apps/v1", "StatefulSet", "statefulsets", ("sts",), True, ("all",)),
    (
        "autoscaling/v2",
        "HorizontalPodAutoscaler",
        "horizontalpodautoscalers",
        ("hpa",),
        True,
        ("all",),
    ),
    (
        "autoscaling/v1",
        "HorizontalPodAutoscaler",
        "horizontalpodautoscalers",
        ("hpa",),
        True,
        ("all",),
    ),
]


@pytest.mark.parametrize(
    ("api_version", "kind", "plural", "short_names", "namespaced", "categories"),
    DISCOVERY_ROWS,
    ids=[f"{row[0]}/{row[1]}" for row in DISCOVERY_ROWS],
)
def test_kind_metadata_matches_discovery(
    api_version: str,
    kind: str,
    plural: str,
    short_names: tuple[str, ...],
    namespaced: bool,
    categories: tuple[str, ...],
) -> None:
    info = kind_for(api_version, kind)
    assert info.api_version == api_version
    assert (info.plural, info.short_names) == (plural, short_names)
    assert info.singular == kind.lower()
    assert info.namespaced is namespaced
    assert info.categories == categories
    assert info.list_kind == f"{kind}List"
    assert info.top_level


@pytest.mark.parametrize(
    ("api_version", "kind", "subresources"),
    [
        ("v1", "Pod", ("binding", "status")),
        ("v1", "Node", ("status",)),
        ("v1", "Event", ()),
        ("apps/v1", "Deployment", ("status", "scale")),
        ("apps/v1", "ReplicaSet", ("status", "scale")),
        ("apps/v1", "StatefulSet", ("status", "scale")),
        ("autoscaling/v2", "HorizontalPodAutoscaler", ("status",)),
    ],
    ids=["pod", "node", "event", "deployment", "replicaset", "statefulset", "hpa"],
)
def test_subresources(api_version: str, kind: str, subresources: tuple[str, ...]) -> None:
    info = kind_for(api_version, kind)
    assert tuple(sub.name for sub in info.subresources) == subresources
    for sub in info.subresources:
        # pods/binding is write-only, as upstream's discovery lists it.
        expected = ("create",) if sub.name == "binding" else ("get", "patch", "update")
        assert sub.verbs == expected


def test_scale_subresource_speaks_autoscaling_v1_scale() -> None:
    scale = kind_for("apps/v1", "Deployment").subresource("scale")
    assert scale is not None
    assert (scale.group, scale.version, scale.kind) == ("autoscaling", "v1", "Scale")
    status = kind_for("apps/v1", "Deployment").subresource("status")
    assert status is not None
    assert (status.group, status.version, status.kind) == ("apps", "v1", "Deployment")
    assert kind_for("v1", "Event").subresource("status") is None


def test_verbs() -> None:
    assert kind_for("v1", "Pod").verbs == ALL_VERBS
    assert "deletecollection" not in kind_for("v1", "Namespace").verbs
    assert list(ALL_VERBS) == sorted(ALL_VERBS)


def test_scale_is_a_kind_but_not_a_resource() -> None:
    scale = kind_for("autoscaling/v1", "Scale")
    assert not scale.top_level
    assert find_resource("scale") == []
    assert all(info.kind != "Scale" for info in find_resource("Scale"))


def test_group_version_properties() -> None:
    assert kind_for("v1", "Pod").group_version == ("", "v1")
    assert kind_for("apps/v1", "Deployment").api_version == "apps/v1"


@pytest.mark.parametrize(
    ("api_version", "kind"),
    [
        ("v1", "Deployment"),
        ("apps/v2", "Deployment"),
        ("autoscaling/v2beta2", "HorizontalPodAutoscaler"),
    ],
    ids=["wrong-group", "wrong-version", "unserved-version"],
)
def test_kind_for_unknown_raises_with_both_names(api_version: str, kind: str) -> None:
    with pytest.raises(KeyError, match=kind) as info:
        kind_for(api_version, kind)
    assert api_version in str(info.value)


@pytest.mark.parametrize(
    ("api_version", "kind", "built_in"),
    [
        ("apps/v1", "Deployment", True),
        ("autoscaling/v1", "Scale", True),
        ("autoscaling/v2", "HorizontalPodAutoscaler", True),
        ("v1", "Deployment", False),
        ("autoscaling/v2beta2", "HorizontalPodAutoscaler", False),
        ("keda.sh/v1alpha1", "ScaledObject", False),
    ],
    ids=["workload", "scale", "hpa", "wrong-group", "unserved-version", "custom"],
)
def test_is_built_in(api_version: str, kind: str, built_in: bool) -> None:
    assert is_built_in(api_version, kind) is built_in


@pytest.mark.parametrize(
    ("group", "version", "plural", "kind"),
    [
        ("", "v1", "pods", "Pod"),
        ("apps", "v1", "statefulsets", "StatefulSet"),
        ("autoscaling", "v1", "horizontalpodautoscalers", "HorizontalPodAutoscaler"),
    ],
    ids=["core", "apps", "autoscaling-v1"],
)
def test_resource_for(group: str, version: str, plural: str, kind: str) -> None:
    info = resource_for(group, version, plural)
    assert (info.group, info.version, info.kind) == (group, version, kind)


def test_resource_for_unknown_raises() -> None:
    with pytest.raises(KeyError, match="widgets"):
        resource_for("apps", "v1", "widgets")
    with pytest.raises(KeyError):
        resource_for("", "v1", "deployments")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("po", [("v1", "Pod")]),
        ("PODS", [("v1", "Pod")]),
        ("Pod", [("v1", "Pod")]),
        ("deploy", [("apps/v1", "Deployment")]),
        ("deployment.apps", [("apps/v1", "Deployment")]),
        ("sts", [("apps/v1", "StatefulSet")]),
        ("rs", [("apps/v1", "ReplicaSet")]),
        ("ns", [("v1", "Namespace")]),
        ("no", [("v1", "Node")]),
        # Both event APIs answer to "ev"; the core group comes first, as kubectl picks it.
        ("ev", [("v1", "Event"), ("events.k8s.io/v1", "Event")]),
        ("events.events.k8s.io", [("events.k8s.io/v1", "Event")]),
        (
            "hpa",
            [
                ("autoscaling/v2", "HorizontalPodAutoscaler"),
                ("autoscaling/v1", "HorizontalPodAutoscaler"),
            ],
        ),
        (
            "HorizontalPodAutoscaler",
            [
                ("autoscaling/v2", "HorizontalPodAutoscaler"),
                ("autoscaling/v1", "HorizontalPodAutoscaler"),
            ],
        ),
        ("hpa.v1.autoscaling", [("autoscaling/v1", "HorizontalPodAutoscaler")]),
        ("deploy.autoscaling", []),
        ("widgets", []),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_find_resource(name: str, expected: list[tuple[str, str]]) -> None:
    assert [(info.api_version, info.kind) for info in find_resource(name)] == expected


def test_served_group_versions_in_discovery_order() -> None:
    assert served_group_versions() == [
        ("", "v1"),
        ("apps", "v1"),
        ("autoscaling", "v2"),
        ("autoscaling", "v1"),
        ("policy", "v1"),
        ("apiextensions.k8s.io", "v1"),
        ("coordination.k8s.io", "v1"),
        ("events.k8s.io", "v1"),
    ]
    assert preferred_version("autoscaling") == "v2"
    assert preferred_version("") == "v1"
    with pytest.raises(KeyError, match="batch"):
        preferred_version("batch")


def test_registry_is_consistent() -> None:
    kinds = all_kinds()
    assert len({(info.api_version, info.kind) for info in kinds}) == len(kinds)
    for info in kinds:
        assert isinstance(info, KindInfo)
        if info.top_level:
            assert resource_for(info.group, info.version, info.plural) is info
            assert info.plural == info.plural.lower()
    # Exactly one preferred version per group.
    groups = {info.group for info in kinds}
    for group in groups:
        preferred = {i.version for i in kinds if i.group == group and i.preferred}
        assert len(preferred) == 1, group
