"""Upstream defaulting for every kind in the registry, on plain JSON dicts.

The API server calls ``apply_defaults`` after decoding and before validation, exactly where
upstream's generated defaulters run (pkg/apis/*/v*/defaults.go). This module defaults pods,
pod templates, the apps/v1 workloads, nodes and namespaces itself and dispatches the other
kinds to its neighbours: ``defaults_hpa`` (HorizontalPodAutoscalers, and the behavior rules
the HPA engine fills in), ``defaults_core`` (Service, Secret), ``defaults_crd``.
``podscale.api.kinds`` names the kinds dispatched on, ``podscale.api.conversion`` converts
HPAs between versions (it never defaults).

Contract: a default only fills a field that is absent or null, so defaulting is idempotent and
never touches unknown fields. Things upstream sets in the registry *strategy* rather than in
defaulting (a pod's ``status.phase: Pending``, a namespace's ``spec.finalizers``) are not here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from podscale.api.defaults_core import default_secret, default_service
from podscale.api.defaults_crd import default_crd
from podscale.api.defaults_hpa import default_hpa_v1, default_hpa_v2
from podscale.api.json_copy import copy_json

__all__ = [
    "apply_defaults",
    "apply_defaults_in_place",
    "default_pod_spec",
    "image_pull_policy_for",
]

# Volume sources and downward-API files are world-readable unless told otherwise (0644).
_DEFAULT_FILE_MODE: Final = 0o644

JSON = dict[str, Any]


def _absent(obj: JSON, key: str) -> bool:
    """Go's "pointer is nil / string is empty" test on a decoded JSON object."""
    return obj.get(key) in (None, "")


def _child(obj: JSON, key: str) -> JSON:
    """The sub-object at ``key``, created empty when absent (Go's zero-value struct)."""
    value = obj.get(key)
    if not isinstance(value, dict):
        value = {}
        obj[key] = value
    return value


def _items(obj: JSON, key: str) -> list[JSON]:
    """The dict entries of the list at ``key``; malformed entries are left for validation."""
    value = obj.get(key)
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


# --- Pods and pod templates --------------------------------------------------------------------


def image_pull_policy_for(image: str) -> str:
    """``Always`` for a ``:latest`` or untagged image reference, ``IfNotPresent`` otherwise.

    A digest (``name@sha256:...``) counts as pinned; an unparsable (empty) reference gets
    ``IfNotPresent`` as upstream's parser error leaves the tag empty.
    """
    if not image:
        return "IfNotPresent"
    name, has_digest, _ = image.partition("@")
    last_component = name.rsplit("/", 1)[-1]
    _, has_tag, tag = last_component.partition(":")
    if not has_tag and not has_digest:
        tag = "latest"
    return "Always" if tag == "latest" else "IfNotPresent"


def _default_probe(probe: Any) -> None:
    if not isinstance(probe, dict):
        return
    for key, value in (
        ("timeoutSeconds", 1),
        ("periodSeconds", 10),
        ("successThreshold", 1),
        ("failureThreshold", 3),
    ):
        if not probe.get(key):
            probe[key] = value
    _default_http_get(probe.get("httpGet"))


def _default_http_get(action: Any) -> None:
    if isinstance(action, dict):
        if _absent(action, "path"):
            action["path"] = "/"
        if _absent(action, "scheme"):
            action["scheme"] = "HTTP"


def _default_container(container: JSON) -> None:
    if _absent(container, "imagePullPolicy"):
        container["imagePullPolicy"] = image_pull_policy_for(str(container.get("image") or ""))
    if _absent(container, "terminationMessagePath"):
        container["terminationMessagePath"] = "/dev/termination-log"
    if _absent(container, "terminationMessagePolicy"):
        container["terminationMessagePolicy"] = "File"
    for port in _items(container, "ports"):
        if _absent(port, "protocol"):
            port["protocol"] = "TCP"
    for probe_key in ("livenessProbe", "readinessProbe", "startupProbe"):
        _default_probe(container.get(probe_key))
    lifecycle = container.get("lifecycle")
    if isinstance(lifecycle, dict):
        for hook in ("postStart", "preStop"):
            handler = lifecycle.get(hook)
            if isinstance(handler, dict):
                _default_http_get(handler.get("httpGet"))
    for env in _items(container, "env"):
        value_from = env.get("valueFrom")
        field_ref = value_from.get("fieldRef") if isinstance(value_from, dict) else None
        if isinstance(field_ref, dict) and _absent(field_ref, "apiVersion"):
            field_ref["apiVersion"] = "v1"


def _default_volume(volume: JSON) -> None:
    # A volume naming no source at all is an emptyDir.
    if all(key == "name" for key in volume):
        volume["emptyDir"] = {}
    for source in ("secret", "configMap", "downwardAPI", "projected"):
        body = volume.get(source)
        if isinstance(body, dict) and body.get("defaultMode") is None:
            body["defaultMode"] = _DEFAULT_FILE_MODE
    host_path = volume.get("hostPath")
    if isinstance(host_path, dict) and host_path.get("type") is None:
        host_path["type"] = ""


def default_pod_spec(spec: JSON) -> None:
    """Default a PodSpec in place: what both pods and pod templates get (SetDefaults_PodSpec)."""
    if _absent(spec, "dnsPolicy"):
        spec["dnsPolicy"] = "ClusterFirst"
    if _absent(spec, "restartPolicy"):
        spec["restartPolicy"] = "Always"
    if spec.get("securityContext") is None:
        spec["securityContext"] = {}
    if spec.get("terminationGracePeriodSeconds") is None:
        spec["terminationGracePeriodSeconds"] = 30
    if _absent(spec, "schedulerName"):
        spec["schedulerName"] = "default-scheduler"
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for container in _items(spec, key):
            _default_container(container)
    for volume in _items(spec, "volumes"):
        _default_volume(volume)


