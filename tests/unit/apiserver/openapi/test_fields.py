"""unknown_fields: strict field validation against the published schemas.

The accepted manifests are the kind people actually apply (the Deployment and HPA walkthroughs
of the Kubernetes docs, a fully-loaded pod template, kubectl autoscale's v1 body...): strict
validation must find nothing in them, or `kubectl create` fails against podscale.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.apiserver.openapi.documents import unknown_fields
from podscale.apiserver.openapi.schemas import all_schemas

NGINX_DEPLOYMENT: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "nginx-deployment", "labels": {"app": "nginx"}},
    "spec": {
        "replicas": 3,
        "selector": {"matchLabels": {"app": "nginx"}},
        "template": {
            "metadata": {"labels": {"app": "nginx"}},
            "spec": {
                "containers": [
                    {"name": "nginx", "image": "nginx:1.14.2", "ports": [{"containerPort": 80}]}
                ]
            },
        },
    },
}

PHP_APACHE_HPA: dict[str, Any] = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "php-apache", "namespace": "default"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "php-apache"},
        "minReplicas": 1,
        "maxReplicas": 10,
        "metrics": [
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 50},
                },
            },
            {
                "type": "Pods",
                "pods": {
                    "metric": {"name": "packets-per-second"},
                    "target": {"type": "AverageValue", "averageValue": "1k"},
                },
            },
            {
                "type": "Object",
                "object": {
                    "metric": {"name": "requests-per-second"},
                    "describedObject": {
                        "apiVersion": "networking.k8s.io/v1",
                        "kind": "Ingress",
                        "name": "main-route",
                    },
                    "target": {"type": "Value", "value": "10k"},
                },
            },
            {
                "type": "External",
                "external": {
                    "metric": {
                        "name": "queue_messages_ready",
                        "selector": {"matchLabels": {"queue": "worker_tasks"}},
                    },
                    "target": {"type": "AverageValue", "averageValue": 30},
                },
            },
            {
                "type": "ContainerResource",
                "containerResource": {
                    "name": "memory",
                    "container": "application",
                    "target": {"type": "AverageValue", "averageValue": "500Mi"},
                },
            },
        ],
        "behavior": {
            "scaleDown": {
                "stabilizationWindowSeconds": 300,
                "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
                "tolerance": "0.05",
            },
            "scaleUp": {
                "stabilizationWindowSeconds": 0,
                "policies": [
                    {"type": "Percent", "value": 100, "periodSeconds": 15},
                    {"type": "Pods", "value": 4, "periodSeconds": 15},
                ],
                "selectPolicy": "Max",
            },
        },
    },
    "status": {
        "currentReplicas": 2,
        "desiredReplicas": 3,
        "lastScaleTime": "2026-01-01T00:00:00Z",
        "currentMetrics": [
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "current": {"averageUtilization": 75, "averageValue": "150m"},
                },
            }
        ],
        "conditions": [
            {
                "type": "AbleToScale",
                "status": "True",
                "lastTransitionTime": "2026-01-01T00:00:00Z",
                "reason": "ReadyForNewScale",
                "message": "recommended size matches current size",
            }
        ],
    },
}

# Exactly what kubectl autoscale (1.27-1.31) POSTs.
AUTOSCALE_V1: dict[str, Any] = {
    "kind": "HorizontalPodAutoscaler",
    "apiVersion": "autoscaling/v1",
    "metadata": {"name": "foo", "creationTimestamp": None},
    "spec": {
        "scaleTargetRef": {"kind": "ReplicaSet", "name": "foo", "apiVersion": "apps/v1"},
        "minReplicas": 2,
        "maxReplicas": 5,
        "targetCPUUtilizationPercentage": 80,
    },
    "status": {"currentReplicas": 0, "desiredReplicas": 0},
}

LOADED_POD: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {
        "name": "web-0",
        "namespace": "shop",
        "labels": {"app": "web", "app.kubernetes.io/name": "web"},
        "annotations": {"prometheus.io/scrape": "true"},
        "ownerReferences": [
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "name": "web-5d8f",
                "uid": "u-1",
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ],
        "managedFields": [
            {
                "manager": "kubectl-client-side-apply",
                "operation": "Update",
                "apiVersion": "v1",
                "time": "2026-01-01T00:00:00Z",
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}},
            }
        ],
    },
    "spec": {
        "serviceAccountName": "web",
        "terminationGracePeriodSeconds": 30,
        "nodeSelector": {"kubernetes.io/os": "linux"},
        "securityContext": {
            "runAsNonRoot": True,
            "fsGroup": 2000,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "imagePullSecrets": [{"name": "regcred"}],
        "tolerations": [
            {"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"}
        ],
        "affinity": {
            "podAntiAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "weight": 100,
                        "podAffinityTerm": {
                            "labelSelector": {
                                "matchExpressions": [
                                    {"key": "app", "operator": "In", "values": ["web"]}
                                ]
                            },
                            "topologyKey": "kubernetes.io/hostname",
                        },
                    }
                ]
            },
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {"key": "zone", "operator": "In", "values": ["a", "b"]}
                            ]
                        }
                    ]
                }
            },
        },
        "topologySpreadConstraints": [
            {
                "maxSkew": 1,
                "topologyKey": "topology.kubernetes.io/zone",
                "whenUnsatisfiable": "ScheduleAnyway",
                "labelSelector": {"matchLabels": {"app": "web"}},
            }
        ],
        "initContainers": [
            {"name": "migrate", "image": "web:1", "command": ["sh", "-c", "migrate up"]}
        ],
        "containers": [
            {
                "name": "web",
                "image": "registry.example.com/web:1.2.3",
                "imagePullPolicy": "IfNotPresent",
                "args": ["--port=8080"],
                "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
                "env": [
                    {"name": "MODE", "value": "prod"},
                    {
                        "name": "POD_NAME",
                        "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}},
                    },
                    {
                        "name": "DB_PASSWORD",
                        "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}},
                    },
                    {
                        "name": "CPU_LIMIT",
                        "valueFrom": {
                            "resourceFieldRef": {"resource": "limits.cpu", "divisor": "1m"}
                        },
                    },
                ],
                "envFrom": [{"configMapRef": {"name": "web-config"}, "prefix": "CFG_"}],
                "resources": {
                    "requests": {"cpu": "250m", "memory": "64Mi"},
                    "limits": {"cpu": 1, "memory": "128Mi"},
                },
                "livenessProbe": {
                    "httpGet": {
                        "path": "/healthz",
                        "port": "http",
                        "httpHeaders": [{"name": "X-Probe", "value": "1"}],
                    },
                    "initialDelaySeconds": 3,
                    "periodSeconds": 3,
                },
                "readinessProbe": {"tcpSocket": {"port": 8080}, "failureThreshold": 3},
                "startupProbe": {"exec": {"command": ["cat", "/tmp/ready"]}},
                "lifecycle": {"preStop": {"exec": {"command": ["sleep", "5"]}}},
                "volumeMounts": [
                    {"name": "config", "mountPath": "/etc/web", "readOnly": True},
                    {"name": "cache", "mountPath": "/cache"},
                ],
                "securityContext": {
                    "allowPrivilegeEscalation": False,
                    "readOnlyRootFilesystem": True,
                    "capabilities": {"drop": ["ALL"]},
                },
            }
        ],
        "volumes": [
            {"name": "config", "configMap": {"name": "web-config", "defaultMode": 420}},
            {"name": "cache", "emptyDir": {"sizeLimit": "1Gi"}},
            {"name": "data", "persistentVolumeClaim": {"claimName": "web-data"}},
            {
                "name": "token",
                "projected": {
                    "sources": [
                        {"serviceAccountToken": {"path": "token", "expirationSeconds": 3600}},
                        {"secret": {"name": "tls", "items": [{"key": "ca.crt", "path": "ca"}]}},
                    ]
                },
            },
        ],
    },
    "status": {
        "phase": "Running",
        "podIP": "10.0.0.5",
        "conditions": [{"type": "Ready", "status": "True"}],
        "containerStatuses": [
            {
                "name": "web",
                "ready": True,
                "restartCount": 0,
                "image": "web:1.2.3",
                "imageID": "sha256:abc",
                "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}},
            }
        ],
    },
}

STATEFUL_SET: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "StatefulSet",
    "metadata": {"name": "web"},
    "spec": {
        "selector": {"matchLabels": {"app": "nginx"}},
        "serviceName": "nginx",
        "replicas": 3,
        "minReadySeconds": 10,
        "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
        "template": {
            "metadata": {"labels": {"app": "nginx"}},
            "spec": {
                "terminationGracePeriodSeconds": 10,
                "containers": [
                    {
                        "name": "nginx",
                        "image": "registry.k8s.io/nginx-slim:0.24",
                        "ports": [{"containerPort": 80, "name": "web"}],
                        "volumeMounts": [{"name": "www", "mountPath": "/usr/share/nginx/html"}],
                    }
                ],
            },
        },
        "volumeClaimTemplates": [
            {
                "metadata": {"name": "www"},
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "storageClassName": "my-storage-class",
                    "resources": {"requests": {"storage": "1Gi"}},
                },
            }
        ],
    },
}

ACCEPTED: list[dict[str, Any]] = [
    NGINX_DEPLOYMENT,
    PHP_APACHE_HPA,
    AUTOSCALE_V1,
    LOADED_POD,
    STATEFUL_SET,
    {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": "frontend", "labels": {"app": "guestbook", "tier": "frontend"}},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"tier": "frontend"}},
            "template": {
                "metadata": {"labels": {"tier": "frontend"}},
                "spec": {
                    "containers": [
                        {"name": "php-redis", "image": "us-docker.pkg.dev/google-samples/x:v5"}
                    ]
                },
            },
        },
        "status": {"replicas": 3, "readyReplicas": 3, "observedGeneration": 1},
    },
    {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {"name": "foo", "namespace": "default", "resourceVersion": "7"},
        "spec": {"replicas": 3},
        "status": {"replicas": 1, "selector": "app=foo"},
    },
    {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "foo.1", "namespace": "default"},
        "involvedObject": {"kind": "HorizontalPodAutoscaler", "name": "foo", "uid": "u"},
        "reason": "SuccessfulRescale",
        "message": "New size: 3; reason: cpu resource utilization above target",
        "source": {"component": "horizontal-pod-autoscaler"},
        "firstTimestamp": "2026-01-01T00:00:00Z",
        "lastTimestamp": "2026-01-01T00:00:00Z",
        "count": 1,
        "type": "Normal",
    },
    {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "node-1", "labels": {"kubernetes.io/hostname": "node-1"}},
        "spec": {"podCIDR": "10.0.1.0/24", "taints": [{"key": "k", "effect": "NoSchedule"}]},
        "status": {
            "capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"},
            "allocatable": {"cpu": "3800m", "memory": "15Gi", "pods": "110"},
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}],
            "addresses": [{"type": "InternalIP", "address": "10.0.0.1"}],
        },
    },
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}},
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "legacy"},
        "spec": {
            "containers": [{"name": "app", "image": "busybox"}],
            "ephemeralContainers": [
                {"name": "debugger", "image": "busybox", "targetContainerName": "app"}
            ],
            "volumes": [
                {"name": "pd", "gcePersistentDisk": {"pdName": "disk-1", "fsType": "ext4"}},
                {"name": "ebs", "awsElasticBlockStore": {"volumeID": "vol-1", "readOnly": True}},
                {"name": "src", "gitRepo": {"repository": "https://example.com/r.git"}},
                {"name": "nfs", "nfs": {"server": "nfs.example.com", "path": "/exports"}},
                {
                    "name": "pki",
                    "projected": {
                        "sources": [{"clusterTrustBundle": {"signerName": "x/y", "path": "ca"}}]
                    },
                },
            ],
        },
    },
    {"apiVersion": "v1", "kind": "DeleteOptions", "propagationPolicy": "Foreground"},
]


@pytest.mark.parametrize(
    "manifest", ACCEPTED, ids=[f"{m['kind']}-{m['apiVersion']}" for m in ACCEPTED]
)
def test_real_manifests_have_no_unknown_fields(manifest: dict[str, Any]) -> None:
    assert unknown_fields(manifest["apiVersion"], manifest["kind"], manifest) == []


def _with(base: dict[str, Any], dotted: str, value: Any) -> dict[str, Any]:
    """A copy of ``base`` with ``value`` set at a dotted path ("spec.a.0.b": 0 indexes a list)."""
    obj = copy.deepcopy(base)
    *parents, last = dotted.split(".")
    node: Any = obj
    for part in parents:
        node = node[int(part)] if part.isdigit() else node.setdefault(part, {})
    node[last] = value
    return obj


@pytest.mark.parametrize(
    ("manifest", "dotted", "expected"),
    [
        (NGINX_DEPLOYMENT, "spec.foo", ["spec.foo"]),
        (NGINX_DEPLOYMENT, "foo", ["foo"]),
        (NGINX_DEPLOYMENT, "metadata.labelz", ["metadata.labelz"]),
        (
            NGINX_DEPLOYMENT,
            "spec.template.spec.containers.0.imagee",
            ["spec.template.spec.containers[0].imagee"],
        ),
        (
            NGINX_DEPLOYMENT,
            "spec.template.spec.containers.0.ports.0.containerport",
            ["spec.template.spec.containers[0].ports[0].containerport"],
        ),
        (NGINX_DEPLOYMENT, "spec.selector.matchLabel", ["spec.selector.matchLabel"]),
        (
            NGINX_DEPLOYMENT,
            "spec.template.spec.containers.0.Image",
            ["spec.template.spec.containers[0].Image"],
        ),
        (
            PHP_APACHE_HPA,
            "spec.metrics.0.resource.targte",
            ["spec.metrics[0].resource.targte"],
        ),
        (
            PHP_APACHE_HPA,
            "spec.behavior.scaleUp.policies.1.periodSecond",
            ["spec.behavior.scaleUp.policies[1].periodSecond"],
        ),
        (PHP_APACHE_HPA, "spec.behavior.scaleup", ["spec.behavior.scaleup"]),
        (
            PHP_APACHE_HPA,
            "status.currentMetrics.0.resource.current.utilization",
            ["status.currentMetrics[0].resource.current.utilization"],
        ),
        (AUTOSCALE_V1, "spec.metrics", ["spec.metrics"]),
        (
            LOADED_POD,
            "spec.volumes.1.emptyDir.size",
            ["spec.volumes[1].emptyDir.size"],
        ),
        (
            LOADED_POD,
            "spec.containers.0.livenessProbe.httpGet.headers",
            ["spec.containers[0].livenessProbe.httpGet.headers"],
        ),
        (
            LOADED_POD,
            "metadata.ownerReferences.0.controler",
            ["metadata.ownerReferences[0].controler"],
        ),
        (
            LOADED_POD,
            "spec.volumes.2.persistentVolumeClaim.name",
            ["spec.volumes[2].persistentVolumeClaim.name"],
        ),
        (
            STATEFUL_SET,
            "spec.volumeClaimTemplates.0.spec.size",
            ["spec.volumeClaimTemplates[0].spec.size"],
        ),
    ],
    ids=[
        "spec-foo",
        "top-level",
        "metadata",
        "container-typo",
        "port-case",
        "selector",
        "case-sensitive",
        "hpa-metric-target",
        "hpa-policy",
        "hpa-behavior-case",
        "hpa-status",
        "v2-field-in-v1",
        "volume",
        "probe",
        "owner-reference",
        "claim-volume",
        "claim-template",
    ],
)
def test_unknown_fields_are_reported_by_path(
    manifest: dict[str, Any], dotted: str, expected: list[str]
) -> None:
    obj = _with(manifest, dotted, {"nested": {"deeper": 1}})
    assert unknown_fields(obj["apiVersion"], obj["kind"], obj) == expected


def test_every_unknown_field_is_reported_in_document_order() -> None:
    obj = _with(NGINX_DEPLOYMENT, "spec.foo", 1)
    obj = _with(obj, "spec.template.spec.containers.0.imagee", "nginx")
    obj = _with(obj, "bar", None)
    # Document order: spec.foo was added after spec.template, so it comes second.
    assert unknown_fields("apps/v1", "Deployment", obj) == [
        "spec.template.spec.containers[0].imagee",
        "spec.foo",
        "bar",
    ]


@pytest.mark.parametrize(
    ("api_version", "kind"),
    [
        ("apps/v1", "CronJob"),
        ("batch/v1", "Job"),
        ("autoscaling/v2beta2", "HorizontalPodAutoscaler"),
    ],
    ids=["unserved-kind", "unserved-group", "unserved-version"],
)
def test_kinds_without_a_schema_report_nothing(api_version: str, kind: str) -> None:
    assert unknown_fields(api_version, kind, {"spec": {"anything": 1}}) == []


def test_free_form_and_map_fields_accept_any_key() -> None:
    obj = _with(NGINX_DEPLOYMENT, "metadata.annotations", {"any/key": "v", "x": ""})
    obj = _with(
        obj,
        "spec.template.spec.containers.0.resources",
        {"requests": {"cpu": "1", "nvidia.com/gpu": "1", "example.com/foo": 3}},
    )
    obj = _with(obj, "metadata.managedFields", [{"fieldsV1": {"f:spec": {"f:anything": {}}}}])
    assert unknown_fields("apps/v1", "Deployment", obj) == []


def test_hpa_v1_and_v2_are_checked_against_their_own_version() -> None:
    v2_spec = {"spec": copy.deepcopy(PHP_APACHE_HPA["spec"])}
    found = unknown_fields("autoscaling/v1", "HorizontalPodAutoscaler", v2_spec)
    assert found == ["spec.metrics", "spec.behavior"]


_IDENT = st.text(alphabet="abcdefghijklmnopqrstuvwxyzXYZ", min_size=1, max_size=12)
_LOCATIONS = [
    ("", NGINX_DEPLOYMENT),
    ("spec", NGINX_DEPLOYMENT),
    ("spec.template.spec", NGINX_DEPLOYMENT),
    ("spec.template.spec.containers.0", NGINX_DEPLOYMENT),
    ("spec.behavior.scaleDown", PHP_APACHE_HPA),
    ("spec.metrics.3.external.metric", PHP_APACHE_HPA),
    ("spec.containers.0.env.1.valueFrom", LOADED_POD),
]


def _display(dotted: str) -> str:
    parts: list[str] = []
    for part in dotted.split(".") if dotted else []:
        if part.isdigit():
            parts[-1] += f"[{part}]"
        else:
            parts.append(part)
    return ".".join(parts)


def _node(obj: Any, dotted: str) -> Any:
    for part in dotted.split(".") if dotted else []:
        obj = obj[int(part)] if part.isdigit() else obj[part]
    return obj


@given(st.sampled_from(_LOCATIONS), _IDENT, st.sampled_from([1, "x", None, [1], {"a": {}}]))
def test_an_added_unknown_key_is_the_only_finding_at_its_path(
    location: tuple[str, dict[str, Any]], suffix: str, value: Any
) -> None:
    """No podscale property starts with "zz", so such a key is always (and only) reported."""
    where, manifest = location
    obj = copy.deepcopy(manifest)
    key = "zz" + suffix
    _node(obj, where)[key] = value
    snapshot = copy.deepcopy(obj)
    path = f"{_display(where)}.{key}" if where else key
    assert unknown_fields(obj["apiVersion"], obj["kind"], obj) == [path]
    assert obj == snapshot


def test_no_schema_property_starts_with_zz() -> None:
    names = {name for s in all_schemas().values() for name in s.get("properties", {})}
    assert "containers" in names
    assert not any(name.startswith("zz") for name in names)
