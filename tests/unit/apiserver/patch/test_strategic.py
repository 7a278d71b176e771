"""Strategic merge patch: per-list merge keys, directives, ordering, kubectl's apply patches."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.apiserver.patch.errors import GENERIC_INVALID
from podscale.apiserver.patch.patcher import STRATEGIC_MERGE_PATCH, PatchError, apply_patch


def _smp(obj: dict[str, Any], patch: Any, kind: str, api_version: str) -> dict[str, Any]:
    body = orjson.dumps(patch)
    return apply_patch(STRATEGIC_MERGE_PATCH, obj, body, kind=kind, api_version=api_version)


def _web() -> dict[str, Any]:
    return {
        "name": "web",
        "image": "nginx:1.25",
        "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
        "ports": [
            {"containerPort": 80, "protocol": "TCP"},
            {"containerPort": 8080, "protocol": "TCP"},
        ],
        "volumeMounts": [{"name": "data", "mountPath": "/data"}],
    }


def _replicaset() -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": "foo",
            "namespace": "default",
            "labels": {"app": "foo", "tier": "web"},
            "finalizers": ["a", "b"],
            "ownerReferences": [{"uid": "u1", "name": "d", "kind": "Deployment"}],
        },
        "spec": {
            "replicas": 4,
            "selector": {"matchLabels": {"app": "foo"}},
            "template": {
                "metadata": {"labels": {"app": "foo"}},
                "spec": {
                    "containers": [_web(), {"name": "side", "image": "busybox"}],
                    "volumes": [{"name": "data", "emptyDir": {}}],
                    "tolerations": [{"key": "k1", "operator": "Exists"}],
                    "imagePullSecrets": [{"name": "s1"}],
                },
            },
        },
        "status": {
            "replicas": 4,
            "conditions": [{"type": "ReplicaFailure", "status": "False"}],
        },
    }


def _rs(patch: Any) -> dict[str, Any]:
    return _smp(_replicaset(), patch, "ReplicaSet", "apps/v1")


def _pod_spec(obj: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = obj["spec"]["template"]["spec"]
    return spec


def _container(obj: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in _pod_spec(obj)["containers"] if c["name"] == name)


def test_kubectl_second_apply_removes_container_env_var_and_port() -> None:
    # The body kubectl 1.32 sends on the second `apply -f` (kubectl-wire.md §5).
    patch = {
        "metadata": {"labels": {"tier": None}},
        "spec": {
            "replicas": None,
            "template": {
                "spec": {
                    "$setElementOrder/containers": [{"name": "web"}],
                    "containers": [
                        {
                            "$setElementOrder/env": [{"name": "B"}],
                            "$setElementOrder/ports": [{"containerPort": 8080}],
                            "env": [{"name": "B", "value": "2"}, {"$patch": "delete", "name": "A"}],
                            "name": "web",
                            "ports": [
                                {"containerPort": 8080},
                                {"$patch": "delete", "containerPort": 80},
                            ],
                        },
                        {"$patch": "delete", "name": "side"},
                    ],
                }
            },
        },
    }
    result = _rs(patch)
    expected = _replicaset()
    del expected["metadata"]["labels"]["tier"]
    del expected["spec"]["replicas"]
    web = _web()
    web["env"] = [{"name": "B", "value": "2"}]
    web["ports"] = [{"containerPort": 8080, "protocol": "TCP"}]
    _pod_spec(expected)["containers"] = [web]
    assert result == expected
    assert "$patch" not in orjson.dumps(result).decode()


def test_kubectl_apply_changing_image_and_replicas() -> None:
    patch = {
        "metadata": {"annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"}},
        "spec": {
            "replicas": 5,
            "template": {
                "spec": {
                    "$setElementOrder/containers": [{"name": "web"}, {"name": "side"}],
                    "containers": [{"image": "nginx:1.26", "name": "web"}],
                }
            },
        },
    }
    result = _rs(patch)
    assert result["spec"]["replicas"] == 5
    assert [c["name"] for c in _pod_spec(result)["containers"]] == ["web", "side"]
    assert _container(result, "web") == {**_web(), "image": "nginx:1.26"}
    assert result["metadata"]["annotations"] == patch["metadata"]["annotations"]


def test_python_client_scale_patch() -> None:
    scale = {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {"name": "foo", "namespace": "default"},
        "spec": {"replicas": 1},
        "status": {"replicas": 1, "selector": "app=foo"},
    }
    result = _smp(scale, {"spec": {"replicas": 3}}, "Scale", "autoscaling/v1")
    assert result == {**scale, "spec": {"replicas": 3}}


@pytest.mark.parametrize(
    ("patch", "path", "expected"),
    [
        (
            {"spec": {"template": {"spec": {"containers": [{"name": "side", "image": "alpine"}]}}}},
            ("spec", "template", "spec", "containers"),
            [_web(), {"name": "side", "image": "alpine"}],
        ),
        (
            {
                "spec": {
                    "template": {
                        "spec": {
                            "containers": [
                                {"name": "web", "ports": [{"containerPort": 80, "name": "http"}]}
                            ]
                        }
                    }
                }
            },
            ("spec", "template", "spec", "containers", 0, "ports"),
            [
                {"containerPort": 80, "protocol": "TCP", "name": "http"},
                {"containerPort": 8080, "protocol": "TCP"},
            ],
        ),
        (
            {
                "spec": {
                    "template": {
                        "spec": {
                            "containers": [{"name": "web", "env": [{"name": "B", "value": "9"}]}]
                        }
                    }
                }
            },
            ("spec", "template", "spec", "containers", 0, "env"),
            [{"name": "A", "value": "1"}, {"name": "B", "value": "9"}],
        ),
        (
            {
                "spec": {
                    "template": {
                        "spec": {
                            "containers": [
                                {
                                    "name": "web",
                                    "volumeMounts": [
                                        {"mountPath": "/data", "readOnly": True, "name": "data"}
                                    ],
                                }
                            ]
                        }
                    }
                }
            },
            ("spec", "template", "spec", "containers", 0, "volumeMounts"),
            [{"name": "data", "mountPath": "/data", "readOnly": True}],
        ),
        (
            {
                "spec": {
                    "template": {
                        "spec": {"volumes": [{"name": "data", "emptyDir": {"medium": "Memory"}}]}
                    }
                }
            },
            ("spec", "template", "spec", "volumes"),
            [{"name": "data", "emptyDir": {"medium": "Memory"}}],
        ),
        (
            {"spec": {"template": {"spec": {"imagePullSecrets": [{"name": "s2"}]}}}},
            ("spec", "template", "spec", "imagePullSecrets"),
            [{"name": "s2"}, {"name": "s1"}],
        ),
        (
            {
                "spec": {
                    "template": {"spec": {"tolerations": [{"key": "k2", "operator": "Exists"}]}}
                }
            },
            ("spec", "template", "spec", "tolerations"),
            [{"key": "k2", "operator": "Exists"}],
        ),
        (
            {"metadata": {"ownerReferences": [{"uid": "u1", "controller": True}]}},
            ("metadata", "ownerReferences"),
            [{"uid": "u1", "name": "d", "kind": "Deployment", "controller": True}],
        ),
        (
            {"metadata": {"finalizers": ["c", "a"]}},
            ("metadata", "finalizers"),
            ["c", "a", "b"],
        ),
        (
            {"status": {"conditions": [{"type": "ReplicaFailure", "status": "True"}]}},
            ("status", "conditions"),
            [{"type": "ReplicaFailure", "status": "True"}],
        ),
        (
            {"spec": {"selector": {"matchLabels": {"tier": "web"}}}},
            ("spec", "selector", "matchLabels"),
            {"app": "foo", "tier": "web"},
        ),
    ],
    ids=[
        "containers-by-name",
        "ports-by-containerPort",
        "env-by-name",
        "volumeMounts-by-mountPath",
        "volumes-by-name",
        "imagePullSecrets-by-name-new-first",
        "tolerations-atomic",
        "ownerReferences-by-uid",
        "finalizers-as-set",
        "status-conditions-by-type",
        "maps-merge",
    ],
)
def test_replicaset_merge_keys(patch: Any, path: tuple[str | int, ...], expected: Any) -> None:
    node: Any = _rs(patch)
    for part in path:
        node = node[part]
    assert node == expected


@pytest.mark.parametrize(
    ("kind", "api_version", "original", "patch", "expected"),
    [
        (
            "Pod",
            "v1",
            {"spec": {"containers": [{"name": "a", "env": [{"name": "X", "value": "1"}]}]}},
            {"spec": {"containers": [{"name": "a", "env": [{"name": "Y", "value": "2"}]}]}},
            {
                "spec": {
                    "containers": [
                        {
                            "name": "a",
                            "env": [{"name": "Y", "value": "2"}, {"name": "X", "value": "1"}],
                        }
                    ]
                }
            },
        ),
        (
            "Pod",
            "v1",
            {
                "status": {
                    "conditions": [{"type": "Ready", "status": "False"}],
                    "podIPs": [{"ip": "1"}],
                }
            },
            {
                "status": {
                    "conditions": [{"type": "Ready", "status": "True"}],
                    "podIPs": [{"ip": "2"}],
                }
            },
            {
                "status": {
                    "conditions": [{"type": "Ready", "status": "True"}],
                    "podIPs": [{"ip": "2"}, {"ip": "1"}],
                }
            },
        ),
        (
            "Pod",
            "v1",
            {"spec": {"topologySpreadConstraints": [{"topologyKey": "zone", "maxSkew": 1}]}},
            {"spec": {"topologySpreadConstraints": [{"topologyKey": "zone", "maxSkew": 2}]}},
            {"spec": {"topologySpreadConstraints": [{"topologyKey": "zone", "maxSkew": 2}]}},
        ),
        (
            "Node",
            "v1",
            {
                "spec": {"podCIDRs": ["10.0.0.0/24"]},
                "status": {"addresses": [{"type": "A", "address": "1"}]},
            },
            {
                "spec": {"podCIDRs": ["fd00::/64"]},
                "status": {"addresses": [{"type": "A", "address": "2"}]},
            },
            {
                "spec": {"podCIDRs": ["fd00::/64", "10.0.0.0/24"]},
                "status": {"addresses": [{"type": "A", "address": "2"}]},
            },
        ),
        (
            "HorizontalPodAutoscaler",
            "autoscaling/v2",
            {
                "spec": {"metrics": [{"type": "Resource", "resource": {"name": "cpu"}}]},
                "status": {"conditions": [{"type": "AbleToScale", "status": "True"}]},
            },
            {
                "spec": {"metrics": [{"type": "Pods", "pods": {}}]},
                "status": {"conditions": [{"type": "ScalingActive", "status": "False"}]},
            },
            {
                "spec": {"metrics": [{"type": "Pods", "pods": {}}]},
                "status": {
                    "conditions": [
                        {"type": "ScalingActive", "status": "False"},
                        {"type": "AbleToScale", "status": "True"},
                    ]
                },
            },
        ),
        (
            "Deployment",
            "apps/v1",
            {"spec": {"template": {"spec": {"initContainers": [{"name": "i", "image": "a"}]}}}},
            {"spec": {"template": {"spec": {"initContainers": [{"name": "i", "image": "b"}]}}}},
            {"spec": {"template": {"spec": {"initContainers": [{"name": "i", "image": "b"}]}}}},
        ),
        (
            "StatefulSet",
            "apps/v1",
            {"spec": {"template": {"metadata": {"finalizers": ["x"]}}}},
            {"spec": {"template": {"metadata": {"finalizers": ["y"]}}}},
            {"spec": {"template": {"metadata": {"finalizers": ["y", "x"]}}}},
        ),
        (
            "Event",
            "v1",
            {"involvedObject": {"kind": "Pod"}, "related": [{"a": 1}]},
            {"involvedObject": {"name": "p"}, "related": [{"b": 2}]},
            {"involvedObject": {"kind": "Pod", "name": "p"}, "related": [{"b": 2}]},
        ),
    ],
    ids=[
        "pod-env-new-item-first",
        "pod-status-conditions-and-podIPs",
        "pod-topology-spread-by-topologyKey",
        "node-podCIDRs-and-addresses",
        "hpa-v2-metrics-atomic-conditions-merge",
        "deployment-initContainers",
        "statefulset-template-finalizers",
        "unknown-lists-atomic",
    ],
)
def test_merge_keys_of_other_kinds(
    kind: str, api_version: str, original: Any, patch: Any, expected: Any
) -> None:
    assert _smp(original, patch, kind, api_version) == expected


@pytest.mark.parametrize(
    ("patch", "check"),
    [
        (
            {"spec": {"selector": {"$patch": "replace", "matchLabels": {"x": "y"}}}},
            lambda o: o["spec"]["selector"] == {"matchLabels": {"x": "y"}},
        ),
        (
            {"spec": {"selector": {"$patch": "delete"}}},
            lambda o: o["spec"]["selector"] == {},
        ),
        (
            {"metadata": {"labels": {"$patch": "replace", "only": "this", "gone": None}}},
            lambda o: o["metadata"]["labels"] == {"only": "this"},
        ),
        (
            {
                "spec": {
                    "template": {
                        "spec": {
                            "containers": [{"$patch": "replace"}, {"name": "solo", "image": "x"}]
                        }
                    }
                }
            },
            lambda o: _pod_spec(o)["containers"] == [{"name": "solo", "image": "x"}],
        ),
        (
            {"spec": {"template": {"spec": {"volumes": [{"$patch": "delete", "name": "data"}]}}}},
            lambda o: _pod_spec(o)["volumes"] == [],
        ),
        (
            {"spec": {"template": {"spec": {"volumes": [{"$patch": "delete", "name": "absent"}]}}}},
            lambda o: _pod_spec(o)["volumes"] == [{"name": "data", "emptyDir": {}}],
        ),
        (
            {"metadata": {"$deleteFromPrimitiveList/finalizers": ["a", "zz"]}},
            lambda o: o["metadata"]["finalizers"] == ["b"],
        ),
        (
            {
                "metadata": {
                    "$setElementOrder/finalizers": ["b", "a"],
                    "$deleteFromPrimitiveList/finalizers": ["a"],
                }
            },
            lambda o: o["metadata"]["finalizers"] == ["b"],
        ),
        (
            {"metadata": {"$setElementOrder/finalizers": ["b", "a"]}},
            lambda o: o["metadata"]["finalizers"] == ["b", "a"],
        ),
        (
            {
                "spec": {
                    "template": {
                        "spec": {
                            "$setElementOrder/containers": [
                                {"name": "side"},
                                {"name": "new"},
                                {"name": "web"},
                            ],
                            "containers": [{"name": "new", "image": "x"}],
                        }
                    }
                }
            },
            lambda o: [c["name"] for c in _pod_spec(o)["containers"]] == ["side", "new", "web"],
        ),
        (
            {
                "spec": {
                    "template": {
                        "spec": {
                            "$setElementOrder/initContainers": [{"name": "i"}],
                            "initContainers": [{"name": "i", "image": "x", "args": None}],
                        }
                    }
                }
            },
            lambda o: _pod_spec(o)["initContainers"] == [{"name": "i", "image": "x"}],
        ),
        (
            {"spec": {"template": {"spec": {"$retainKeys": ["containers"], "containers": []}}}},
            lambda o: (
                _pod_spec(o) == {"containers": [_web(), {"name": "side", "image": "busybox"}]}
            ),
        ),
        (
            {
                "spec": {
                    "template": {
                        "spec": {
                            "volumes": [
                                {
                                    "name": "data",
                                    "$retainKeys": ["name", "hostPath"],
                                    "hostPath": {"path": "/x"},
                                }
                            ]
                        }
                    }
                }
            },
            lambda o: _pod_spec(o)["volumes"] == [{"name": "data", "hostPath": {"path": "/x"}}],
        ),
        (
            {
                "spec": {
                    "template": {"spec": {"nodeSelector": {"disk": "ssd", "$patch": "replace"}}}
                }
            },
            lambda o: _pod_spec(o)["nodeSelector"] == {"disk": "ssd"},
        ),
        (
            {"spec": {"newField": {"$patch": "delete", "a": 1, "b": None, "c": [{"$patch": "x"}]}}},
            lambda o: o["spec"]["newField"] == {"a": 1, "c": [{}]},
        ),
        (
            {"metadata": {"labels": None}, "spec": {"replicas": None, "missing": None}},
            lambda o: "labels" not in o["metadata"] and "replicas" not in o["spec"],
        ),
        (
            {"spec": {"template": {"spec": {"containers": [{"name": "web", "ports": None}]}}}},
            lambda o: "ports" not in _container(o, "web"),
        ),
        (
            {"spec": {"replicas": {"not": "an int"}}},
            lambda o: o["spec"]["replicas"] == {"not": "an int"},
        ),
        (None, lambda o: o == _replicaset()),
        ({}, lambda o: o == _replicaset()),
    ],
    ids=[
        "map-replace",
        "map-delete-empties",
        "map-replace-drops-nulls",
        "list-replace",
        "list-item-delete",
        "list-item-delete-absent",
        "delete-from-primitive-list",
        "set-order-with-primitive-deletion",
        "set-order-primitive-reorder",
        "set-order-places-new-item",
        "set-order-new-list-field",
        "retain-keys-on-map",
        "retain-keys-on-list-item",
        "replace-in-plain-map",
        "new-values-lose-directives-and-nulls",
        "null-deletes",
        "null-deletes-list",
        "type-change-replaces",
        "null-body",
        "empty-body",
    ],
)
def test_directives(patch: Any, check: Any) -> None:
    assert check(_rs(patch))


def test_new_items_go_first_without_set_element_order() -> None:
    # Upstream's ordering places an item the server list lacks before the server's items.
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "new", "image": "x"}]}}}}
    assert [c["name"] for c in _pod_spec(_rs(patch))["containers"]] == ["new", "web", "side"]


def test_updated_items_keep_their_place() -> None:
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "side", "image": "x"}]}}}}
    assert [c["name"] for c in _pod_spec(_rs(patch))["containers"]] == ["web", "side"]


@pytest.mark.parametrize(
    ("patch", "code", "message"),
    [
        (
            {"spec": {"selector": {"$patch": "merge"}}},
            400,
            "unknown patch type: merge in map: map[$patch:merge]",
        ),
        (
            {"spec": {"template": {"spec": {"volumes": [{"$patch": "merge", "name": "data"}]}}}},
            400,
            "merging lists cannot yet be specified in the patch",
        ),
        (
            {"spec": {"template": {"spec": {"volumes": [{"$patch": "bogus", "name": "data"}]}}}},
            400,
            "unknown patch type: bogus in map: map[$patch:bogus name:data]",
        ),
        (
            {"spec": {"template": {"spec": {"containers": [{"image": "x"}]}}}},
            400,
            "map: map[image:x] does not contain declared merge key: name",
        ),
        (
            {"spec": {"template": {"spec": {"volumes": [{"$patch": "delete"}]}}}},
            400,
            "map: map[$patch:delete] does not contain declared merge key: name",
        ),
        ({"metadata": {"finalizers": [["nested"]]}}, 422, GENERIC_INVALID),
        ({"metadata": {"finalizers": [1]}}, 400, "list element types are not identical"),
        ({"metadata": {"$retainKeys": "name"}}, 400, "invalid patch format of retainKeys"),
        (
            {"metadata": {"$retainKeys": ["name"], "labels": {"a": "b"}}},
            400,
            "invalid patch format of retainKeys",
        ),
        (
            {"metadata": {"$deleteFromPrimitiveListX/finalizers": ["a"]}},
            400,
            "invalid patch format of primitive list",
        ),
        (
            {"metadata": {"$setElementOrderfinalizers": ["a"]}},
            400,
            "invalid patch format of setElementOrder list",
        ),
        (
            {"metadata": {"$setElementOrder/finalizers": "a"}},
            400,
            "expected a []interface {}, but received a string",
        ),
        (
            {"metadata": {"$setElementOrder/finalizers": ["a"], "finalizers": ["b"]}},
            400,
            "The order in patch list:\n[b]\n doesn't match $setElementOrder list:\n[a]\n",
        ),
        (
            {
                "spec": {
                    "template": {
                        "spec": {
                            "$setElementOrder/containers": [{"image": "x"}],
                            "containers": [{"name": "web"}],
                        }
                    }
                }
            },
            400,
            "map: map[image:x] does not contain declared merge key: name",
        ),
    ],
    ids=[
        "map-merge-directive",
        "list-merge-directive",
        "list-unknown-directive",
        "item-without-merge-key",
        "delete-without-merge-key",
        "list-of-lists",
        "mixed-element-types",
        "retain-keys-not-a-list",
        "retain-keys-missing-patched-key",
        "bad-delete-prefix",
        "bad-order-prefix",
        "order-not-a-list",
        "order-mismatch",
        "order-item-without-key",
    ],
)
def test_malformed_patches(patch: Any, code: int, message: str) -> None:
    with pytest.raises(PatchError) as caught:
        _rs(patch)
    assert caught.value.code == code
    assert str(caught.value).startswith(message)


_names = st.sampled_from(["a", "b", "c", "d", "e"])
_containers = st.lists(
    st.builds(lambda n, i: {"name": n, "image": i}, _names, st.sampled_from(["x", "y", "z"])),
    max_size=5,
    unique_by=lambda c: c["name"],
)


def _pod(containers: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "spec": {"containers": containers}}


@given(_containers, _containers)
def test_container_lists_merge_as_a_union_keyed_by_name(
    server: list[dict[str, Any]], patched: list[dict[str, Any]]
) -> None:
    result = _smp(_pod(server), {"spec": {"containers": patched}}, "Pod", "v1")
    merged = {c["name"]: c for c in result["spec"]["containers"]}
    assert len(merged) == len(result["spec"]["containers"])
    assert merged == {c["name"]: c for c in [*server, *patched]}
    # Items the patch does not name keep their relative server order.
    untouched = [c["name"] for c in server if c["name"] not in {p["name"] for p in patched}]
    assert [c["name"] for c in result["spec"]["containers"] if c["name"] in untouched] == untouched


@given(_containers, _containers)
def test_set_element_order_yields_the_patch_order_then_server_leftovers(
    server: list[dict[str, Any]], patched: list[dict[str, Any]]
) -> None:
    order = [{"name": c["name"]} for c in patched]
    patch = {"spec": {"$setElementOrder/containers": order, "containers": patched}}
    result = _smp(_pod(server), patch, "Pod", "v1")
    names = [c["name"] for c in result["spec"]["containers"]]
    assert [n for n in names if n in {o["name"] for o in order}] == [o["name"] for o in order]
    assert _smp(result, patch, "Pod", "v1") == result
