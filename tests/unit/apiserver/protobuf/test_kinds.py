"""Protobuf bodies of every served kind decode to the JSON upstream would see.

Two independent checks: bodies captured from the real kubectl 1.33.1 (its gogo encoder)
against what the same kubectl prints with ``--dry-run=client -o json`` (Go's JSON encoder);
and rich objects of every kind encoded by a small encoder below, written from the field
tables, decoded back unchanged (the tables themselves are checked against upstream's
descriptors in test_protobuf_tables.py).
"""

from __future__ import annotations

import base64
import datetime
import json
from typing import Any

import pytest
from starlette.testclient import TestClient

from podscale.apiserver.protobuf.bodies import decode_protobuf_object
from podscale.apiserver.protobuf.schema import ROOTS, FieldKind, FieldSpec, MessageSpec

JSON = dict[str, Any]


CAPTURED = {
    # kubectl 1.33.1 create namespace team-a
    "namespace": (
        "v1",
        "Namespace",
        "6b3873000a0f0a02763112094e616d657370616365121e0a160a067465616d2d6112001a0022002a"
        "0032003800420012001a020a001a002200",
    ),
    # kubectl 1.33.1 create deployment x --image=nginx
    "deployment": (
        "apps/v1",
        "Deployment",
        "6b3873000a150a07617070732f7631120a4465706c6f796d656e7412a3010a1b0a017812001a0022"
        "002a003200380042005a080a0361707012017812760801120a0a080a036170701201781a5e0a1a0a"
        "0012001a0022002a003200380042005a080a03617070120178124012220a056e67696e7812056e67"
        "696e782a0042006a007200800100880100900100a201001a00320042004a00520058006000680082"
        "01008a01009a0100c2010022020a00280038001a0c0800100018002000280038001a002200",
    ),
    # kubectl 1.33.1 create configmap cm --from-literal=a=b
    "configmap": (
        "v1",
        "ConfigMap",
        "6b3873000a0f0a0276311209436f6e6669674d6170121c0a120a02636d12001a0022002a00320038"
        "00420012060a01611201621a002200",
    ),
    # kubectl 1.33.1 create secret generic s --from-literal=k=v
    "secret": (
        "v1",
        "Secret",
        "6b3873000a0c0a0276311206536563726574121d0a110a017312001a0022002a0032003800420012"
        "060a016b1201761a001a002200",
    ),
    # kubectl 1.33.1 create service clusterip svc --tcp=80:8080
    "service": (
        "v1",
        "Service",
        "6b3873000a0d0a02763112075365727669636512690a1f0a0373766312001a0022002a0032003800"
        "42005a0a0a03617070120373766312420a1b0a0738302d3830383012035443501850220708001090"
        "3f1a002800120a0a0361707012037376631a002209436c757374657249503a00420052005a006000"
        "68001a020a001a002200",
    ),
    # kubectl 1.33.1 create serviceaccount sa
    "serviceaccount": (
        "v1",
        "ServiceAccount",
        "6b3873000a140a027631120e536572766963654163636f756e7412140a120a02736112001a002200"
        "2a003200380042001a002200",
    ),
    # kubectl 1.33.1 create pdb pdb --selector=app=x --min-available=1
    "pdb": (
        "policy/v1",
        "PodDisruptionBudget",
        "6b3873000a200a09706f6c6963792f76311213506f6444697372757074696f6e4275646765741237"
        "0a130a0370646212001a0022002a0032003800420012140a06080010011a00120a0a080a03617070"
        "1201781a0a080018002000280030001a002200",
    ),
}

