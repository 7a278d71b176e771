"""Service cluster IPs and node ports: the ranges' picks (upstream's static band kept for
requests), requests honoured or refused with upstream's errors, families, and through the
API: no reuse of a held address, freed on delete, a dry run allocates nothing, and Secret
values never reach the server's logs."""

from __future__ import annotations

import base64
import ipaddress
import logging
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from podscale.api import apply_defaults
from podscale.apiserver.errors import ApiError
from podscale.apiserver.registry.service_allocation import allocate_service
from podscale.apiserver.registry.service_ranges import (
    ServiceNetwork,
    parse_node_port_range,
    parse_service_cidr,
)

JSON = dict[str, Any]
_OUTSIDE = "the provided IP ({}) is not in the valid range. The range of valid IPs is 10.0.0.0/24"
SMALL = ServiceNetwork(parse_service_cidr("10.0.0.0/28"), parse_node_port_range("30000-30007"))


def _service(name: str = "web", **spec: Any) -> JSON:
    body = {"selector": {"app": "web"}, "ports": [{"port": 80}], **spec}
    obj = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": "d"},
        "spec": body,
    }
    return apply_defaults(obj)


def _allocate(
    obj: JSON, ips: set[str] | None = None, ports: set[int] | None = None, old: JSON | None = None
) -> JSON:
    if ports is None:
        ports = set()
    if ips is None:
        ips = set()
    network = ServiceNetwork()
    return allocate_service(obj, old, network, ips, ports, random.Random(0))


def _error(obj: JSON, **kwargs: Any) -> tuple[int, str]:
    with pytest.raises(ApiError) as caught:
        _allocate(obj, **kwargs)
    return caught.value.code, str(caught.value.status["message"])


def test_default_network_is_kube_apiservers() -> None:
    network = ServiceNetwork()
    assert (str(network.cidr), network.port_range_text, network.family) == (
        "10.0.0.0/24",
        "30000-32767",
        "IPv4",
    )


def test_dynamic_ips_come_from_above_the_static_band_first() -> None:
    network = ServiceNetwork()  # 254 usable addresses: the lowest 16 (.1-.16) are kept back
    rng = random.Random(1)
    picks = {network.next_ip(set(), rng) for _ in range(50)}
    assert all(int(str(ip).rsplit(".", 1)[1]) > 16 for ip in picks)
    upper = {f"10.0.0.{i}" for i in range(17, 255)}
    assert network.next_ip(upper, rng) in {f"10.0.0.{i}" for i in range(1, 17)}
    assert network.next_ip(upper | {f"10.0.0.{i}" for i in range(1, 17)}, rng) is None


@pytest.mark.parametrize(
    ("ip", "expected"),
    [
        ("10.0.0.7", None),
        (
            "10.0.0.0",
            _OUTSIDE.format("10.0.0.0"),
        ),
        (
            "10.0.0.255",
            _OUTSIDE.format("10.0.0.255"),
        ),
        (
            "10.0.1.1",
            _OUTSIDE.format("10.0.1.1"),
        ),
        ("10.0.0.9", "provided IP is already allocated"),
    ],
    ids=["free", "network-address", "broadcast", "outside", "taken"],
)
def test_requested_ip(ip: str, expected: str | None) -> None:
    assert ServiceNetwork().ip_problem(ip, {"10.0.0.9"}) == expected


@pytest.mark.parametrize(
    ("port", "expected"),
    [
        (30080, None),
        (8080, "provided port is not in the valid range. The range of valid ports is 30000-32767"),
        (30001, "provided port is already allocated"),
    ],
    ids=["free", "outside", "taken"],
)
def test_requested_node_port(port: int, expected: str | None) -> None:
    assert ServiceNetwork().port_problem(port, {30001}) == expected


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({}, {"ipFamilyPolicy": "SingleStack", "ipFamilies": ["IPv4"]}),
        (
            {"clusterIP": "None", "clusterIPs": ["None"]},
            {"clusterIP": "None", "ipFamilies": ["IPv4"]},
        ),
        (
            {"clusterIP": "None", "clusterIPs": ["None"], "selector": None},
            {"ipFamilyPolicy": "RequireDualStack", "ipFamilies": ["IPv4", "IPv6"]},
        ),
        ({"clusterIP": "10.0.0.5", "clusterIPs": ["10.0.0.5"]}, {"clusterIPs": ["10.0.0.5"]}),
        (
            {"type": "ExternalName", "externalName": "db.example.com", "ports": []},
            {"type": "ExternalName"},
        ),
    ],
    ids=["dynamic", "headless", "headless-selectorless", "requested", "external-name"],
)
def test_families_and_cluster_ips(spec: JSON, expected: JSON) -> None:
    allocated = _allocate(_service(**spec))["spec"]
    assert allocated.items() >= expected.items()
    if spec.get("type") == "ExternalName":
        assert "clusterIP" not in allocated
        assert "ipFamilies" not in allocated
    elif not spec:
        assert ipaddress.ip_address(allocated["clusterIP"]) in ServiceNetwork().cidr
        assert allocated["clusterIPs"] == [allocated["clusterIP"]]


