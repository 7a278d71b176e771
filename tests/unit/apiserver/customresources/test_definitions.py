"""CRDs read as served kinds, and upstream's version priority."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.apiserver.customresources.conditions import reconcile_status
from podscale.apiserver.customresources.definitions import (
    ScalePaths,
    custom_kinds,
    version_priority,
)

JSON = dict[str, Any]
NOW = datetime(2026, 1, 2, tzinfo=UTC)


def _accepted(crd: JSON) -> JSON:
    status = reconcile_status(crd, [crd], NOW)
    assert status is not None
    return {**crd, "status": status}


@pytest.mark.parametrize(
    ("versions", "expected"),
    [
        (["v1", "v2"], ["v2", "v1"]),
        (["v1beta1", "v1", "v1alpha1"], ["v1", "v1beta1", "v1alpha1"]),
        (["v2beta1", "v10beta3", "v10beta1"], ["v10beta3", "v10beta1", "v2beta1"]),
        (["foo", "v1", "bar"], ["v1", "bar", "foo"]),
        (["v11alpha2", "v1beta1"], ["v1beta1", "v11alpha2"]),
    ],
    ids=["ga", "stages", "betas", "non-kube-last", "beta-before-alpha"],
)
def test_version_priority(versions: list[str], expected: list[str]) -> None:
    assert sorted(versions, key=version_priority) == expected


@given(st.lists(st.from_regex(r"v[1-9][0-9]?((alpha|beta)[1-9])?", fullmatch=True), min_size=1))
def test_ga_versions_always_come_first(versions: list[str]) -> None:
    ordered = sorted(versions, key=version_priority)
    stages = ["alpha" in v or "beta" in v for v in ordered]
    assert stages == sorted(stages)


def test_no_kinds_before_names_are_accepted(crd_factory: Callable[..., JSON]) -> None:
    assert custom_kinds(crd_factory()) == []


def test_one_kind_per_served_version(crd_factory: Callable[..., JSON]) -> None:
    crd = crd_factory(versions=("v1", "v1beta1", "v1alpha1"))
    crd["spec"]["versions"][2]["served"] = False
    kinds = custom_kinds(_accepted(crd))
    assert [(k.version, k.preferred) for k in kinds] == [("v1", True), ("v1beta1", False)]
    first = kinds[0]
    assert (first.group, first.kind, first.plural, first.singular) == (
        "example.com",
        "Widget",
        "widgets",
        "widget",
    )
    assert first.list_kind == "WidgetList"
    assert first.short_names == ("wd",)
    assert first.categories == ("all",)
    assert first.namespaced
    assert first.storage_api_version == "example.com/v1"
    assert [s.name for s in first.subresources] == ["status", "scale"]
    assert first.scale == ScalePaths(".spec.replicas", ".status.replicas", ".status.selector")
    assert first.crd_name == "widgets.example.com"
    assert not first.terminating


def test_cluster_scope_and_no_subresources(crd_factory: Callable[..., JSON]) -> None:
    crd = crd_factory(scope="Cluster", status=False, scale=False)
    (kind,) = custom_kinds(_accepted(crd))
    assert not kind.namespaced
    assert kind.subresources == ()
    assert kind.scale is None
    assert not kind.status_enabled