# What `kubectl <command> --dry-run=client -o json` prints for the same objects.
DRY_RUN = {
    "namespace": {
        "kind": "Namespace",
        "apiVersion": "v1",
        "metadata": {"name": "team-a", "creationTimestamp": None},
        "spec": {},
        "status": {},
    },
    "deployment": {
        "kind": "Deployment",
        "apiVersion": "apps/v1",
        "metadata": {"name": "x", "creationTimestamp": None, "labels": {"app": "x"}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "x"}},
            "template": {
                "metadata": {"creationTimestamp": None, "labels": {"app": "x"}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx", "resources": {}}]},
            },
            "strategy": {},
        },
        "status": {},
    },
    "configmap": {
        "kind": "ConfigMap",
        "apiVersion": "v1",
        "metadata": {"name": "cm", "creationTimestamp": None},
        "data": {"a": "b"},
    },
    "secret": {
        "kind": "Secret",
        "apiVersion": "v1",
        "metadata": {"name": "s", "creationTimestamp": None},
        "data": {"k": "dg=="},
    },
    "service": {
        "kind": "Service",
        "apiVersion": "v1",
        "metadata": {"name": "svc", "creationTimestamp": None, "labels": {"app": "svc"}},
        "spec": {
            "ports": [{"name": "80-8080", "protocol": "TCP", "port": 80, "targetPort": 8080}],
            "selector": {"app": "svc"},
            "type": "ClusterIP",
        },
        "status": {"loadBalancer": {}},
    },
    "serviceaccount": {
        "kind": "ServiceAccount",
        "apiVersion": "v1",
        "metadata": {"name": "sa", "creationTimestamp": None},
    },
    "pdb": {
        "kind": "PodDisruptionBudget",
        "apiVersion": "policy/v1",
        "metadata": {"name": "pdb", "creationTimestamp": None},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "x"}}},
        "status": {
            "disruptionsAllowed": 0,
            "currentHealthy": 0,
            "desiredHealthy": 0,
            "expectedPods": 0,
        },
    },
}


def _as_input(value: Any) -> Any:
    """Go's JSON of a decoded object, read as input: null and the zero values of fields
    without ``omitempty`` (``status.currentHealthy: 0``) mean the same as absent."""
    if isinstance(value, dict):
        return {
            key: _as_input(item)
            for key, item in value.items()
            if item is not None and (isinstance(item, bool) or item not in ("", 0))
        }
    if isinstance(value, list):
        return [_as_input(item) for item in value]
    return value


@pytest.mark.parametrize("name", list(CAPTURED), ids=list(CAPTURED))
def test_kubectl_bodies_decode_to_what_kubectl_prints(name: str) -> None:
    api_version, kind, body = CAPTURED[name]
    decoded = decode_protobuf_object(bytes.fromhex(body), api_version, kind)
    assert decoded == _as_input(DRY_RUN[name])


