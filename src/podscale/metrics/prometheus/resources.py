"""Kubernetes group-resources and the Prometheus labels that name them (rule ``resources``).

A rule associates label names with group-resources two ways, as prometheus-adapter does:
``overrides`` (label -> {group, resource}) and a ``template`` such as
``kube_<<.Group>>_<<.Resource>>`` (group dots and dashes become ``_``, the resource is
singular). ``ResourceConverter`` answers both directions: which resources a discovered series
can describe (``resources_for_labels``) and which label carries a requested resource's
object name (``label_for_resource``).

Upstream normalises group-resources through the cluster's RESTMapper. podscale has no
aggregated discovery of arbitrary kinds here, so ``normalize_group_resource`` knows the kinds
podscale serves (``podscale.api.kinds``) plus the common built-in ones below, and otherwise
keeps the name, pluralised naively. Neighbours: ``config`` builds converters, ``queries``
and ``registry`` use them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Final

from podscale.api.kinds import all_kinds
from podscale.metrics.prometheus.template import GoTemplate, TemplateError

__all__ = [
    "NAMESPACES",
    "GroupResource",
    "ResourceConverter",
    "normalize_group_resource",
    "singular_resource",
]


@dataclass(frozen=True, slots=True, order=True)
class GroupResource:
    """A normalised group-resource: plural, lower-case resource and its API group."""

    group: str
    resource: str

    def __str__(self) -> str:
        # schema.GroupResource.String(): "pods", "deployments.apps".
        return f"{self.resource}.{self.group}" if self.group else self.resource


NAMESPACES: Final = GroupResource("", "namespaces")

# Built-in kinds podscale does not serve but rules commonly name: (group, plural, singular, kind).
_BUILTINS: Final[tuple[tuple[str, str, str, str], ...]] = (
    ("", "services", "service", "Service"),
    ("", "endpoints", "endpoints", "Endpoints"),
    ("", "configmaps", "configmap", "ConfigMap"),
    ("", "persistentvolumeclaims", "persistentvolumeclaim", "PersistentVolumeClaim"),
    ("", "replicationcontrollers", "replicationcontroller", "ReplicationController"),
    ("apps", "daemonsets", "daemonset", "DaemonSet"),
    ("batch", "jobs", "job", "Job"),
    ("batch", "cronjobs", "cronjob", "CronJob"),
    ("networking.k8s.io", "ingresses", "ingress", "Ingress"),
)


def _build_table() -> dict[tuple[str | None, str], tuple[str, str, str]]:
    """(group or None for "any", plural|singular|kind) -> (group, plural, singular)."""
    entries = [
        (info.group, info.plural, info.singular, info.kind)
        for info in all_kinds()
        if info.top_level
    ]
    table: dict[tuple[str | None, str], tuple[str, str, str]] = {}
    for group, plural, singular, kind in [*entries, *_BUILTINS]:
        for spelling in (plural, singular, kind.lower()):
            table.setdefault((group, spelling), (group, plural, singular))
            table.setdefault((None, spelling), (group, plural, singular))
    return table


_TABLE: Final = _build_table()


def normalize_group_resource(group: str, resource: str) -> GroupResource:
    """The canonical (plural) form of ``resource`` in ``group``; an empty group means "guess".

    ``pod`` -> ``pods``; ``deployment`` -> ``deployments.apps`` (group found, as the
    RESTMapper would); an unknown ``widget`` in ``example.com`` -> ``widgets.example.com``.
    """
    lowered = resource.lower()
    known = _TABLE.get((group or None, lowered))
    if known is not None:
        return GroupResource(known[0], known[1])
    plural = lowered if lowered.endswith("s") else lowered + "s"
    return GroupResource(group, plural)


def singular_resource(resource: GroupResource) -> str:
    """The singular name a label template uses: ``deployments`` -> ``deployment``."""
    known = _TABLE.get((resource.group, resource.resource))
    if known is not None:
        return known[2]
    return resource.resource[:-1] if resource.resource.endswith("s") else resource.resource


def _sanitize_group(group: str) -> str:
    return group.replace(".", "_").replace("-", "_")


@dataclass(frozen=True)
class ResourceConverter:
    """Label <-> group-resource mapping of one rule (overrides win over the template)."""

    overrides: Mapping[str, GroupResource] = field(default_factory=dict)
    template: GoTemplate | None = None

    def label_for_resource(self, resource: GroupResource) -> str:
        """The label carrying object names of ``resource``; upstream's error text if none."""
        for label, overridden in self.overrides.items():
            if overridden == resource:
                return label
        if self.template is None:
            raise TemplateError(
                f"unable to convert resource {resource} into label: "
                "no generic resource label form specified for this metric"
            )
        label = self.template.render(
            {"Group": _sanitize_group(resource.group), "Resource": singular_resource(resource)}
        )
        if not label:
            raise TemplateError(
                f"unable to convert resource {resource} into label: "
                "empty label produced by label template"
            )
        return label

    def resource_for_label(self, label: str) -> GroupResource | None:
        """The group-resource ``label`` names, if any."""
        overridden = self.overrides.get(label)
        if overridden is not None:
            return overridden
        if self.template is None:
            return None
        known = self._known_labels.get(label)
        if known is not None:
            return known
        match = self.template.to_regex({"Group": "group", "Resource": "resource"}).fullmatch(label)
        if match is None:
            return None
        groups = match.groupdict()
        # Beyond the known kinds only grouped (CRD-like) resources are guessed: upstream's
        # RESTMapper would refuse unknown core resources, so "verb" must not become "verbs".
        # An unknown group is read back as written (its "_" cannot be told from ".").
        if not groups.get("resource") or not groups.get("group"):
            return None
        candidate = normalize_group_resource(groups["group"], groups["resource"])
        # The label must round-trip: otherwise it only looks like the template by accident.
        if self.label_for_resource(candidate) != label:
            return None
        return candidate

    @cached_property
    def _known_labels(self) -> dict[str, GroupResource]:
        """Template labels of every resource in the table: exact even where splitting a
        label at ``_`` would be ambiguous (``kube_networking_k8s_io_ingress``)."""
        labels: dict[str, GroupResource] = {}
        for group, plural, _singular in _TABLE.values():
            resource = GroupResource(group, plural)
            labels.setdefault(self.label_for_resource(resource), resource)
        return labels

    def resources_for_labels(self, labels: Iterable[str]) -> tuple[list[GroupResource], bool]:
        """Resources a series with these label names can describe, and whether it is namespaced
        (has the namespace resource's label)."""
        resources: list[GroupResource] = []
        for label in sorted(labels):
            resource = self.resource_for_label(label)
            if resource is not None and resource not in resources:
                resources.append(resource)
        return resources, NAMESPACES in resources
