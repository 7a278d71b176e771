"""events.k8s.io/v1 Event: the core events' storage in the newer shape, with upstream's
strict validation for events created through it, its table columns and discovery."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from starlette.testclient import TestClient

JSON = dict[str, Any]
EVENTS = "/apis/events.k8s.io/v1/namespaces/default/events"
CORE = "/api/v1/namespaces/default/events"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"

NEW_STYLE: JSON = {
    "apiVersion": "events.k8s.io/v1",
    "kind": "Event",
    "metadata": {"name": "web.1"},
    "eventTime": "2026-01-02T03:04:05.000000Z",
    "reportingController": "example.com/scaler",
    "reportingInstance": "scaler-1",
    "action": "Scale",
    "reason": "Scaled",
    "type": "Normal",
    "note": "scaled web to 3",
    "regarding": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
}


def _event(**changes: Any) -> JSON:
    event = copy.deepcopy(NEW_STYLE)
    for key, value in changes.items():
        if value is None:
            event.pop(key, None)
        else:
            event[key] = value
    return event


def test_created_through_events_api_reads_as_core_event(client: TestClient) -> None:
    created = client.post(EVENTS, json=_event())
    assert created.status_code == 201, created.text
    assert created.json()["note"] == "scaled web to 3"
    core = client.get(f"{CORE}/web.1").json()
    assert core["apiVersion"] == "v1"
    assert core["message"] == "scaled web to 3"
    assert core["reportingComponent"] == "example.com/scaler"
    assert core["involvedObject"]["name"] == "web"
    assert core["metadata"]["uid"] == created.json()["metadata"]["uid"]


def test_core_event_lists_in_the_events_shape(client: TestClient) -> None:
    legacy = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "old.1"},
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
        "reason": "Started",
        "message": "Started container",
        "source": {"component": "kubelet"},
        "count": 3,
        "firstTimestamp": "2026-01-02T03:04:00Z",
        "lastTimestamp": "2026-01-02T03:04:05Z",
        "type": "Normal",
    }
    assert client.post(CORE, json=legacy).status_code == 201
    listed = client.get(EVENTS).json()
    assert listed["kind"] == "EventList"
    assert listed["apiVersion"] == "events.k8s.io/v1"
    (item,) = listed["items"]
    assert item["note"] == "Started container"
    assert item["deprecatedCount"] == 3
    assert item["deprecatedSource"] == {"component": "kubelet"}
    assert item["eventTime"] is None


def test_table_has_the_core_event_columns(client: TestClient) -> None:
    assert client.post(EVENTS, json=_event()).status_code == 201
    table = client.get(EVENTS, headers={"accept": TABLE}).json()
    names = [column["name"] for column in table["columnDefinitions"]]
    assert names[:4] == ["Last Seen", "Type", "Reason", "Object"]
    assert "Message" in names
    cells = dict(zip(names, table["rows"][0]["cells"], strict=True))
    assert (cells["Type"], cells["Reason"], cells["Object"], cells["Message"]) == (
        "Normal",
        "Scaled",
        "deployment/web",
        "scaled web to 3",
    )


@pytest.mark.parametrize(
    ("changes", "messages"),
    [
        ({"reportingController": None}, ["reportingController: Required value"]),
        ({"eventTime": None}, ["eventTime: Required value"]),
        ({"type": "Odd"}, ['type: Invalid value: "": has invalid value: Odd']),
        (
            {"series": {"count": 1}},
            [
                'series.count: Invalid value: "": should be at least 2',
                "series.lastObservedTime: Required value",
            ],
        ),
        ({"deprecatedCount": 2}, ['count: Invalid value: "": needs to be unset']),
        (
            {"deprecatedSource": {"component": "x"}},
            ['source: Invalid value: "": needs to be unset'],
        ),
        ({"action": "a" * 129}, ['action: Invalid value: "": can have at most 128 characters']),
        (
            {"metadata": {"name": "Web_1"}},
            ['metadata.name: Invalid value: "Web_1": a lowercase RFC 1123 subdomain'],
        ),
    ],
    ids=[
        "no-reporting-controller",
        "no-event-time",
        "bad-type",
        "short-series",
        "deprecated-count",
        "deprecated-source",
        "long-action",
        "dns-subdomain-name",
    ],
)
def test_strict_validation_of_new_events(
    client: TestClient, changes: JSON, messages: list[str]
) -> None:
    response = client.post(EVENTS, json=_event(**changes))
    assert response.status_code == 422, response.text
    status = response.json()
    assert status["details"]["group"] == "events.k8s.io"
    for message in messages:
        assert message in status["message"], status["message"]


def test_the_same_event_through_core_is_not_held_to_the_strict_rules(client: TestClient) -> None:
    legacy = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "loose.1"},
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
        "type": "Odd",
        "count": 2,
    }
    assert client.post(CORE, json=legacy).status_code == 201


def test_content_is_immutable_through_the_events_api(client: TestClient) -> None:
    created = client.post(EVENTS, json=_event()).json()
    changed = {**created, "note": "something else"}
    response = client.put(f"{EVENTS}/web.1", json=changed)
    assert response.status_code == 422
    assert (
        'message: Invalid value: "something else": field is immutable'
        in (response.json()["message"])
    )
    relabelled = copy.deepcopy(created)
    relabelled["metadata"]["labels"] = {"a": "b"}
    assert client.put(f"{EVENTS}/web.1", json=relabelled).status_code == 200


def test_discovery_and_openapi(client: TestClient) -> None:
    resources = client.get("/apis/events.k8s.io/v1").json()["resources"]
    assert [(r["name"], r["kind"], r.get("shortNames")) for r in resources] == [
        ("events", "Event", ["ev"])
    ]
    document = client.get("/openapi/v3/apis/events.k8s.io/v1").json()
    schema = document["components"]["schemas"]["io.k8s.api.events.v1.Event"]
    assert schema["x-kubernetes-group-version-kind"] == [
        {"group": "events.k8s.io", "kind": "Event", "version": "v1"}
    ]
    assert "io.k8s.api.events.v1.Event" in client.get("/openapi/v2").json()["definitions"]


def test_deleting_through_either_api_deletes_the_one_event(client: TestClient) -> None:
    assert client.post(EVENTS, json=_event()).status_code == 201
    assert client.delete(f"{CORE}/web.1").status_code == 200
    assert client.get(f"{EVENTS}/web.1").status_code == 404