# -- an encoder written from the tables -------------------------------------------------------


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _len(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _timestamp(text: str) -> bytes:
    moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    seconds = int(moment.timestamp())
    nanos = moment.microsecond * 1000
    return _varint(1 << 3) + _varint(seconds) + (_varint(2 << 3) + _varint(nanos) if nanos else b"")


def _value(kind: FieldKind, value: Any, message: MessageSpec | None) -> tuple[int, bytes]:
    """(wire type, encoded value) of one value."""
    if kind is FieldKind.BOOL:
        return 0, _varint(int(value))
    if kind in (FieldKind.INT32, FieldKind.INT64):
        return 0, _varint(value)
    if kind is FieldKind.STRING:
        return 2, value.encode()
    if kind is FieldKind.BYTES:
        return 2, base64.b64decode(value)
    if kind is FieldKind.QUANTITY:
        return 2, _len(1, value.encode())
    if kind in (FieldKind.TIME, FieldKind.MICRO_TIME):
        return 2, _timestamp(value)
    if kind is FieldKind.STRING_LIST:
        return 2, b"".join(_len(1, item.encode()) for item in value)
    if kind is FieldKind.INT_OR_STRING:
        if isinstance(value, int):
            return 2, _varint(1 << 3) + _varint(0) + _varint(2 << 3) + _varint(value)
        return 2, _varint(1 << 3) + _varint(1) + _len(3, value.encode())
    if kind is FieldKind.FIELDS_V1:
        return 2, _len(1, json.dumps(value).encode())
    assert message is not None
    return 2, encode(value, message)


def encode(obj: JSON, spec: MessageSpec) -> bytes:
    out = bytearray()
    for number, field in sorted(spec.fields.items()):
        if field.inline:
            assert field.message is not None
            out += _len(number, encode(obj, field.message))
        elif field.json_name in obj:
            out += _encode_field(number, field, obj[field.json_name])
    return bytes(out)


def _encode_field(number: int, field: FieldSpec, value: Any) -> bytes:
    if field.kind is FieldKind.MAP:
        assert field.value is not None
        out = b""
        for key, item in value.items():
            wire, payload = _value(field.value, item, field.message)
            entry = _len(1, key.encode()) + _varint(2 << 3 | wire)
            entry += payload if wire == 0 else _varint(len(payload)) + payload
            out += _len(number, entry)
        return out
    items = value if field.repeated else [value]
    out = b""
    for item in items:
        wire, payload = _value(field.kind, item, field.message)
        if wire == 0:
            out += _varint(number << 3) + payload
        else:
            out += _len(number, payload)
    return out


def envelope(api_version: str, kind: str, raw: bytes) -> bytes:
    type_meta = _len(1, api_version.encode()) + _len(2, kind.encode())
    return b"k8s\x00" + _len(1, type_meta) + _len(2, raw)


# -- rich objects of every kind ----------------------------------------------------------------

_META = {
    "name": "web",
    "namespace": "default",
    "labels": {"app": "web"},
    "annotations": {"note": "ünï"},
    "ownerReferences": [
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "name": "rs",
            "uid": "u1",
            "controller": True,
        }
    ],
    "finalizers": ["example.com/keep"],
    "deletionGracePeriodSeconds": 0,
    "managedFields": [
        {
            "manager": "kubectl",
            "operation": "Update",
            "apiVersion": "v1",
            "time": "2024-05-06T07:08:09Z",
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:metadata": {"f:labels": {}}},
        }
    ],
}
_SELECTOR = {
    "matchLabels": {"app": "web"},
    "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]}],
}
_CONTAINER = {
    "name": "app",
    "image": "nginx:1.27",
    "command": ["nginx"],
    "args": ["-g", "daemon off;"],
    "ports": [{"name": "http", "containerPort": 80, "protocol": "TCP"}],
    "envFrom": [{"configMapRef": {"name": "cfg", "optional": False}}],
    "env": [
        {"name": "A", "value": "1"},
        {"name": "B", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k", "optional": True}}},
        {
            "name": "C",
            "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}},
        },
        {
            "name": "D",
            "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "1m"}},
        },
    ],
    "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}, "requests": {"cpu": "250m"}},
    "volumeMounts": [{"name": "data", "mountPath": "/data", "readOnly": True}],
    "livenessProbe": {
        "httpGet": {"path": "/healthz", "port": "http", "scheme": "HTTP"},
        "initialDelaySeconds": 5,
        "periodSeconds": 10,
    },
    "readinessProbe": {"tcpSocket": {"port": 80}, "failureThreshold": 3},
    "startupProbe": {"exec": {"command": ["true"]}, "terminationGracePeriodSeconds": 0},
    "lifecycle": {"preStop": {"sleep": {"seconds": 5}}},
    "imagePullPolicy": "IfNotPresent",
    "securityContext": {
        "runAsNonRoot": False,
        "runAsUser": 1000,
        "capabilities": {"drop": ["ALL"]},
        "seccompProfile": {"type": "RuntimeDefault"},
    },
    "restartPolicy": "Always",
    "tty": True,
}
_POD_SPEC = {
    "volumes": [
        {"name": "data", "emptyDir": {"medium": "Memory", "sizeLimit": "1Gi"}},
        {
            "name": "cfg",
            "configMap": {"name": "cfg", "defaultMode": 420, "items": [{"key": "a", "path": "a"}]},
        },
        {"name": "sec", "secret": {"secretName": "s", "optional": False}},
        {"name": "pvc", "persistentVolumeClaim": {"claimName": "c"}},
        {
            "name": "proj",
            "projected": {
                "sources": [
                    {"serviceAccountToken": {"path": "token", "expirationSeconds": 3600}},
                    {
                        "downwardAPI": {
                            "items": [{"path": "l", "fieldRef": {"fieldPath": "metadata.labels"}}]
                        }
                    },
                ]
            },
        },
    ],
    "initContainers": [{"name": "init", "image": "busybox"}],
    "containers": [_CONTAINER],
    "restartPolicy": "Always",
    "terminationGracePeriodSeconds": 30,
    "dnsPolicy": "ClusterFirst",
    "nodeSelector": {"disk": "ssd"},
    "serviceAccountName": "default",
    "automountServiceAccountToken": False,
    "securityContext": {"fsGroup": 2000, "supplementalGroups": [1, 2]},
    "affinity": {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}
                ]
            }
        },
        "podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 100,
                    "podAffinityTerm": {"labelSelector": _SELECTOR, "topologyKey": "zone"},
                }
            ]
        },
    },
    "tolerations": [
        {"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 0}
    ],
    "priority": 0,
    "topologySpreadConstraints": [
        {
            "maxSkew": 1,
            "topologyKey": "zone",
            "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": _SELECTOR,
        }
    ],
    "overhead": {"cpu": "10m"},
}
_TEMPLATE = {"metadata": {"labels": {"app": "web"}}, "spec": _POD_SPEC}
_STAMP = "2024-05-06T07:08:09Z"
_MICRO = "2024-05-06T07:08:09.123456Z"
_REF = {"kind": "Deployment", "name": "web", "apiVersion": "apps/v1"}

