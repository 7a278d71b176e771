"""What a cluster needs to run ``podscale controller-manager``: the manifests, as objects.

``manifest_objects`` builds, for the chosen controllers, the CRDs they serve
(``controllers.shipped_crds``), a Namespace, the ServiceAccount, a ClusterRole with the
rules of ``rbac.CONTROLLER_RULES`` and its binding, the leader election's Role and binding
on Leases in the namespace, the external metrics adapter's Service and APIService (when a
chosen controller publishes external metrics: KEDA's operator, the EHPA's), and the
Deployment: two replicas electing a leader, probes on the health port, requests, and a
locked-down security context. ``render_manifests`` prints them as one YAML stream
(``podscale manifests``; ``deploy/podscale.yaml`` is the default output). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

import yaml

from podscale import __version__
from podscale.controllermanager.options import DEFAULT_CONTROLLERS as OPTION_DEFAULTS
from podscale.controllermanager.options import enabled_controllers
from podscale.controllermanager.rbac import CONTROLLER_RULES, LEASE_RULES, cluster_rules, rules_json
from podscale.controllers.registry import CONTROLLER_NAMES
from podscale.controllers.shipped_crds import INSTALLED_WITH, SHIPPED_CRDS, shipped_definition

__all__ = [
    "ADAPTER_PORT",
    "DEFAULT_CONTROLLERS",
    "DEFAULT_IMAGE",
    "DEFAULT_NAMESPACE",
    "HEALTH_PORT",
    "ManifestOptions",
    "manifest_objects",
    "render_manifests",
    "select_manifest_controllers",
]

JSON = dict[str, Any]

# The podscale-only controllers (``options.DEFAULT_CONTROLLERS``, in the registry's order): by
# default podscale never fights kube-controller-manager's HPA controller (run that one only
# when asked, in place of the cluster's own).
DEFAULT_CONTROLLERS: Final = tuple(n for n in CONTROLLER_NAMES if n in OPTION_DEFAULTS)
DEFAULT_NAMESPACE: Final = "podscale-system"
DEFAULT_IMAGE: Final = f"podscale:{__version__}"
NAME: Final = "podscale-controller-manager"
ADAPTER_NAME: Final = "podscale-external-metrics"
LEASE_ROLE: Final = "podscale-leader-election"
# kube-controller-manager's --secure-port default: /healthz, /readyz and /metrics.
HEALTH_PORT: Final = 10257
ADAPTER_PORT: Final = 6443
# The controllers whose metrics the adapter serves on external.metrics.k8s.io.
_PUBLISHERS: Final = frozenset({"keda-operator", "ehpa-controller"})
_LABELS: Final = {"app.kubernetes.io/name": NAME, "app.kubernetes.io/part-of": "podscale"}
_RBAC: Final = "rbac.authorization.k8s.io"


@dataclass(frozen=True, slots=True)
class ManifestOptions:
    controllers: tuple[str, ...] = DEFAULT_CONTROLLERS
    namespace: str = DEFAULT_NAMESPACE
    image: str = DEFAULT_IMAGE
    replicas: int = 2
    extra_args: tuple[str, ...] = field(default=())


def select_manifest_controllers(flag: str | None) -> tuple[str, ...]:
    """The controllers ``--controllers`` names, in ``controllers.registry`` order, read as
    ``podscale controller-manager`` reads the flag (``options.enabled_controllers``: ``*`` is
    the podscale-only ones; the HPA controller only when named). None is
    ``DEFAULT_CONTROLLERS``. The workload controllers stay with kube-controller-manager:
    naming one is a ``ValueError``, as is an unknown name."""
    if flag is None:
        return DEFAULT_CONTROLLERS
    chosen = enabled_controllers(flag)
    outside = sorted(chosen - set(CONTROLLER_RULES))
    if outside:
        raise ValueError(
            f"{', '.join(outside)}: not deployed by podscale manifests (the cluster's "
            f"kube-controller-manager runs it); choose among {', '.join(sorted(CONTROLLER_RULES))}"
        )
    return tuple(name for name in CONTROLLER_NAMES if name in chosen)


def _meta(name: str, namespace: str | None = None) -> JSON:
    meta: JSON = {"name": name}
    if namespace is not None:
        meta["namespace"] = namespace
    meta["labels"] = dict(_LABELS)
    return meta


def _crds(controllers: Iterable[str]) -> list[JSON]:
    chosen = set(controllers)
    return [shipped_definition(name) for name in SHIPPED_CRDS if INSTALLED_WITH.get(name) in chosen]


def _subject(options: ManifestOptions) -> list[JSON]:
    return [{"kind": "ServiceAccount", "name": NAME, "namespace": options.namespace}]


def _rbac(options: ManifestOptions) -> list[JSON]:
    ns = options.namespace
    return [
        {
            "apiVersion": f"{_RBAC}/v1",
            "kind": "ClusterRole",
            "metadata": _meta(NAME),
            "rules": cluster_rules(options.controllers),
        },
        {
            "apiVersion": f"{_RBAC}/v1",
            "kind": "ClusterRoleBinding",
            "metadata": _meta(NAME),
            "roleRef": {"apiGroup": _RBAC, "kind": "ClusterRole", "name": NAME},
            "subjects": _subject(options),
        },
        {
            "apiVersion": f"{_RBAC}/v1",
            "kind": "Role",
            "metadata": _meta(LEASE_ROLE, ns),
            "rules": rules_json(LEASE_RULES),
        },
        {
            "apiVersion": f"{_RBAC}/v1",
            "kind": "RoleBinding",
            "metadata": _meta(LEASE_ROLE, ns),
            "roleRef": {"apiGroup": _RBAC, "kind": "Role", "name": LEASE_ROLE},
            "subjects": _subject(options),
        },
    ]


def _adapter(options: ManifestOptions) -> list[JSON]:
    service: JSON = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": _meta(ADAPTER_NAME, options.namespace),
        "spec": {
            "selector": dict(_LABELS),
            "ports": [{"name": "https", "port": 443, "targetPort": "adapter"}],
        },
    }
    # The adapter serves a self-signed certificate (as metrics-server does by default),
    # hence insecureSkipTLSVerify; with a CA of your own, set caBundle instead.
    api_service: JSON = {
        "apiVersion": "apiregistration.k8s.io/v1",
        "kind": "APIService",
        "metadata": _meta("v1beta1.external.metrics.k8s.io"),
        "spec": {
            "group": "external.metrics.k8s.io",
            "version": "v1beta1",
            "service": {"name": ADAPTER_NAME, "namespace": options.namespace, "port": 443},
            "groupPriorityMinimum": 100,
            "versionPriority": 100,
            "insecureSkipTLSVerify": True,
        },
    }
    return [service, api_service]


def _args(options: ManifestOptions, adapter: bool) -> list[str]:
    return [
        f"--controllers={','.join(options.controllers)}",
        "--leader-elect=true",
        f"--leader-elect-resource-namespace={options.namespace}",
        f"--secure-port={HEALTH_PORT}",
        f"--adapter-port={ADAPTER_PORT if adapter else 0}",
        *options.extra_args,
    ]


def _probe(path: str, failures: int) -> JSON:
    return {
        "httpGet": {"path": path, "port": "https", "scheme": "HTTPS"},
        "periodSeconds": 10,
        "failureThreshold": failures,
    }


def _deployment(options: ManifestOptions, adapter: bool) -> JSON:
    ports: list[JSON] = [{"name": "https", "containerPort": HEALTH_PORT}]
    if adapter:
        ports.append({"name": "adapter", "containerPort": ADAPTER_PORT})
    container: JSON = {
        "name": "controller-manager",
        "image": options.image,
        "args": _args(options, adapter),
        "ports": ports,
        "livenessProbe": {**_probe("/healthz", 8), "initialDelaySeconds": 10},
        "readinessProbe": _probe("/readyz", 3),
        "resources": {
            "requests": {"cpu": "100m", "memory": "256Mi"},
            "limits": {"memory": "1Gi"},
        },
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "readOnlyRootFilesystem": True,
            "capabilities": {"drop": ["ALL"]},
        },
        # The one writable place: the self-signed serving certificates.
        "volumeMounts": [{"name": "tmp", "mountPath": "/tmp"}],
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": _meta(NAME, options.namespace),
        "spec": {
            "replicas": options.replicas,
            "selector": {"matchLabels": dict(_LABELS)},
            "template": {
                "metadata": {"labels": dict(_LABELS)},
                "spec": {
                    "serviceAccountName": NAME,
                    "securityContext": {
                        "runAsNonRoot": True,
                        "runAsUser": 65532,
                        "runAsGroup": 65532,
                        "seccompProfile": {"type": "RuntimeDefault"},
                    },
                    "containers": [container],
                    "volumes": [{"name": "tmp", "emptyDir": {}}],
                },
            },
        },
    }


def manifest_objects(options: ManifestOptions | None = None) -> list[JSON]:
    """Every object, in the order ``kubectl apply -f`` can create them."""
    options = options if options is not None else ManifestOptions()
    adapter = bool(_PUBLISHERS & set(options.controllers))
    ns = options.namespace
    objects: list[JSON] = [
        *_crds(options.controllers),
        {"apiVersion": "v1", "kind": "Namespace", "metadata": _meta(ns)},
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": _meta(NAME, ns)},
        *_rbac(options),
    ]
    if adapter:
        objects += _adapter(options)
    objects.append(_deployment(options, adapter))
    return objects


def render_manifests(options: ManifestOptions | None = None) -> str:
    """The objects as one YAML stream, with a header saying how it was made."""
    options = options if options is not None else ManifestOptions()
    header = (
        "# podscale controller-manager on a Kubernetes cluster: generated by\n"
        f"# `podscale manifests --controllers {','.join(options.controllers)}"
        f" --namespace {options.namespace} --image {options.image}`.\n"
        "# docs/run-on-your-cluster.md explains each object.\n"
    )
    documents = [
        yaml.safe_dump(obj, sort_keys=False, default_flow_style=False)
        for obj in manifest_objects(options)
    ]
    return header + "---\n" + "---\n".join(documents)
