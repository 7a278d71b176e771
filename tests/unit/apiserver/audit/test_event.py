"""The audit.k8s.io/v1 Event builders: shape, stamps, response status, source IPs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from podscale.apiserver.audit.event import (
    RequestFacts,
    at_stage,
    authentication_failure,
    format_micro_time,
    new_event,
    response_status,
    source_ips,
    truncate_user_agent,
    with_request_object,
)
from podscale.apiserver.audit.requestinfo import request_info
from podscale.apiserver.auth.identity import ADMIN_USER

RECEIVED = datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=UTC)
LATER = RECEIVED + timedelta(milliseconds=7)


def facts(method: str, path: str, query: str = "", *, user: bool = True) -> RequestFacts:
    return RequestFacts(
        info=request_info(method, path, query),
        request_uri=f"{path}?{query}" if query else path,
        user=ADMIN_USER if user else None,
        source_ips=("127.0.0.1",),
        user_agent="kubectl/v1.31.0 (linux/amd64) kubernetes/abc",
        received=RECEIVED,
    )


def test_a_scale_update_event_has_upstreams_shape_and_field_order() -> None:
    path = "/apis/apps/v1/namespaces/default/deployments/web/scale"
    event = at_stage(
        new_event(facts("PUT", path), "id-1"), "ResponseComplete", LATER, response_status(200)
    )
    assert event == {
        "kind": "Event",
        "apiVersion": "audit.k8s.io/v1",
        "level": "Metadata",
        "auditID": "id-1",
        "stage": "ResponseComplete",
        "requestURI": path,
        "verb": "update",
        "user": {
            "username": "podscale-admin",
            "groups": ["system:masters", "system:authenticated"],
        },
        "sourceIPs": ["127.0.0.1"],
        "userAgent": "kubectl/v1.31.0 (linux/amd64) kubernetes/abc",
        "objectRef": {
            "resource": "deployments",
            "namespace": "default",
            "name": "web",
            "apiGroup": "apps",
            "apiVersion": "v1",
            "subresource": "scale",
        },
        "responseStatus": {"metadata": {}, "code": 200},
        "requestReceivedTimestamp": "2026-01-02T03:04:05.123456Z",
        "stageTimestamp": "2026-01-02T03:04:05.130456Z",
        "annotations": {
            "authorization.k8s.io/decision": "allow",
            "authorization.k8s.io/reason": "",
        },
    }
    assert list(event) == [
        "kind", "apiVersion", "level", "auditID", "stage", "requestURI", "verb", "user",
        "sourceIPs", "userAgent", "objectRef", "responseStatus", "requestReceivedTimestamp",
        "stageTimestamp", "annotations",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("method", "path", "query", "verb", "ref"),
    [
        ("GET", "/api/v1/namespaces/ns/pods/p", "", "get", {"name": "p", "namespace": "ns"}),
        ("GET", "/api/v1/namespaces/ns/pods", "", "list", {"namespace": "ns"}),
        ("GET", "/api/v1/pods", "watch=true", "watch", {}),
        ("POST", "/api/v1/namespaces/ns/pods", "", "create", {"namespace": "ns"}),
        ("PUT", "/api/v1/namespaces/ns/pods/p", "", "update", {"name": "p", "namespace": "ns"}),
        ("PATCH", "/api/v1/namespaces/ns/pods/p", "", "patch", {"name": "p", "namespace": "ns"}),
        ("DELETE", "/api/v1/namespaces/ns/pods/p", "", "delete", {"name": "p", "namespace": "ns"}),
        ("DELETE", "/api/v1/namespaces/ns/pods", "", "deletecollection", {"namespace": "ns"}),
        (
            "PATCH",
            "/api/v1/namespaces/ns/pods/p/status",
            "",
            "patch",
            {"name": "p", "namespace": "ns", "subresource": "status"},
        ),
    ],
    ids=[
        "get",
        "list",
        "watch",
        "create",
        "update",
        "patch",
        "delete",
        "deletecollection",
        "status",
    ],
)
def test_verb_and_object_ref_per_request(
    method: str, path: str, query: str, verb: str, ref: dict[str, str]
) -> None:
    event = new_event(facts(method, path, query), "id")
    assert event["verb"] == verb
    assert event["objectRef"] == {"resource": "pods", "apiVersion": "v1", **ref}


def test_non_resource_requests_have_no_object_ref() -> None:
    event = new_event(facts("GET", "/healthz"), "id")
    assert event["verb"] == "get"
    assert "objectRef" not in event


def test_a_failed_authentication_has_an_empty_user_and_no_decision() -> None:
    event = new_event(facts("GET", "/api/v1/pods", user=False), "id")
    assert event["user"] == {}
    assert "annotations" not in event


def test_request_received_is_stamped_with_the_receive_time() -> None:
    event = at_stage(new_event(facts("GET", "/api/v1/pods"), "id"), "RequestReceived", LATER)
    assert event["stageTimestamp"] == event["requestReceivedTimestamp"]
    assert "responseStatus" not in event


def test_an_unknown_stage_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown audit stage"):
        at_stage(new_event(facts("GET", "/api/v1/pods"), "id"), "Done", LATER)


def test_failure_status_keeps_the_bounded_status_fields() -> None:
    body = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'deployments.apps "x" not found',
        "reason": "NotFound",
        "details": {"name": "x", "group": "apps", "kind": "deployments"},
        "code": 404,
    }
    assert response_status(404, body) == {
        "metadata": {},
        "status": "Failure",
        "message": 'deployments.apps "x" not found',
        "reason": "NotFound",
        "details": {"name": "x", "group": "apps", "kind": "deployments"},
        "code": 404,
    }


def test_a_body_that_is_no_status_gives_just_the_code() -> None:
    assert response_status(201, {"kind": "Deployment", "code": 5}) == {"metadata": {}, "code": 201}


@pytest.mark.parametrize(
    ("authorization", "message"),
    [
        (None, "Authentication failed, no credentials provided"),
        ("Bearer wrong", "Authentication failed, attempted: bearer"),
        ("Basic dXNlcjpwdw==", "Authentication failed, attempted: basic"),
        ("Bearer", "Authentication failed, no credentials provided"),
    ],
    ids=["none", "bearer", "basic", "scheme-only"],
)
def test_authentication_failure_names_the_credentials_tried(
    authorization: str | None, message: str
) -> None:
    assert authentication_failure(authorization) == {
        "metadata": {},
        "message": message,
        "code": 401,
    }


def test_a_create_or_update_body_fills_the_object_refs_blanks() -> None:
    event = new_event(facts("POST", "/apis/apps/v1/namespaces/ns/deployments"), "id")
    body = {"metadata": {"name": "web", "namespace": "other", "uid": "u1", "resourceVersion": "9"}}
    assert with_request_object(event, body)["objectRef"] == {
        "resource": "deployments",
        "namespace": "ns",  # the URL's namespace stays
        "name": "web",
        "uid": "u1",
        "apiGroup": "apps",
        "apiVersion": "v1",
        "resourceVersion": "9",
    }
    assert "uid" not in event["objectRef"]  # the input is not changed


@pytest.mark.parametrize(
    ("moment", "text"),
    [
        (datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), "2026-01-02T03:04:05.000000Z"),
        (
            datetime(2026, 1, 2, 5, 4, 5, 42, tzinfo=timezone(timedelta(hours=2))),
            "2026-01-02T03:04:05.000042Z",
        ),
        (datetime(2026, 1, 2, 3, 4, 5, 7), "2026-01-02T03:04:05.000007Z"),
    ],
    ids=["utc", "offset", "naive-as-utc"],
)
def test_micro_time_is_rfc3339_utc_with_microseconds(moment: datetime, text: str) -> None:
    assert format_micro_time(moment) == text


@pytest.mark.parametrize(
    ("forwarded", "real", "remote", "expected"),
    [
        (None, None, "10.0.0.1", ("10.0.0.1",)),
        ("1.2.3.4, 5.6.7.8", None, "10.0.0.1", ("1.2.3.4", "5.6.7.8", "10.0.0.1")),
        (None, "1.2.3.4", "1.2.3.4", ("1.2.3.4",)),
        ("bogus, ::1", None, None, ("::1",)),
        (None, None, "testclient", ()),
    ],
    ids=["peer", "forwarded", "real-ip-is-peer", "skips-garbage", "no-ip-peer"],
)
def test_source_ips(
    forwarded: str | None, real: str | None, remote: str | None, expected: tuple[str, ...]
) -> None:
    assert source_ips(forwarded, real, remote) == expected


def test_long_user_agents_are_truncated_as_upstream() -> None:
    assert truncate_user_agent("a" * 1024) == "a" * 1024
    assert truncate_user_agent("a" * 1025) == "a" * 1024 + "...TRUNCATED"
