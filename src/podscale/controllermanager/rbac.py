"""The API access each controller needs, as RBAC rules, and RBAC's rule matching.

``CONTROLLER_RULES`` is a table per controller (canonical ``controllers.registry`` names)
of the ``(apiGroup, resource[/subresource], verbs)`` its code uses: an informer's kind is
``list``/``watch``; every ``get``/``create``/``update``/``patch``/``delete`` a controller
sends is listed with its subresource (``status``, ``scale``); events are ``create`` and
``patch`` (``controllers.runtime_events`` aggregates by patching). The HPA controller's
rules follow upstream's ``system:controller:horizontal-pod-autoscaler`` ClusterRole
(bootstrap policy), plus what ours adds. Where a rule has a wildcard, upstream's own role
has it too and ``WILDCARDS`` says why. A test records the calls of a run of every
controller and checks each one against these rules (``allows``).

``cluster_rules`` merges the rules of chosen controllers into a ClusterRole's ``rules``;
``LEASE_RULES`` are the leader election's, for a Role in the lease namespace.
``podscale.controllermanager.manifests`` renders both. Discovery (``/api``, ``/apis``)
needs no rule here: every authenticated user has it through ``system:discovery``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "CONTROLLER_RULES",
    "LEASE_RULES",
    "WILDCARDS",
    "Rule",
    "allows",
    "cluster_rules",
    "rules_json",
]


@dataclass(frozen=True, slots=True)
class Rule:
    """One ``PolicyRule`` of one API group: ``resources`` may name subresources
    (``horizontalpodautoscalers/status``)."""

    group: str
    resources: tuple[str, ...]
    verbs: tuple[str, ...]


_LIST_WATCH: Final = ("list", "watch")
_READ: Final = ("get", "list", "watch")
# controllers.runtime_events writes an Event, then patches its count as it recurs.
_EVENTS: Final = Rule("", ("events",), ("create", "patch"))
# The controllers of a CRD-served kind watch CustomResourceDefinitions and stay idle until
# theirs is established (``definition_gate``).
_CRDS: Final = Rule("apiextensions.k8s.io", ("customresourcedefinitions",), _LIST_WATCH)
# Any scalable kind can be a target, so the scale subresource of every resource: upstream's
# HPA role has this very rule.
_SCALE: Final = Rule("*", ("*/scale",), ("get", "update"))
_HPA: Final = "horizontalpodautoscalers"
_KAPACITY: Final = "autoscaling.kapacitystack.io"
# Beyond upstream's role: the HPA controllers read a target whose replicas someone else
# changed, for its managedFields (``controllers.hpa.contest_target``). Only the built-in
# workloads: a target of another kind is reported with an unknown writer instead (a
# wildcard ``get`` would reach Secrets).
_TARGETS: Final = Rule("apps", ("deployments", "replicasets", "statefulsets"), ("get",))
# The metrics APIs, as upstream's HPA role grants them (``metrics_rest.RestMetricsClient``).
_METRICS: Final = (
    Rule("metrics.k8s.io", ("pods",), ("list",)),
    Rule("custom.metrics.k8s.io", ("*",), ("get", "list")),
    Rule("external.metrics.k8s.io", ("*",), ("get", "list")),
)

CONTROLLER_RULES: Final[Mapping[str, tuple[Rule, ...]]] = {
    # controllers.hpa: the HPA informer; status written by update; ``patch`` only to take
    # older podscale versions' annotations off an HPA (upstream's role has no patch); the
    # pod informer (upstream lists pods only: its informers run under the manager's own
    # identity, ours under this service account).
    "horizontal-pod-autoscaler-controller": (
        Rule("autoscaling", (_HPA,), ("get", "list", "watch", "patch")),
        Rule("autoscaling", (f"{_HPA}/status",), ("update",)),
        _SCALE,
        _TARGETS,
        Rule("", ("pods",), _LIST_WATCH),
        *_METRICS,
        _EVENTS,
    ),
    # controllers.phpa: the HPA controller's loop on its own kind.
    "predictive-horizontal-pod-autoscaler-controller": (
        _CRDS,
        Rule(
            "autoscaling.podscale.dev",
            ("predictivehorizontalpodautoscalers",),
            ("get", "list", "watch", "patch"),
        ),
        Rule(
            "autoscaling.podscale.dev", ("predictivehorizontalpodautoscalers/status",), ("update",)
        ),
        _SCALE,
        _TARGETS,
        Rule("", ("pods",), _LIST_WATCH),
        *_METRICS,
        _EVENTS,
    ),
    # controllers.cronhpa: reads its CronHPAs, patches their status; a job scales its
    # target's /scale, or, for an HPA target, updates the HPA's bounds (``scaling``).
    "cronhpa-controller": (
        _CRDS,
        Rule("autoscaling.alibabacloud.com", ("cronhorizontalpodautoscalers",), _READ),
        Rule("autoscaling.alibabacloud.com", ("cronhorizontalpodautoscalers/status",), ("patch",)),
        Rule("autoscaling", (_HPA,), ("get", "update")),
        _SCALE,
        _EVENTS,
    ),
    # controllers.ehpa: Crane's EHPA generates an HPA and (Preview) a Substitute, both
    # owned with blockOwnerDeletion, which OwnerReferencesPermissionEnforcement allows only
    # to who may update the owner's finalizers; lists the target's pods for the forecast.
    "ehpa-controller": (
        _CRDS,
        Rule("autoscaling.crane.io", ("effectivehorizontalpodautoscalers",), _READ),
        Rule(
            "autoscaling.crane.io",
            ("effectivehorizontalpodautoscalers/finalizers",),
            ("update",),
        ),
        Rule("autoscaling.crane.io", ("effectivehorizontalpodautoscalers/status",), ("patch",)),
        Rule(
            "autoscaling.crane.io", ("substitutes",), ("get", "list", "watch", "create", "update")
        ),
        Rule("autoscaling.crane.io", ("substitutes/status",), ("update",)),
        Rule("autoscaling", (_HPA,), ("get", "list", "watch", "create", "update")),
        _SCALE,
        Rule("", ("pods",), ("list",)),
        _EVENTS,
    ),
    # controllers.keda: the operator patches a ScaledObject's finalizer and labels and its
    # status; creates, updates and deletes the generated HPA (owned with
    # blockOwnerDeletion); its scalers list pods and PodMetrics; it reads the target's pod
    # template (KEDA's own role grants ``get`` on every resource, ``*``/``*``: ours names
    # the workload kinds, and any other target reads as having no containers); its
    # podscale-push scaler reads the cluster's external metrics.
    "keda-operator": (
        _CRDS,
        Rule("keda.sh", ("scaledobjects",), ("get", "list", "watch", "patch")),
        Rule("keda.sh", ("scaledobjects/finalizers",), ("update",)),
        Rule("keda.sh", ("scaledobjects/status",), ("patch",)),
        Rule("autoscaling", (_HPA,), ("get", "list", "watch", "create", "update", "delete")),
        _SCALE,
        Rule("apps", ("deployments", "statefulsets"), ("get",)),
        Rule("", ("pods",), ("list",)),
        Rule("metrics.k8s.io", ("pods",), ("list",)),
        Rule("external.metrics.k8s.io", ("*",), ("get",)),
        _EVENTS,
    ),
    # controllers.kapacity (IhpaController): reads its IHPAs, patches their status, keeps
    # the ReplicaProfile of the same name (owned with blockOwnerDeletion, hence the owner's
    # finalizers), and for a Dynamic Reactive portrait reads the target's /scale, its pods
    # and the metrics APIs as the HPA controller does.
    "ihpa-controller": (
        _CRDS,
        Rule(_KAPACITY, ("intelligenthorizontalpodautoscalers",), _READ),
        Rule(_KAPACITY, ("intelligenthorizontalpodautoscalers/status",), ("patch",)),
        Rule(_KAPACITY, ("intelligenthorizontalpodautoscalers/finalizers",), ("update",)),
        Rule(
            _KAPACITY, ("replicaprofiles",), ("get", "list", "watch", "create", "patch", "delete")
        ),
        Rule("*", ("*/scale",), ("get",)),
        Rule("", ("pods",), ("list",)),
        *_METRICS,
        _EVENTS,
    ),
    # controllers.kapacity (ReplicaProfileController): reads its ReplicaProfiles, patches
    # their status, labels pods and patches their online readiness gate (pods/status), and
    # rescales the target.
    "replicaprofile-controller": (
        _CRDS,
        Rule(_KAPACITY, ("replicaprofiles",), _READ),
        Rule(_KAPACITY, ("replicaprofiles/status",), ("patch",)),
        _SCALE,
        Rule("", ("pods",), ("list", "watch", "patch")),
        Rule("", ("pods/status",), ("patch",)),
        _EVENTS,
    ),
    # controllers.usagehistory: the autoscalers' informers (HPA, PHPA, EHPA, IHPA), each target's
    # /scale for its selector, and the pods' usage through metrics.k8s.io.
    "usage-history-controller": (
        _CRDS,
        Rule("autoscaling", (_HPA,), _LIST_WATCH),
        Rule("autoscaling.podscale.dev", ("predictivehorizontalpodautoscalers",), _LIST_WATCH),
        Rule("autoscaling.crane.io", ("effectivehorizontalpodautoscalers",), _LIST_WATCH),
        Rule(_KAPACITY, ("intelligenthorizontalpodautoscalers",), _LIST_WATCH),
        Rule("*", ("*/scale",), ("get",)),
        Rule("metrics.k8s.io", ("pods",), ("list",)),
    ),
}

# client-go's leader election on a coordination.k8s.io Lease (``client.leaderelection``):
# the elector reads, creates and updates its Lease.
LEASE_RULES: Final = (Rule("coordination.k8s.io", ("leases",), ("get", "create", "update")),)

WILDCARDS: Final[Mapping[str, str]] = {
    "*/scale": "any scalable kind can be a target (upstream's HPA role: the same rule)",
    "custom.metrics.k8s.io/*": "metric names are resources (upstream's HPA role: the same)",
    "external.metrics.k8s.io/*": "metric names are resources (upstream's HPA role: the same)",
}

_VERB_ORDER: Final = ("get", "list", "watch", "create", "update", "patch", "delete")


def _verb_rank(verb: str) -> int:
    return _VERB_ORDER.index(verb) if verb in _VERB_ORDER else len(_VERB_ORDER)


def cluster_rules(controllers: Iterable[str]) -> list[dict[str, Any]]:
    """The ``rules`` of one ClusterRole for ``controllers``: the verbs of each
    (group, resource) united, then the resources sharing a group and verbs in one rule;
    sorted, so the same controllers always give the same text. ``KeyError`` for a name
    without a table."""
    verbs: dict[tuple[str, str], set[str]] = {}
    for name in controllers:
        for rule in CONTROLLER_RULES[name]:
            for resource in rule.resources:
                verbs.setdefault((rule.group, resource), set()).update(rule.verbs)
    return _merge(verbs)


def _merge(verbs: Mapping[tuple[str, str], set[str]]) -> list[dict[str, Any]]:
    grouped: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for (group, resource), allowed in verbs.items():
        key = (group, tuple(sorted(allowed, key=_verb_rank)))
        grouped.setdefault(key, []).append(resource)
    return [
        {"apiGroups": [group], "resources": sorted(resources), "verbs": list(allowed)}
        for (group, allowed), resources in sorted(grouped.items())
    ]


def rules_json(rules: Sequence[Rule]) -> list[dict[str, Any]]:
    """``rules`` as PolicyRule JSON (a Role's)."""
    verbs: dict[tuple[str, str], set[str]] = {}
    for rule in rules:
        for resource in rule.resources:
            verbs.setdefault((rule.group, resource), set()).update(rule.verbs)
    return _merge(verbs)


def _matches(pattern: str, value: str) -> bool:
    return pattern in ("*", value)


def _resource_matches(patterns: Iterable[str], resource: str, subresource: str) -> bool:
    """RBAC's ResourceMatches: ``*`` is every resource and subresource; ``*/scale`` is the
    scale subresource of every resource; else the exact ``resource[/subresource]``."""
    combined = f"{resource}/{subresource}" if subresource else resource
    for pattern in patterns:
        if pattern in ("*", combined):
            return True
        if subresource and pattern == f"*/{subresource}":
            return True
    return False


def allows(
    rules: Iterable[Mapping[str, Any]], verb: str, group: str, resource: str, subresource: str = ""
) -> bool:
    """Whether PolicyRule JSON ``rules`` allow a resource request (RBAC's RuleAllows:
    one rule must match the verb, the group and the resource at once)."""
    for rule in rules:
        if not any(_matches(v, verb) for v in rule.get("verbs") or ()):
            continue
        if not any(_matches(g, group) for g in rule.get("apiGroups") or ()):
            continue
        if _resource_matches(rule.get("resources") or (), resource, subresource):
            return True
    return False
