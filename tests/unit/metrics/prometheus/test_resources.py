"""Group-resource normalisation and the label <-> resource mapping of a rule."""

from __future__ import annotations

import pytest

from podscale.metrics.prometheus.resources import (
    NAMESPACES,
    GroupResource,
    ResourceConverter,
    normalize_group_resource,
)
from podscale.metrics.prometheus.template import TemplateError, parse_template

RESOURCE_FIELDS = frozenset({"Group", "Resource"})
PODS = GroupResource("", "pods")
DEPLOYMENTS = GroupResource("apps", "deployments")


@pytest.mark.parametrize(
    ("group", "resource", "expected"),
    [
        ("", "pod", PODS),
        ("", "Pods", PODS),
        ("", "deployment", DEPLOYMENTS),
        ("apps", "deployment", DEPLOYMENTS),
        ("", "namespace", NAMESPACES),
        ("", "service", GroupResource("", "services")),
        ("", "ingress", GroupResource("networking.k8s.io", "ingresses")),
        ("example.com", "widget", GroupResource("example.com", "widgets")),
    ],
    ids=["pod", "case", "group-guessed", "group-given", "namespace", "service", "ingress", "crd"],
)
def test_normalize(group: str, resource: str, expected: GroupResource) -> None:
    assert normalize_group_resource(group, resource) == expected


@pytest.mark.parametrize(
    ("resource", "text"),
    [(PODS, "pods"), (DEPLOYMENTS, "deployments.apps")],
    ids=["core", "grouped"],
)
def test_group_resource_prints_like_schema(resource: GroupResource, text: str) -> None:
    assert str(resource) == text


TEMPLATED = ResourceConverter(
    {"ns": NAMESPACES}, parse_template("kube_<<.Group>>_<<.Resource>>", RESOURCE_FIELDS)
)


@pytest.mark.parametrize(
    ("resource", "label"),
    [
        (DEPLOYMENTS, "kube_apps_deployment"),
        (PODS, "kube__pod"),
        (GroupResource("networking.k8s.io", "ingresses"), "kube_networking_k8s_io_ingress"),
        (NAMESPACES, "ns"),
    ],
    ids=["grouped", "core", "dots-sanitized", "override-wins"],
)
def test_label_for_resource_and_back(resource: GroupResource, label: str) -> None:
    assert TEMPLATED.label_for_resource(resource) == label
    assert TEMPLATED.resource_for_label(label) == resource


def test_label_not_shaped_like_template_names_nothing() -> None:
    assert TEMPLATED.resource_for_label("verb") is None


def test_resources_for_labels_reports_namespacing() -> None:
    converter = ResourceConverter({"namespace": NAMESPACES, "pod": PODS})
    assert converter.resources_for_labels(["pod", "verb", "namespace"]) == (
        [NAMESPACES, PODS],
        True,
    )
    assert converter.resources_for_labels(["pod"]) == ([PODS], False)


def test_no_mapping_for_resource_is_upstreams_error() -> None:
    with pytest.raises(TemplateError, match="no generic resource label form specified"):
        ResourceConverter({"pod": PODS}).label_for_resource(DEPLOYMENTS)


def test_template_label_of_an_unknown_core_resource_is_not_guessed() -> None:
    converter = ResourceConverter({}, parse_template("<<.Resource>>", RESOURCE_FIELDS))
    assert converter.resource_for_label("verb") is None
    assert converter.resource_for_label("deployment") == DEPLOYMENTS


def test_template_label_of_a_grouped_custom_resource_is_read() -> None:
    assert TEMPLATED.resource_for_label("kube_stable_widget") == GroupResource("stable", "widgets")
