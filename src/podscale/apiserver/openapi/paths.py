"""The ``paths`` section of a group-version OpenAPI document, generated from the kind registry.

For every served resource: the collection (list, create, deletecollection), the object (get,
replace, patch, delete), the all-namespaces list of namespaced resources, the ``status`` and
``scale`` subresources (get, replace, patch) and ``pods/binding`` (create only). Each operation
carries ``x-kubernetes-action`` and a single-object ``x-kubernetes-group-version-kind``: kubectl
(>= 1.29) looks for a PATCH operation of the kind it is about to send that lists the
``fieldValidation`` query parameter, and only then leaves field validation to the server
(``?fieldValidation=Strict``). ``openapi`` assembles the document.
"""

from __future__ import annotations

from typing import Any, Final

from podscale.api.kinds import KindInfo, Subresource
from podscale.apiserver.openapi.dsl import REF_PREFIX, Schema, meta

__all__ = ["api_prefix", "group_version_paths", "schema_name"]

_SCHEMA_PACKAGES: Final = {
    "": "io.k8s.api.core",
    "apps": "io.k8s.api.apps",
    "autoscaling": "io.k8s.api.autoscaling",
    "policy": "io.k8s.api.policy",
    "coordination.k8s.io": "io.k8s.api.coordination",
    "events.k8s.io": "io.k8s.api.events",
    "apiextensions.k8s.io": "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions",
}

_PATCH_TYPES: Final = (
    "application/apply-patch+yaml",
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
)


def schema_name(group: str, version: str, kind: str) -> str:
    """The components.schemas key of a kind, e.g. io.k8s.api.apps.v1.ReplicaSet.

    A group without a Go package (a custom resource's) is named by its reversed domain, as
    upstream names CRD schemas: example.com v1 Widget is com.example.v1.Widget.
    """
    package = _SCHEMA_PACKAGES.get(group) or ".".join(reversed(group.split(".")))
    return f"{package}.{version}.{kind}"


def api_prefix(group: str, version: str) -> str:
    """URL prefix of a group-version: /api/v1 for the core group, /apis/<group>/<version>."""
    return f"/api/{version}" if not group else f"/apis/{group}/{version}"


def _query(name: str, kind: str, description: str) -> Schema:
    return {
        "description": description,
        "in": "query",
        "name": name,
        "schema": {"type": kind, "uniqueItems": True},
    }


_DRY_RUN: Final = _query("dryRun", "string", "All: process the request fully but persist nothing.")
_FIELD_MANAGER: Final = _query(
    "fieldManager", "string", "Name of the actor making the change, for field ownership."
)
_FIELD_VALIDATION: Final = _query(
    "fieldValidation",
    "string",
    "How unknown or duplicate fields are handled: Ignore, Warn (default) or Strict.",
)
_FORCE: Final = _query("force", "boolean", "Apply only: take over fields owned by others.")
_WRITE_PARAMS: Final = (_DRY_RUN, _FIELD_MANAGER, _FIELD_VALIDATION)
_DELETE_PARAMS: Final = (
    _query("gracePeriodSeconds", "integer", "Seconds before the object is deleted."),
    _query("orphanDependents", "boolean", "Deprecated: use propagationPolicy."),
    _query("propagationPolicy", "string", "Orphan, Background or Foreground."),
    _DRY_RUN,
)
_LIST_PARAMS: Final = (
    _query("allowWatchBookmarks", "boolean", "Ask for BOOKMARK events in a watch."),
    _query("continue", "string", "Token from a previous limited list, to fetch the next page."),
    _query("fieldSelector", "string", "Restrict the result by fields, e.g. metadata.name=x."),
    _query("labelSelector", "string", "Restrict the result by labels, e.g. app=web."),
    _query("limit", "integer", "Maximum number of items to return."),
    _query("resourceVersion", "string", "The version to list or watch from."),
    _query("resourceVersionMatch", "string", "How resourceVersion is applied to a list."),
    _query("sendInitialEvents", "boolean", "Start a watch with the current state."),
    _query("timeoutSeconds", "integer", "Duration limit of the list or watch call."),
    _query("watch", "boolean", "Stream changes instead of listing."),
)
_PRETTY: Final = _query("pretty", "string", "If 'true', pretty-print the output.")


def _path_param(name: str, description: str) -> Schema:
    return {
        "description": description,
        "in": "path",
        "name": name,
        "required": True,
        "schema": {"type": "string", "uniqueItems": True},
    }


def _content(schema: str, *types: str) -> Schema:
    return {media: {"schema": {"$ref": REF_PREFIX + schema}} for media in types}


def _responses(schema: str, *codes: str, stream: bool = False) -> Schema:
    types = (
        ("application/json", "application/json;stream=watch") if stream else ("application/json",)
    )
    titles = {"200": "OK", "201": "Created", "202": "Accepted"}
    responses: Schema = {
        code: {"content": _content(schema, *types), "description": titles[code]} for code in codes
    }
    responses["401"] = {"description": "Unauthorized"}
    return responses