@pytest.mark.parametrize(
    ("spec", "taken", "expected"),
    [
        (
            {"clusterIP": "10.0.0.9", "clusterIPs": ["10.0.0.9"]},
            {"10.0.0.9"},
            (
                422,
                'Service "web" is invalid: spec.clusterIPs: Invalid value: ["10.0.0.9"]: '
                "failed to allocate IP 10.0.0.9: provided IP is already allocated",
            ),
        ),
        (
            {"clusterIP": "fd00::1", "clusterIPs": ["fd00::1"]},
            set(),
            (
                422,
                'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: ["fd00::1"]: '
                "IPv6 is not configured on this cluster",
            ),
        ),
        (
            {"ipFamilyPolicy": "RequireDualStack"},
            set(),
            (
                422,
                'Service "web" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": '
                "this cluster is not configured for dual-stack services",
            ),
        ),
        (
            {},
            {f"10.0.0.{i}" for i in range(1, 255)},
            (500, "Internal error occurred: failed to allocate a serviceIP: range is full"),
        ),
    ],
    ids=["taken", "other-family", "dual-stack", "full"],
)
def test_refused_cluster_ips(spec: JSON, taken: set[str], expected: tuple[int, str]) -> None:
    assert _error(_service(**spec), ips=taken) == expected


def test_node_ports_shared_by_port_number_and_refused_when_taken() -> None:
    ports = [
        {"name": "tcp", "port": 53, "protocol": "TCP"},
        {"name": "udp", "port": 53, "protocol": "UDP"},
        {"name": "web", "port": 80, "nodePort": 30080},
    ]
    allocated = _allocate(_service(type="NodePort", ports=ports))["spec"]["ports"]
    assert allocated[0]["nodePort"] == allocated[1]["nodePort"] != 30080
    assert allocated[2]["nodePort"] == 30080
    assert _error(_service(type="NodePort", ports=ports), ports={30080}) == (
        422,
        'Service "web" is invalid: spec.ports[2].nodePort: Invalid value: 30080: '
        "provided port is already allocated",
    )


def test_update_keeps_its_own_node_port_and_a_load_balancer_may_skip_them() -> None:
    old = _allocate(_service(type="NodePort", ports=[{"port": 80, "nodePort": 30080}]))
    # Its own port is no conflict on update (the caller leaves this Service out of "in use").
    again = _allocate(old, ports={30081}, old=old)
    assert again["spec"]["ports"][0]["nodePort"] == 30080
    lb = _allocate(_service(type="LoadBalancer", allocateLoadBalancerNodePorts=False))
    assert "nodePort" not in lb["spec"]["ports"][0]


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    requests=st.lists(st.one_of(st.none(), st.integers(1, 14)), min_size=1, max_size=20),
)
def test_allocations_never_collide(seed: int, requests: list[int | None]) -> None:
    """Whatever mix of dynamic and requested addresses, no two live Services share an IP or
    a node port, and every address is a usable one of the range."""
    rng = random.Random(seed)
    ips: set[str] = set()
    ports: set[int] = set()
    refused: set[int] = set()
    for i, wanted in enumerate(requests):
        spec: JSON = {"type": "NodePort"}
        if wanted is not None:
            ip = f"10.0.0.{wanted}"
            spec.update(clusterIP=ip, clusterIPs=[ip])
        try:
            allocated = allocate_service(_service(f"s{i}", **spec), None, SMALL, ips, ports, rng)
        except ApiError as err:
            refused.add(err.code)  # a taken request (422) or a full range (500)
            continue
        ip, node_port = allocated["spec"]["clusterIP"], allocated["spec"]["ports"][0]["nodePort"]
        assert ip not in ips
        assert node_port not in ports
        assert ipaddress.ip_address(ip) in SMALL.cidr
        assert ip not in ("10.0.0.0", "10.0.0.15")
        assert 30000 <= node_port <= 30007
        ips.add(ip)
        ports.add(node_port)
        if rng.random() < 0.3:  # a Service goes away and frees both
            ips.discard(ip)
            ports.discard(node_port)
    assert refused <= {422, 500}


def _post(client: TestClient, name: str, **spec: Any) -> Any:
    body = {
        "metadata": {"name": name},
        "spec": {"selector": {"app": name}, "ports": [{"port": 80}], **spec},
    }
    return client.post("/api/v1/namespaces/default/services", json=body)


def test_through_the_api_addresses_are_held_until_delete(client: TestClient) -> None:
    first = _post(client, "first", clusterIP="10.0.0.40")
    assert first.status_code == 201
    assert first.json()["status"] == {"loadBalancer": {}}
    refused = _post(client, "second", clusterIP="10.0.0.40")
    assert refused.status_code == 422
    dry = client.post(
        "/api/v1/namespaces/default/services?dryRun=All",
        json={"metadata": {"name": "dry"}, "spec": {"ports": [{"port": 80}]}},
    )
    assert dry.status_code == 201
    assert dry.json()["spec"]["clusterIP"]
    assert client.get("/api/v1/namespaces/default/services/dry").status_code == 404
    assert client.delete("/api/v1/namespaces/default/services/first").status_code == 200
    assert _post(client, "second", clusterIP="10.0.0.40").status_code == 201
    listed = client.get(
        "/api/v1/namespaces/default/services?fieldSelector=spec.clusterIP=10.0.0.40"
    )
    assert [s["metadata"]["name"] for s in listed.json()["items"]] == ["second"]


def test_secret_values_never_reach_the_logs(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    marker = "hunter2-marker"
    encoded = base64.b64encode(marker.encode()).decode()
    caplog.set_level(logging.DEBUG)
    path = "/api/v1/namespaces/default/secrets"
    ok = client.post(path, json={"metadata": {"name": "s"}, "stringData": {"password": marker}})
    assert ok.status_code == 201
    bad = client.post(path, json={"metadata": {"name": "t"}, "data": {"k": encoded[:-1]}})
    assert bad.status_code == 400
    assert marker not in bad.text
    assert encoded[:-1] not in bad.text
    invalid = client.post(
        path,
        json={
            "metadata": {"name": "u"},
            "type": "kubernetes.io/dockerconfigjson",
            "data": {".dockerconfigjson": encoded},
        },
    )
    assert invalid.status_code == 422
    assert encoded not in invalid.text
    assert marker not in invalid.text
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert marker not in logged
    assert encoded not in logged
