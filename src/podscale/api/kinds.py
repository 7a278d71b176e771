"""The kind registry: every kind podscale serves, with the metadata discovery reports for it.

This is the single source of truth the API server's routes, the discovery documents, kubectl-style
short-name resolution and the CLI are generated from; its neighbours ``podscale.api.defaults`` and
``podscale.api.conversion`` dispatch on the same (apiVersion, kind) pairs. The values mirror what
``kubectl api-resources -o wide`` prints against a v1.35 cluster, restricted to the resources and
subresources podscale actually serves (pods there also have ``exec``, ``log``... which we do not).

``KINDS`` is the table, in discovery order; what discovery and kubectl derive from it (group
versions, a typed resource name resolved) is in ``podscale.api.kind_discovery``.

``Scale`` (autoscaling/v1) is registered as a kind but is not a top-level resource: it only
exists as the ``/scale`` subresource of the workload kinds, so resource lookups never return it.
``Binding`` (v1) likewise only exists as ``pods/binding`` (create only), the way a scheduler
assigns a pod to a node; upstream's deprecated top-level ``bindings`` resource is not served.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = [
    "ALL_VERBS",
    "KINDS",
    "KindInfo",
    "Subresource",
    "all_kinds",
    "kind_for",
    "resource_for",
]

# Verbs as discovery lists them: alphabetical, exactly the strings kubectl prints.
ALL_VERBS: Final = (
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
)
# Namespaces cannot be deleted in bulk: upstream's namespace REST storage has no DeleteCollection.
_NAMESPACE_VERBS: Final = ("create", "delete", "get", "list", "patch", "update", "watch")
# status and scale subresources only support reads and writes of the one object.
_SUBRESOURCE_VERBS: Final = ("get", "patch", "update")


@dataclass(frozen=True)
class Subresource:
    """One served subresource (``deployments/scale``), as discovery describes it.

    ``group``/``version``/``kind`` name the object the subresource reads and writes; for status
    it is the parent kind, for scale it is ``autoscaling/v1 Scale`` whatever the parent's group.
    """

    name: str
    group: str
    version: str
    kind: str
    verbs: tuple[str, ...] = _SUBRESOURCE_VERBS


@dataclass(frozen=True)
class KindInfo:
    """API metadata of one kind in one group/version.

    ``plural`` is the resource name used in URLs; ``top_level`` is False only for kinds that exist
    solely as a subresource (Scale). ``preferred`` marks the group's preferred version, which is
    also the storage version for kinds served in several versions.
    """

    group: str
    version: str
    kind: str
    plural: str
    singular: str
    short_names: tuple[str, ...]
    namespaced: bool
    verbs: tuple[str, ...]
    subresources: tuple[Subresource, ...]
    categories: tuple[str, ...]
    list_kind: str
    preferred: bool = True
    top_level: bool = True

    @property
    def api_version(self) -> str:
        """The ``apiVersion`` field value: bare version for the core group ("v1", "apps/v1")."""
        return self.version if not self.group else f"{self.group}/{self.version}"

    @property
    def group_version(self) -> tuple[str, str]:
        return (self.group, self.version)

    def subresource(self, name: str) -> Subresource | None:
        """The served subresource ``name`` ("status", "scale"), or None."""
        return next((sub for sub in self.subresources if sub.name == name), None)


def _status(group: str, version: str, kind: str) -> Subresource:
    return Subresource("status", group, version, kind)


_SCALE: Final = Subresource("scale", "autoscaling", "v1", "Scale")
# pods/binding is write-only: discovery lists it with the single verb "create".
_BINDING: Final = Subresource("binding", "", "v1", "Binding", verbs=("create",))
# namespaces/finalize only takes a PUT of the Namespace (the namespace controller's write).
_FINALIZE: Final = Subresource("finalize", "", "v1", "Namespace", verbs=("update",))


def _kind(
    group: str,
    version: str,
    kind: str,
    plural: str,
    *,
    short_names: tuple[str, ...] = (),
    namespaced: bool = True,
    verbs: tuple[str, ...] = ALL_VERBS,
    subresources: tuple[Subresource, ...] = (),
    categories: tuple[str, ...] = (),
    preferred: bool = True,
) -> KindInfo:
    """A top-level kind; its singular is the lower-cased kind and its list kind ``<Kind>List``,
    which holds for every kind podscale serves."""
    return KindInfo(
        group=group,
        version=version,
        kind=kind,
        plural=plural,
        singular=kind.lower(),
        short_names=short_names,
        namespaced=namespaced,
        verbs=verbs,
        subresources=subresources,
        categories=categories,
        list_kind=f"{kind}List",
        preferred=preferred,
    )


def _subresource_kind(group: str, kind: str) -> KindInfo:
    """A v1 kind that only exists as a subresource's body: no resource, verbs or list."""
    return KindInfo(
        group=group,
        version="v1",
        kind=kind,
        plural="",
        singular="",
        short_names=(),
        namespaced=True,
        verbs=(),
        subresources=(),
        categories=(),
        list_kind="",
        preferred=False,
        top_level=False,
    )


