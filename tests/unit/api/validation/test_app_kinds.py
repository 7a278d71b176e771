"""Validation and defaults of ConfigMap, Secret, ServiceAccount, Service, PodDisruptionBudget
and Lease: upstream's field paths and messages, one table per kind."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from podscale.api import apply_defaults, validate
from podscale.api.core_data import DataError, decode_base64, normalize_data_maps
from podscale.api.service_fields import prepare_service_create, prepare_service_update

JSON = dict[str, Any]


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _obj(api_version: str, kind: str, **fields: Any) -> JSON:
    return {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": "x", "namespace": "d"},
        **fields,
    }


def _messages(obj: JSON, old: JSON | None = None) -> list[str]:
    return [str(e) for e in validate(apply_defaults(obj), old=old)]


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (_obj("v1", "ConfigMap", data={"a.b_C-1": "x"}), []),
        (
            _obj("v1", "ConfigMap", data={"a b": "x"}),
            [
                'data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric '
                "characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', "
                "regex used for validation is '[-._a-zA-Z0-9]+')"
            ],
        ),
        (
            _obj("v1", "ConfigMap", data={"..x": "x"}),
            ["data[..x]: Invalid value: \"..x\": must not start with '..'"],
        ),
        (
            _obj("v1", "ConfigMap", data={"k": "x"}, binaryData={"k": _b64("y")}),
            ['data[k]: Invalid value: "k": duplicate of key present in binaryData'],
        ),
        (
            _obj("v1", "ConfigMap", data={"k": "x" * (1024 * 1024)}, binaryData={"j": _b64("y")}),
            [": Too long: may not be more than 1048576 bytes"],
        ),
        (_obj("v1", "Secret", data={"k": _b64("v")}), []),
        (
            _obj("v1", "Secret", type="kubernetes.io/tls", data={"tls.crt": _b64("c")}),
            ["data[tls.key]: Required value"],
        ),
        (
            _obj("v1", "Secret", type="kubernetes.io/basic-auth", data={}),
            ["data[username]: Required value", "data[password]: Required value"],
        ),
        (_obj("v1", "Secret", type="kubernetes.io/basic-auth", data={"password": ""}), []),
        (
            _obj("v1", "Secret", type="kubernetes.io/ssh-auth"),
            ["data[ssh-privatekey]: Required value"],
        ),
        (
            _obj(
                "v1",
                "Secret",
                type="kubernetes.io/dockerconfigjson",
                data={".dockerconfigjson": _b64("[1]")},
            ),
            [
                'data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": '
                "the JSON document is not an object"
            ],
        ),
        (
            _obj("v1", "Secret", type="kubernetes.io/service-account-token"),
            ["metadata.annotations[kubernetes.io/service-account.name]: Required value"],
        ),
        (_obj("v1", "ServiceAccount", secrets=[{"name": "s"}]), []),
        (
            {
                "apiVersion": "v1",
                "kind": "ServiceAccount",
                "metadata": {"name": "Bad_Name", "namespace": "d"},
            },
            [
                'metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must '
                "consist of lower case alphanumeric characters, '-' or '.', and must start and end "
                "with an alphanumeric character (e.g. 'example.com', regex used for validation is "
                "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
            ],
        ),
        (_obj("policy/v1", "PodDisruptionBudget", spec={"minAvailable": "50%"}), []),
        (
            _obj("policy/v1", "PodDisruptionBudget", spec={"minAvailable": 1, "maxUnavailable": 1}),
            [
                'spec: Invalid value: {"maxUnavailable":1,"minAvailable":1}: '
                "minAvailable and maxUnavailable cannot be both set"
            ],
        ),
        (
            _obj("policy/v1", "PodDisruptionBudget", spec={"maxUnavailable": "150%"}),
            ['spec.maxUnavailable: Invalid value: "150%": must not be greater than 100%'],
        ),
        (
            _obj("policy/v1", "PodDisruptionBudget", spec={"minAvailable": -1}),
            ["spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"],
        ),
        (
            _obj("policy/v1", "PodDisruptionBudget", spec={"unhealthyPodEvictionPolicy": "Never"}),
            [
                'spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: '
                '"AlwaysAllow", "IfHealthyBudget"'
            ],
        ),
        (
            _obj(
                "coordination.k8s.io/v1",
                "Lease",
                spec={"holderIdentity": "a", "leaseDurationSeconds": 15},
            ),
            [],
        ),
        (
            _obj(
                "coordination.k8s.io/v1",
                "Lease",
                spec={"leaseDurationSeconds": 0, "leaseTransitions": -1},
            ),
            [
                "spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
                "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0",
            ],
        ),
        (
            _obj("coordination.k8s.io/v1", "Lease", spec={"preferredHolder": "b"}),
            ["spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined"],
        ),
        (
            _obj(
                "coordination.k8s.io/v1",
                "Lease",
                spec={"strategy": "OldestEmulationVersion", "preferredHolder": "b"},
            ),
            [],
        ),
        (
            _obj("coordination.k8s.io/v1", "Lease", spec={"strategy": "example.com/Newest"}),
            [],
        ),
        (
            _obj("coordination.k8s.io/v1", "Lease", spec={"strategy": "Newest"}),
            [
                'spec.strategy.strategy: Unsupported value: "Newest": supported values: '
                '"OldestEmulationVersion"'
            ],
        ),
        (
            _obj("coordination.k8s.io/v1", "Lease", spec={"strategy": "/Newest"}),
            ['spec.strategy.strategy: Invalid value: "/Newest": prefix part must be non-empty'],
        ),
        (
            _obj(
                "coordination.k8s.io/v1",
                "Lease",
                spec={"holderIdentity": "", "leaseDurationSeconds": 1, "leaseTransitions": 0},
            ),
            [],
        ),
    ],
    ids=[
        "cm-valid",
        "cm-bad-key",
        "cm-dotdot-key",
        "cm-key-in-both",
        "cm-too-big",
        "secret-valid",
        "secret-tls-missing-key",
        "secret-basic-auth-no-keys",
        "secret-basic-auth-one-key",
        "secret-ssh-missing-key",
        "secret-dockerconfigjson-not-object",
        "secret-sa-token-no-annotation",
        "sa-valid",
        "sa-bad-name",
        "pdb-valid-percent",
        "pdb-both",
        "pdb-over-100-percent",
        "pdb-negative",
        "pdb-bad-eviction-policy",
        "lease-valid",
        "lease-bad-numbers",
        "lease-preferred-without-strategy",
        "lease-preferred-with-strategy",
        "lease-prefixed-strategy-qualified-name",
        "lease-unprefixed-strategy-not-kubernetes-defined",
        "lease-prefixed-strategy-empty-prefix",
        "lease-released-by-client-go",
    ],
)
def test_create_validation(obj: JSON, expected: list[str]) -> None:
    assert _messages(obj) == expected


@pytest.mark.parametrize(
    ("old", "change", "expected"),
    [
        (
            _obj("v1", "ConfigMap", data={"k": "v"}, immutable=True),
            {"data": {"k": "w"}},
            ["data: Forbidden: field is immutable when `immutable` is set"],
        ),
        (
            _obj("v1", "ConfigMap", data={"k": "v"}, immutable=True),
            {"immutable": False},
            ["immutable: Forbidden: field is immutable when `immutable` is set"],
        ),
        (
            _obj("v1", "Secret", data={"k": _b64("v")}),
            {"type": "kubernetes.io/tls", "data": {"tls.crt": "", "tls.key": ""}},
            ['type: Invalid value: "kubernetes.io/tls": field is immutable'],
        ),
        (_obj("v1", "Secret", data={"k": _b64("v")}), {"data": {"k": _b64("w")}}, []),
    ],
    ids=["cm-immutable-data", "cm-immutable-unset", "secret-type-immutable", "secret-data-change"],
)
def test_update_validation(old: JSON, change: JSON, expected: list[str]) -> None:
    old = apply_defaults(old)
    new = {**old, **change}
    assert _messages(new, old) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("aGVsbG8=", b"hello"),
        ("aGVs\nbG8=", b"hello"),
        ("", b""),
        ("aGVsbG8", "illegal base64 data at input byte 4"),
        ("aGV*bG8=", "illegal base64 data at input byte 3"),
        ("a===", "illegal base64 data at input byte 0"),
    ],
    ids=["padded", "newline-skipped", "empty", "missing-padding", "bad-char", "too-much-padding"],
)
def test_decode_base64_like_go(text: str, expected: bytes | str) -> None:
    if isinstance(expected, bytes):
        assert decode_base64(text) == expected
    else:
        with pytest.raises(DataError, match=f"^{expected}$"):
            decode_base64(text)


def test_string_data_is_merged_into_data_and_wins() -> None:
    secret = _obj(
        "v1", "Secret", data={"a": _b64("old"), "b": "Yg" + "=="}, stringData={"a": "new"}
    )
    merged = normalize_data_maps(secret)
    assert merged["data"] == {"a": _b64("new"), "b": "Yg=="}
    assert "stringData" not in merged
    assert "stringData" in secret  # the input is not changed


SERVICE_SPEC: JSON = {"selector": {"app": "web"}, "ports": [{"port": 80}]}


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({}, {"type": "ClusterIP", "sessionAffinity": "None", "internalTrafficPolicy": "Cluster"}),
        (
            {"sessionAffinity": "ClientIP"},
            {"sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 10800}}},
        ),
        (
            {"type": "NodePort"},
            {"externalTrafficPolicy": "Cluster", "internalTrafficPolicy": "Cluster"},
        ),
        (
            {"type": "LoadBalancer"},
            {"allocateLoadBalancerNodePorts": True, "externalTrafficPolicy": "Cluster"},
        ),
        ({"type": "ExternalName", "externalName": "db.example.com"}, {"sessionAffinity": "None"}),
    ],
    ids=["cluster-ip", "client-ip-affinity", "node-port", "load-balancer", "external-name"],
)
def test_service_defaults(spec: JSON, expected: JSON) -> None:
    defaulted = apply_defaults(_obj("v1", "Service", spec={**SERVICE_SPEC, **spec}))["spec"]
    assert defaulted.items() >= expected.items()
    assert defaulted["ports"] == [{"port": 80, "protocol": "TCP", "targetPort": 80}]
    if spec.get("type") == "ExternalName":
        assert "internalTrafficPolicy" not in defaulted


def test_secret_type_defaults_to_opaque() -> None:
    assert apply_defaults(_obj("v1", "Secret"))["type"] == "Opaque"


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (SERVICE_SPEC, []),
        ({"clusterIP": "None"}, []),
        (
            {"ports": [{"port": 80}, {"port": 81}]},
            ["spec.ports[0].name: Required value", "spec.ports[1].name: Required value"],
        ),
        (
            {"ports": [{"name": "a", "port": 80}, {"name": "a", "port": 81}]},
            ['spec.ports[1].name: Duplicate value: "a"'],
        ),
        ({"ports": []}, ["spec.ports: Required value"]),
        (
            {"ports": [{"port": 0}]},
            [
                "spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
                # targetPort defaulted to the port, so it is out of range too (as upstream).
                "spec.ports[0].targetPort: Invalid value: 0: "
                "must be between 1 and 65535, inclusive",
            ],
        ),
        (
            {"ports": [{"port": 80, "protocol": "HTTP"}]},
            [
                'spec.ports[0].protocol: Unsupported value: "HTTP": '
                'supported values: "SCTP", "TCP", "UDP"'
            ],
        ),
        (
            {"ports": [{"port": 80, "targetPort": "Http_Port"}]},
            [
                'spec.ports[0].targetPort: Invalid value: "Http_Port": must contain only '
                "alpha-numeric characters (a-z, 0-9), and hyphens (-)",
            ],
        ),
        (
            {"ports": [{"port": 80, "nodePort": 30001}]},
            ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"],
        ),
        (
            {"type": "NodePort", "clusterIP": "None"},
            [
                'spec.clusterIPs[0]: Invalid value: "None": '
                "may not be set to 'None' for NodePort services"
            ],
        ),
        (
            {"clusterIP": "10.0.0.300"},
            [
                'spec.clusterIPs[0]: Invalid value: "10.0.0.300": must be a valid IP address, '
                "(e.g. 10.9.8.7 or 2001:db8::ffff)"
            ],
        ),
        (
            {"type": "Balanced"},
            [
                'spec.type: Unsupported value: "Balanced": supported values: "ClusterIP", '
                '"ExternalName", "LoadBalancer", "NodePort"'
            ],
        ),
        ({"type": "ExternalName", "ports": []}, ["spec.externalName: Required value"]),
        (
            {"selector": {"app": "-bad"}},
            [
                'spec.selector: Invalid value: "-bad": a valid label must be an empty string or '
                "consist of alphanumeric characters, '-', '_' or '.', and must start and end "
                "with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
                "regex used for "
                "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
            ],
        ),
        (
            {
                "sessionAffinity": "ClientIP",
                "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 0}},
            },
            [
                "spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 0: "
                "must be greater than 0 and less than 86400"
            ],
        ),
    ],
    ids=[
        "valid",
        "headless",
        "names-required",
        "duplicate-names",
        "no-ports",
        "port-zero",
        "bad-protocol",
        "bad-target-port-name",
        "node-port-on-cluster-ip",
        "headless-node-port",
        "bad-ip",
        "bad-type",
        "external-name-required",
        "bad-selector",
        "affinity-timeout",
    ],
)
def test_service_validation(spec: JSON, expected: list[str]) -> None:
    obj = _obj("v1", "Service", spec={**SERVICE_SPEC, **spec})
    prepare_service_create(obj)
    assert _messages(obj) == expected


def test_service_name_is_a_dns1035_label() -> None:
    obj = _obj("v1", "Service", spec=SERVICE_SPEC)
    obj["metadata"]["name"] = "1web"
    (message,) = _messages(obj)
    assert message.startswith('metadata.name: Invalid value: "1web": a DNS-1035 label must')


def test_service_update_keeps_the_allocated_cluster_ip_and_refuses_a_new_one() -> None:
    old = apply_defaults(_obj("v1", "Service", spec={**SERVICE_SPEC, "clusterIP": "10.0.0.9"}))
    prepare_service_create(old)
    # A PUT without clusterIP (kubectl replace) keeps the stored one.
    replaced = _obj("v1", "Service", spec=dict(SERVICE_SPEC))
    prepare_service_update(replaced, old)
    assert (replaced["spec"]["clusterIP"], replaced["spec"]["clusterIPs"]) == (
        "10.0.0.9",
        ["10.0.0.9"],
    )
    assert _messages(replaced, old) == []
    changed = _obj("v1", "Service", spec={**SERVICE_SPEC, "clusterIP": "10.0.0.10"})
    prepare_service_update(changed, old)
    assert _messages(changed, old) == [
        'spec.clusterIPs[0]: Invalid value: ["10.0.0.10"]: may not change once set'
    ]