OBJECTS: dict[str, JSON] = {
    "pod": {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": _META,
        "spec": _POD_SPEC,
        "status": {
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": _STAMP}],
            "podIP": "10.0.0.5",
            "podIPs": [{"ip": "10.0.0.5"}],
            "startTime": _STAMP,
            "containerStatuses": [
                {
                    "name": "app",
                    "state": {"running": {"startedAt": _STAMP}},
                    "ready": True,
                    "restartCount": 2,
                    "image": "nginx:1.27",
                    "imageID": "sha256:abc",
                    "started": False,
                }
            ],
            "qosClass": "Burstable",
        },
    },
    "node": {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"}},
        "spec": {
            "podCIDR": "10.0.0.0/24",
            "unschedulable": True,
            "taints": [{"key": "k", "value": "v", "effect": "NoSchedule", "timeAdded": _STAMP}],
        },
        "status": {
            "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"},
            "allocatable": {"cpu": "3800m"},
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True",
                    "lastHeartbeatTime": _STAMP,
                    "reason": "KubeletReady",
                }
            ],
            "addresses": [{"type": "InternalIP", "address": "192.168.0.2"}],
            "nodeInfo": {"kubeletVersion": "v1.33.0", "architecture": "amd64"},
        },
    },
    "namespace": {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "team-a"},
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    },
    "event": {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "web.1", "namespace": "default"},
        "involvedObject": {"kind": "Pod", "name": "web", "namespace": "default", "uid": "u1"},
        "reason": "Started",
        "message": "Started container app",
        "source": {"component": "kubelet", "host": "n1"},
        "firstTimestamp": _STAMP,
        "lastTimestamp": _STAMP,
        "count": 3,
        "type": "Normal",
        "eventTime": _MICRO,
        "series": {"count": 2, "lastObservedTime": _MICRO},
        "reportingComponent": "kubelet",
    },
    "configmap": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "cfg"},
        "data": {"a": "1", "empty": ""},
        "binaryData": {"bin": base64.b64encode(b"\x00\xff").decode()},
        "immutable": False,
    },
    "secret": {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "s"},
        "data": {"k": base64.b64encode(b"v").decode(), "empty": ""},
        "stringData": {"plain": "text"},
        "type": "Opaque",
        "immutable": True,
    },
    "service": {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "svc"},
        "spec": {
            "ports": [
                {
                    "name": "http",
                    "protocol": "TCP",
                    "port": 80,
                    "targetPort": "http",
                    "nodePort": 30080,
                },
                {"name": "m", "port": 9090, "targetPort": 9090, "appProtocol": "http"},
            ],
            "selector": {"app": "web"},
            "clusterIP": "10.96.0.10",
            "clusterIPs": ["10.96.0.10"],
            "type": "NodePort",
            "sessionAffinity": "ClientIP",
            "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 600}},
            "ipFamilies": ["IPv4"],
            "ipFamilyPolicy": "SingleStack",
            "internalTrafficPolicy": "Cluster",
        },
        "status": {
            "loadBalancer": {
                "ingress": [{"ip": "1.2.3.4", "ports": [{"port": 80, "protocol": "TCP"}]}]
            }
        },
    },
    "serviceaccount": {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": "sa"},
        "secrets": [{"name": "tok"}],
        "imagePullSecrets": [{"name": "reg"}],
        "automountServiceAccountToken": False,
    },
    "binding": {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"name": "web"},
        "target": {"apiVersion": "v1", "kind": "Node", "name": "n1"},
    },
    "deployment": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": _META,
        "spec": {
            "replicas": 0,
            "selector": _SELECTOR,
            "template": _TEMPLATE,
            "strategy": {
                "type": "RollingUpdate",
                "rollingUpdate": {"maxUnavailable": 0, "maxSurge": "25%"},
            },
            "minReadySeconds": 5,
            "revisionHistoryLimit": 10,
            "paused": True,
            "progressDeadlineSeconds": 600,
        },
        "status": {
            "observedGeneration": 2,
            "replicas": 3,
            "conditions": [{"type": "Available", "status": "True", "lastUpdateTime": _STAMP}],
        },
    },
    "replicaset": {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": _META,
        "spec": {"replicas": 2, "selector": _SELECTOR, "template": _TEMPLATE},
        "status": {"replicas": 2, "readyReplicas": 1},
    },
    "statefulset": {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": _META,
        "spec": {
            "replicas": 3,
            "selector": _SELECTOR,
            "template": _TEMPLATE,
            "volumeClaimTemplates": [
                {
                    "metadata": {"name": "data"},
                    "spec": {
                        "accessModes": ["ReadWriteOnce"],
                        "resources": {"requests": {"storage": "1Gi"}},
                        "storageClassName": "",
                    },
                }
            ],
            "serviceName": "web",
            "podManagementPolicy": "Parallel",
            "updateStrategy": {
                "type": "RollingUpdate",
                "rollingUpdate": {"partition": 0, "maxUnavailable": "50%"},
            },
            "persistentVolumeClaimRetentionPolicy": {
                "whenDeleted": "Delete",
                "whenScaled": "Retain",
            },
            "ordinals": {"start": 1},
        },
    },
    "hpa-v1": {
        "apiVersion": "autoscaling/v1",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web"},
        "spec": {
            "scaleTargetRef": _REF,
            "minReplicas": 1,
            "maxReplicas": 5,
            "targetCPUUtilizationPercentage": 80,
        },
        "status": {"lastScaleTime": _STAMP, "currentReplicas": 2, "desiredReplicas": 3},
    },
    "hpa-v2": {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web"},
        "spec": {
            "scaleTargetRef": _REF,
            "maxReplicas": 5,
            "metrics": [
                {
                    "type": "Resource",
                    "resource": {
                        "name": "cpu",
                        "target": {"type": "Utilization", "averageUtilization": 50},
                    },
                }
            ],
            "behavior": {
                "scaleDown": {
                    "stabilizationWindowSeconds": 0,
                    "tolerance": "50m",
                    "policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}],
                }
            },
        },
    },
    "scale": {
        "apiVersion": "autoscaling/v1",
        "kind": "Scale",
        "metadata": {"name": "web", "resourceVersion": "12"},
        "spec": {"replicas": 4},
        "status": {"replicas": 3, "selector": "app=web"},
    },
    "pdb": {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "pdb"},
        "spec": {
            "maxUnavailable": "10%",
            "selector": _SELECTOR,
            "unhealthyPodEvictionPolicy": "AlwaysAllow",
        },
        "status": {"disruptedPods": {"web-0": _STAMP}, "disruptionsAllowed": 1},
    },
    "lease": {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {"name": "n1", "namespace": "kube-node-lease"},
        "spec": {
            "holderIdentity": "n1",
            "leaseDurationSeconds": 40,
            "renewTime": _MICRO,
            "acquireTime": "2024-05-06T07:00:00.000000Z",
            "leaseTransitions": 0,
        },
    },
    "events-v1": {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": "web.2", "namespace": "default"},
        "eventTime": _MICRO,
        "series": {"count": 4, "lastObservedTime": _MICRO},
        "reportingController": "example.com/ctl",
        "reportingInstance": "ctl-1",
        "action": "Scale",
        "reason": "Scaled",
        "regarding": {"kind": "Deployment", "name": "web", "namespace": "default"},
        "related": {"kind": "ReplicaSet", "name": "web-1"},
        "note": "scaled up",
        "type": "Normal",
        "deprecatedCount": 2,
        "deprecatedFirstTimestamp": _STAMP,
    },
    "self-subject-review": {
        "apiVersion": "authentication.k8s.io/v1",
        "kind": "SelfSubjectReview",
        "metadata": {"generateName": "who-"},
        "status": {
            "userInfo": {
                "username": "podscale-admin",
                "groups": ["system:masters", "system:authenticated"],
                "extra": {"scopes": ["a", "b"]},
            }
        },
    },
    "self-subject-review-v1beta1": {
        "apiVersion": "authentication.k8s.io/v1beta1",
        "kind": "SelfSubjectReview",
        "metadata": {"name": "me"},
        "status": {"userInfo": {"username": "someone", "uid": "42"}},
    },
    "self-subject-access-review": {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SelfSubjectAccessReview",
        "metadata": {},
        "spec": {
            "resourceAttributes": {
                "namespace": "default",
                "verb": "create",
                "group": "apps",
                "resource": "deployments",
                "subresource": "scale",
                "name": "web",
                "labelSelector": {
                    "requirements": [{"key": "app", "operator": "In", "values": ["web"]}]
                },
                "fieldSelector": {"rawSelector": "metadata.name=web"},
            }
        },
    },
    "self-subject-rules-review": {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SelfSubjectRulesReview",
        "metadata": {},
        "spec": {"namespace": "default"},
    },
}