class _Operations:
    """Builds the operations of one kind (or of one of its subresources)."""

    def __init__(self, info: KindInfo, subresource: Subresource | None = None) -> None:
        self.info = info
        self.is_subresource = subresource is not None
        target = subresource or info
        self.gvk = {"group": target.group, "kind": target.kind, "version": target.version}
        self.schema = schema_name(target.group, target.version, target.kind)
        scope = "Namespaced" if info.namespaced else ""
        gv = "Core" if not info.group else info.group.capitalize()
        suffix = subresource.name.capitalize() if subresource else ""
        self._id = f"{gv}{info.version.capitalize()}{{}}{scope}{info.kind}{suffix}"
        self._what = (
            f"{subresource.name} of the specified {info.kind}"
            if subresource
            else (f"the specified {info.kind}")
        )

    def _op(self, verb: str, action: str, description: str, **extra: Any) -> Schema:
        operation: Schema = {
            "description": description,
            "operationId": verb + self._id.format(""),
            "tags": [f"{self.info.group or 'core'}_{self.info.version}"],
            "x-kubernetes-action": action,
            "x-kubernetes-group-version-kind": dict(self.gvk),
        }
        operation.update(extra)
        return operation

    def _body(self, schema: str, *types: str) -> Schema:
        return {"content": _content(schema, *types), "required": True}

    def item(self) -> Schema:
        """get, put, patch (and delete unless this is a subresource) of one object."""
        ops: Schema = {
            "get": self._op(
                "read", "get", f"read {self._what}", responses=_responses(self.schema, "200")
            ),
            "put": self._op(
                "replace",
                "put",
                f"replace {self._what}",
                parameters=list(_WRITE_PARAMS),
                requestBody=self._body(self.schema, "application/json"),
                responses=_responses(self.schema, "200", "201"),
            ),
            "patch": self._op(
                "patch",
                "patch",
                f"partially update {self._what}",
                parameters=[*_WRITE_PARAMS, _FORCE],
                requestBody=self._body(meta("Patch"), *_PATCH_TYPES),
                responses=_responses(self.schema, "200", "201"),
            ),
        }
        if not self.is_subresource and "delete" in self.info.verbs:
            ops["delete"] = self._op(
                "delete",
                "delete",
                f"delete {self._what}",
                parameters=list(_DELETE_PARAMS),
                requestBody={"content": _content(meta("DeleteOptions"), "application/json")},
                responses=_responses(meta("Status"), "200", "202"),
            )
        return ops

    def create_only(self) -> Schema:
        """POST of a write-only subresource (pods/binding), as upstream publishes it."""
        return {
            "post": self._op(
                "create",
                "post",
                f"create {self._what}",
                parameters=list(_WRITE_PARAMS),
                requestBody=self._body(self.schema, "application/json"),
                responses=_responses(self.schema, "200", "201", "202"),
            )
        }

    def collection(self) -> Schema:
        """list, create and deletecollection of the collection."""
        list_schema = schema_name(self.info.group, self.info.version, self.info.list_kind)
        plural_what = f"objects of kind {self.info.kind}"
        ops: Schema = {
            "get": self._op(
                "list",
                "list",
                f"list or watch {plural_what}",
                parameters=list(_LIST_PARAMS),
                responses=_responses(list_schema, "200", stream=True),
            ),
            "post": self._op(
                "create",
                "post",
                f"create a {self.info.kind}",
                parameters=list(_WRITE_PARAMS),
                requestBody=self._body(self.schema, "application/json"),
                responses=_responses(self.schema, "200", "201", "202"),
            ),
        }
        if "deletecollection" in self.info.verbs:
            operation = self._op(
                "delete",
                "deletecollection",
                f"delete a collection of {plural_what}",
                parameters=[*_DELETE_PARAMS, *_LIST_PARAMS],
                requestBody={"content": _content(meta("DeleteOptions"), "application/json")},
                responses=_responses(meta("Status"), "200"),
            )
            operation["operationId"] = "delete" + self._id.format("Collection")
            ops["delete"] = operation
        return ops

    def all_namespaces(self) -> Schema:
        """The cluster-wide list of a namespaced resource."""
        list_schema = schema_name(self.info.group, self.info.version, self.info.list_kind)
        operation = self._op(
            "list",
            "list",
            f"list or watch objects of kind {self.info.kind} in all namespaces",
            parameters=list(_LIST_PARAMS),
            responses=_responses(list_schema, "200", stream=True),
        )
        operation["operationId"] = operation["operationId"].replace("Namespaced", "") + (
            "ForAllNamespaces"
        )
        return {"get": operation}


def _with_params(ops: Schema, params: list[Schema]) -> Schema:
    return {**ops, "parameters": params}


def group_version_paths(infos: list[KindInfo]) -> dict[str, Schema]:
    """URL path -> path item for every top-level kind in ``infos`` (one group-version)."""
    paths: dict[str, Schema] = {}
    namespace = _path_param("namespace", "Object name and auth scope, e.g. a team's namespace.")
    for info in infos:
        if not info.top_level:
            continue
        prefix = api_prefix(info.group, info.version)
        scope = f"{prefix}/namespaces/{{namespace}}" if info.namespaced else prefix
        scope_params = [namespace] if info.namespaced else []
        name = _path_param("name", f"Name of the {info.kind}.")
        ops = _Operations(info)
        collection = f"{scope}/{info.plural}"
        paths[collection] = _with_params(ops.collection(), [*scope_params, _PRETTY])
        paths[f"{collection}/{{name}}"] = _with_params(ops.item(), [name, *scope_params, _PRETTY])
        if info.namespaced:
            paths[f"{prefix}/{info.plural}"] = _with_params(ops.all_namespaces(), [_PRETTY])
        for sub in info.subresources:
            sub_ops = _Operations(info, sub)
            sub_item = sub_ops.create_only() if sub.verbs == ("create",) else sub_ops.item()
            if sub.verbs == ("update",):  # namespaces/finalize: PUT only, as upstream
                sub_item = {"put": sub_item["put"]}
            paths[f"{collection}/{{name}}/{sub.name}"] = _with_params(
                sub_item, [name, *scope_params, _PRETTY]
            )
    return paths