def _default_pod(obj: JSON) -> None:
    spec = _child(obj, "spec")
    default_pod_spec(spec)
    # Pods only, not templates: a template's limits must not become the pods' requests twice.
    for key in ("initContainers", "containers"):
        for container in _items(spec, key):
            resources = container.get("resources")
            limits = resources.get("limits") if isinstance(resources, dict) else None
            if isinstance(resources, dict) and isinstance(limits, dict):
                requests = _child(resources, "requests")
                for name, quantity in limits.items():
                    requests.setdefault(name, quantity)
    if spec.get("enableServiceLinks") is None:
        spec["enableServiceLinks"] = True
    grace = spec.get("terminationGracePeriodSeconds")
    if isinstance(grace, int) and not isinstance(grace, bool) and grace < 0:
        # Upstream's Pod conversion treats a negative period as 1 (templates keep it and
        # only warn, ``warnings``): a pod must always get at least a second to stop.
        spec["terminationGracePeriodSeconds"] = 1
    # On the host network the container port is the host port; pods only since v1.28.
    if spec.get("hostNetwork") is True:
        for key in ("initContainers", "containers"):
            for container in _items(spec, key):
                for port in _items(container, "ports"):
                    if not port.get("hostPort") and port.get("containerPort") is not None:
                        port["hostPort"] = port["containerPort"]


def _default_template(spec: JSON) -> None:
    template = _child(spec, "template")
    default_pod_spec(_child(template, "spec"))


# --- apps/v1 workloads, nodes, namespaces -------------------------------------------------------


def _default_replica_set(obj: JSON) -> None:
    spec = _child(obj, "spec")
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    _default_template(spec)


def _default_deployment(obj: JSON) -> None:
    spec = _child(obj, "spec")
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    strategy = _child(spec, "strategy")
    if _absent(strategy, "type"):
        strategy["type"] = "RollingUpdate"
    if strategy["type"] == "RollingUpdate":
        rolling = _child(strategy, "rollingUpdate")
        for key in ("maxUnavailable", "maxSurge"):
            if rolling.get(key) is None:
                rolling[key] = "25%"
    if spec.get("revisionHistoryLimit") is None:
        spec["revisionHistoryLimit"] = 10
    if spec.get("progressDeadlineSeconds") is None:
        spec["progressDeadlineSeconds"] = 600
    _default_template(spec)


def _default_stateful_set(obj: JSON) -> None:
    spec = _child(obj, "spec")
    if _absent(spec, "podManagementPolicy"):
        spec["podManagementPolicy"] = "OrderedReady"
    strategy = _child(spec, "updateStrategy")
    if _absent(strategy, "type"):
        strategy["type"] = "RollingUpdate"
        _child(strategy, "rollingUpdate")
    rolling = strategy.get("rollingUpdate")
    if strategy["type"] == "RollingUpdate" and isinstance(rolling, dict):
        if rolling.get("partition") is None:
            rolling["partition"] = 0
        # MaxUnavailableStatefulSet is beta and on by default since v1.35.
        if rolling.get("maxUnavailable") is None:
            rolling["maxUnavailable"] = 1
    retention = _child(spec, "persistentVolumeClaimRetentionPolicy")
    for key in ("whenDeleted", "whenScaled"):
        if _absent(retention, key):
            retention[key] = "Retain"
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    if spec.get("revisionHistoryLimit") is None:
        spec["revisionHistoryLimit"] = 10
    _default_template(spec)


def _default_node(obj: JSON) -> None:
    status = obj.get("status")
    # Allocatable defaults to capacity when a node reports only capacity.
    if isinstance(status, dict) and status.get("allocatable") is None:
        capacity = status.get("capacity")
        if isinstance(capacity, dict):
            status["allocatable"] = dict(capacity)


def _default_namespace(obj: JSON) -> None:
    metadata = obj.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    # Only named namespaces get the immutable name label (generateName has no name yet).
    if name:
        labels = _child(_child(obj, "metadata"), "labels")
        labels["kubernetes.io/metadata.name"] = name
    status = _child(obj, "status")
    if _absent(status, "phase"):
        status["phase"] = "Active"


_DEFAULTERS: Final[dict[tuple[str, str], Callable[[JSON], None]]] = {
    ("autoscaling/v2", "HorizontalPodAutoscaler"): default_hpa_v2,
    ("autoscaling/v1", "HorizontalPodAutoscaler"): default_hpa_v1,
    ("apps/v1", "ReplicaSet"): _default_replica_set,
    ("apps/v1", "Deployment"): _default_deployment,
    ("apps/v1", "StatefulSet"): _default_stateful_set,
    ("v1", "Pod"): _default_pod,
    ("v1", "Node"): _default_node,
    ("v1", "Namespace"): _default_namespace,
    ("v1", "Service"): default_service,
    ("v1", "Secret"): default_secret,
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition"): default_crd,
}


def apply_defaults(obj: JSON) -> JSON:
    """A defaulted deep copy of ``obj``, dispatching on its apiVersion and kind.

    Kinds without defaulting (Event, Scale, anything unknown) come back as an unchanged copy.
    The input is never modified.
    """
    return apply_defaults_in_place(copy_json(obj))


def apply_defaults_in_place(obj: JSON) -> JSON:
    """``apply_defaults`` without its copy: ``obj`` itself, defaulted. For an object that
    is already a ``copy_json`` result nobody else holds (the in-process status write's),
    the very object ``apply_defaults`` would have returned, one copy sooner."""
    defaulter = _DEFAULTERS.get((str(obj.get("apiVersion", "")), str(obj.get("kind", ""))))
    if defaulter is not None:
        defaulter(obj)
    return obj