def test_every_served_kind_has_a_rich_example() -> None:
    assert {(o["apiVersion"], o["kind"]) for o in OBJECTS.values()} == set(ROOTS)


@pytest.mark.parametrize("name", list(OBJECTS), ids=list(OBJECTS))
def test_rich_objects_round_trip(name: str) -> None:
    obj = OBJECTS[name]
    spec = ROOTS[(obj["apiVersion"], obj["kind"])]
    raw = encode(obj, spec)
    assert (
        decode_protobuf_object(
            envelope(obj["apiVersion"], obj["kind"], raw), obj["apiVersion"], obj["kind"]
        )
        == obj
    )


@pytest.mark.parametrize(
    ("field", "payload", "expected"),
    [
        ("creationTimestamp", b"", None),  # the zero time: Go prints null, left out here
        # Seconds sent, even 0, are a time (the epoch), not the zero time.
        ("creationTimestamp", _timestamp("1970-01-01T00:00:00Z"), "1970-01-01T00:00:00Z"),
        (
            "deletionTimestamp",
            _varint(1 << 3) + _varint(1) + _varint(2 << 3) + _varint(999_999_999),
            "1970-01-01T00:00:01Z",
        ),
    ],
    ids=["empty", "epoch-seconds-zero", "nanos-dropped"],
)
def test_time_keeps_whole_seconds(field: str, payload: bytes, expected: str | None) -> None:
    number = 8 if field == "creationTimestamp" else 9
    raw = _len(1, _len(1, b"x") + _len(number, payload))
    meta = decode_protobuf_object(envelope("v1", "Namespace", raw), "v1", "Namespace")["metadata"]
    assert meta.get(field) == expected


