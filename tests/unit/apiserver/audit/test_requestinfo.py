"""request_info: the verb and object a request names, as upstream's request-info resolver."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.apiserver.audit.requestinfo import RequestInfo, is_long_running, request_info

CASES = [
    ("GET", "/api/v1/namespaces/ns/pods/p", "", ("get", "", "v1", "pods", "", "ns", "p")),
    ("HEAD", "/api/v1/namespaces/ns/pods/p", "", ("get", "", "v1", "pods", "", "ns", "p")),
    ("GET", "/api/v1/namespaces/ns/pods", "", ("list", "", "v1", "pods", "", "ns", "")),
    ("GET", "/api/v1/pods", "limit=500", ("list", "", "v1", "pods", "", "", "")),
    ("GET", "/api/v1/pods", "watch=true", ("watch", "", "v1", "pods", "", "", "")),
    ("GET", "/api/v1/pods", "watch=1", ("watch", "", "v1", "pods", "", "", "")),
    ("GET", "/api/v1/pods", "watch=false", ("list", "", "v1", "pods", "", "", "")),
    ("GET", "/api/v1/pods", "watch=0", ("list", "", "v1", "pods", "", "", "")),
    (
        "GET",
        "/apis/apps/v1/namespaces/ns/deployments",
        "fieldSelector=metadata.name%3Dweb&watch=true",
        ("watch", "apps", "v1", "deployments", "", "ns", "web"),
    ),
    (
        "GET",
        "/apis/apps/v1/namespaces/ns/deployments",
        "fieldSelector=metadata.name%21%3Dweb",
        ("list", "apps", "v1", "deployments", "", "ns", ""),
    ),
    (
        "GET",
        "/api/v1/watch/namespaces/ns/pods",
        "",
        ("watch", "", "v1", "pods", "", "ns", ""),
    ),
    (
        "POST",
        "/apis/apps/v1/namespaces/ns/deployments",
        "",
        ("create", "apps", "v1", "deployments", "", "ns", ""),
    ),
    (
        "PUT",
        "/apis/apps/v1/namespaces/ns/deployments/d",
        "",
        ("update", "apps", "v1", "deployments", "", "ns", "d"),
    ),
    (
        "PATCH",
        "/apis/apps/v1/namespaces/ns/deployments/d",
        "",
        ("patch", "apps", "v1", "deployments", "", "ns", "d"),
    ),
    (
        "DELETE",
        "/apis/apps/v1/namespaces/ns/deployments/d",
        "",
        ("delete", "apps", "v1", "deployments", "", "ns", "d"),
    ),
    (
        "DELETE",
        "/apis/apps/v1/namespaces/ns/deployments",
        "",
        ("deletecollection", "apps", "v1", "deployments", "", "ns", ""),
    ),
    (
        "PUT",
        "/apis/apps/v1/namespaces/ns/deployments/d/scale",
        "",
        ("update", "apps", "v1", "deployments", "scale", "ns", "d"),
    ),
    (
        "PATCH",
        "/apis/apps/v1/namespaces/ns/deployments/d/scale",
        "",
        ("patch", "apps", "v1", "deployments", "scale", "ns", "d"),
    ),
    (
        "GET",
        "/apis/apps/v1/namespaces/ns/deployments/d/scale",
        "",
        ("get", "apps", "v1", "deployments", "scale", "ns", "d"),
    ),
    (
        "PUT",
        "/apis/autoscaling/v2/namespaces/ns/horizontalpodautoscalers/h/status",
        "",
        ("update", "autoscaling", "v2", "horizontalpodautoscalers", "status", "ns", "h"),
    ),
    (
        "POST",
        "/api/v1/namespaces/ns/pods/p/binding",
        "",
        ("create", "", "v1", "pods", "binding", "ns", "p"),
    ),
    ("GET", "/api/v1/nodes/n1", "", ("get", "", "v1", "nodes", "", "", "n1")),
    ("GET", "/api/v1/namespaces/team", "", ("get", "", "v1", "namespaces", "", "team", "team")),
    (
        "PUT",
        "/api/v1/namespaces/team/finalize",
        "",
        ("update", "", "v1", "namespaces", "finalize", "team", "team"),
    ),
    ("GET", "/api/v1/namespaces", "", ("list", "", "v1", "namespaces", "", "", "")),
    ("OPTIONS", "/api/v1/pods", "", ("", "", "v1", "pods", "", "", "")),
]


@pytest.mark.parametrize(
    ("method", "path", "query", "expected"),
    CASES,
    ids=[f"{m} {p}?{q}" if q else f"{m} {p}" for m, p, q, _ in CASES],
)
def test_resource_requests(method: str, path: str, query: str, expected: tuple[str, ...]) -> None:
    verb, group, version, resource, subresource, namespace, name = expected
    assert request_info(method, path, query) == RequestInfo(
        True, verb, group, version, resource, subresource, namespace, name
    )


@pytest.mark.parametrize(
    ("method", "path", "verb"),
    [
        ("GET", "/healthz", "get"),
        ("GET", "/readyz/etcd", "get"),
        ("GET", "/version", "get"),
        ("GET", "/openapi/v2", "get"),
        ("GET", "/openapi/v3/apis/apps/v1", "get"),
        ("GET", "/api", "get"),
        ("GET", "/api/v1", "get"),
        ("GET", "/apis/apps/v1", "get"),
        ("POST", "/metrics", "post"),
        ("OPTIONS", "/healthz", "options"),
    ],
    ids=lambda value: str(value),
)
def test_non_resource_requests_have_the_lowercased_method_as_verb(
    method: str, path: str, verb: str
) -> None:
    assert request_info(method, path) == RequestInfo(False, verb)


@pytest.mark.parametrize(
    ("method", "path", "query", "streaming"),
    [
        ("GET", "/api/v1/pods", "watch=true", True),
        ("GET", "/api/v1/namespaces/ns/pods/p/log", "follow=true", True),
        ("POST", "/api/v1/namespaces/ns/pods/p/exec", "", True),
        ("GET", "/api/v1/pods", "", False),
        ("PUT", "/apis/apps/v1/namespaces/ns/deployments/d/scale", "", False),
    ],
    ids=["watch", "log", "exec", "list", "scale"],
)
def test_long_running_requests(method: str, path: str, query: str, streaming: bool) -> None:
    assert is_long_running(request_info(method, path, query)) is streaming


@given(
    st.sampled_from(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]),
    st.lists(st.text(alphabet="abc/.%=:-", max_size=8), max_size=7),
    st.text(max_size=30),
)
def test_any_request_resolves_and_non_resources_name_nothing(
    method: str, segments: list[str], query: str
) -> None:
    info = request_info(method, "/" + "/".join(segments), query)
    if not info.is_resource_request:
        assert info == RequestInfo(False, method.lower())
    else:
        assert info.resource
        assert info.api_version