def _workload(kind: str, plural: str, short: str) -> KindInfo:
    return _kind(
        "apps",
        "v1",
        kind,
        plural,
        short_names=(short,),
        subresources=(_status("apps", "v1", kind), _SCALE),
        categories=("all",),
    )


def _hpa(version: str, preferred: bool) -> KindInfo:
    kind = "HorizontalPodAutoscaler"
    return _kind(
        "autoscaling",
        version,
        kind,
        "horizontalpodautoscalers",
        short_names=("hpa",),
        subresources=(_status("autoscaling", version, kind),),
        categories=("all",),
        preferred=preferred,
    )


def _app_kind(
    group: str,
    kind: str,
    plural: str,
    short_names: tuple[str, ...],
    categories: tuple[str, ...],
    *,
    status: bool = False,
) -> KindInfo:
    """A namespaced v1 kind with every verb and, when ``status``, a status subresource."""
    return _kind(
        group,
        "v1",
        kind,
        plural,
        short_names=short_names,
        subresources=(_status(group, "v1", kind),) if status else (),
        categories=categories,
    )


# Discovery order: the core group first, then named groups in the apiserver's priority order
# (apps before autoscaling); within a group the preferred version comes first.
KINDS: Final[tuple[KindInfo, ...]] = (
    _kind("", "v1", "Event", "events", short_names=("ev",)),
    _kind(
        "",
        "v1",
        "Namespace",
        "namespaces",
        short_names=("ns",),
        namespaced=False,
        verbs=_NAMESPACE_VERBS,
        subresources=(_status("", "v1", "Namespace"), _FINALIZE),
    ),
    _kind(
        "",
        "v1",
        "Node",
        "nodes",
        short_names=("no",),
        namespaced=False,
        subresources=(_status("", "v1", "Node"),),
    ),
    _kind(
        "",
        "v1",
        "Pod",
        "pods",
        short_names=("po",),
        subresources=(_BINDING, _status("", "v1", "Pod")),
        categories=("all",),
    ),
    _workload("Deployment", "deployments", "deploy"),
    _workload("ReplicaSet", "replicasets", "rs"),
    _workload("StatefulSet", "statefulsets", "sts"),
    _hpa("v2", preferred=True),
    _hpa("v1", preferred=False),
    _subresource_kind("", "Binding"),
    _subresource_kind("autoscaling", "Scale"),
    # The kinds an application's manifests carry next to its workloads (Service, ConfigMap,
    # Secret, ServiceAccount, PodDisruptionBudget) and the Lease of leader election.
    _app_kind("", "ConfigMap", "configmaps", ("cm",), ()),
    _app_kind("", "Secret", "secrets", (), ()),
    _app_kind("", "Service", "services", ("svc",), ("all",), status=True),
    _app_kind("", "ServiceAccount", "serviceaccounts", ("sa",), ()),
    _app_kind("policy", "PodDisruptionBudget", "poddisruptionbudgets", ("pdb",), (), status=True),
    # CustomResourceDefinitions (apiextensions-apiserver's kind), served before
    # coordination.k8s.io as upstream's group priorities order them.
    _kind(
        "apiextensions.k8s.io",
        "v1",
        "CustomResourceDefinition",
        "customresourcedefinitions",
        short_names=("crd", "crds"),
        namespaced=False,
        subresources=(_status("apiextensions.k8s.io", "v1", "CustomResourceDefinition"),),
        categories=("api-extensions",),
    ),
    _app_kind("coordination.k8s.io", "Lease", "leases", (), ()),
    # The same stored events as core/v1 Event, in the events.k8s.io/v1 shape
    # (podscale.api.conversion_events; podscale.apiserver.resources stores both as "events").
    _kind("events.k8s.io", "v1", "Event", "events", short_names=("ev",)),
)

_BY_KIND: Final = {(info.api_version, info.kind): info for info in KINDS}
_BY_RESOURCE: Final = {
    (info.group, info.version, info.plural): info for info in KINDS if info.top_level
}


def all_kinds() -> list[KindInfo]:
    """Every registered kind in discovery order, Scale included."""
    return list(KINDS)


def kind_for(api_version: str, kind: str) -> KindInfo:
    """The kind ``kind`` in ``api_version`` ("apps/v1"); KeyError naming both if not served."""
    try:
        return _BY_KIND[(api_version, kind)]
    except KeyError:
        raise KeyError(f'no kind "{kind}" is registered for version "{api_version}"') from None


def is_built_in(api_version: str, kind: str) -> bool:
    """Whether ``kind`` in ``api_version`` is one of the kinds podscale serves itself (not a
    CustomResourceDefinition's)."""
    return (api_version, kind) in _BY_KIND


def resource_for(group: str, version: str, plural: str) -> KindInfo:
    """The top-level resource ``plural`` in ``group``/``version``; KeyError if not served."""
    try:
        return _BY_RESOURCE[(group, version, plural)]
    except KeyError:
        gv = version if not group else f"{group}/{version}"
        raise KeyError(f'the server doesn\'t have a resource type "{plural}" in "{gv}"') from None