def test_packed_repeated_integers_decode_like_unpacked() -> None:
    packed = _len(4, _varint(1) + _varint(2) + _varint(300))  # supplementalGroups = 4
    raw = _len(2, _len(14, packed))
    pod = decode_protobuf_object(envelope("v1", "Pod", raw), "v1", "Pod")
    assert pod["spec"]["securityContext"] == {"supplementalGroups": [1, 2, 300]}


# -- over HTTP ---------------------------------------------------------------------------------

PROTOBUF = {"Content-Type": "application/vnd.kubernetes.protobuf"}


def test_kubectl_create_namespace_and_deployment_over_http(client: TestClient) -> None:
    for name, path in [
        ("namespace", "/api/v1/namespaces"),
        ("deployment", "/apis/apps/v1/namespaces/default/deployments"),
    ]:
        body = bytes.fromhex(CAPTURED[name][2])
        response = client.post(path, content=body, headers=PROTOBUF)
        assert response.status_code == 201, response.text
    deployment = client.get("/apis/apps/v1/namespaces/default/deployments/x").json()
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container == {
        "name": "nginx",
        "image": "nginx",
        "resources": {},
        "imagePullPolicy": "Always",
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
    }
    assert deployment["spec"]["replicas"] == 1
    assert deployment["spec"]["strategy"]["rollingUpdate"] == {
        "maxUnavailable": "25%",
        "maxSurge": "25%",
    }
    assert client.get("/api/v1/namespaces/team-a").json()["metadata"]["name"] == "team-a"


def test_malformed_bodies_are_a_400_with_upstreams_text(client: TestClient) -> None:
    path = "/apis/apps/v1/namespaces/default/deployments"
    body = bytes.fromhex(CAPTURED["deployment"][2])
    response = client.post(path, content=body[:-3], headers=PROTOBUF)
    assert response.status_code == 400
    assert response.json()["message"] == (
        "the object provided is unrecognized (must be of type Deployment): unexpected EOF "
        f"({body[:30].hex()} ...)"
    )
    truncated_name = _len(1, b"\x0a\x05ab")  # metadata.name says 5 bytes, 2 follow
    response = client.post(
        path, content=envelope("apps/v1", "Deployment", truncated_name), headers=PROTOBUF
    )
    assert response.status_code == 400
    assert response.json()["message"] == (
        'Deployment in version "v1" cannot be handled as a Deployment: unexpected EOF'
    )
