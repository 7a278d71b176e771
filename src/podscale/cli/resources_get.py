"""``podscale get``: list or fetch objects and print them like ``kubectl get``.

The default and ``-o wide`` outputs ask the server for a ``meta.k8s.io/v1`` Table (the server
decides the columns, as for kubectl) and render it with ``podscale.cli.printer``; ``-o
yaml|json|name`` fetch plain objects. Names that are missing are reported like kubectl
(``Error from server (NotFound): ...``) while the found ones still print. The click layer
(``podscale.cli.resources``) calls ``get_objects``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from podscale.api.kinds import KindInfo
from podscale.cli.printer import as_list, render_json, render_table, render_yaml
from podscale.cli.resources_core import (
    Report,
    Target,
    describe_api_error,
    describe_missing,
    get_table,
    qualified_name,
    resolve_kind,
)
from podscale.client.http import ApiError, HttpApi
from podscale.client.paths import resource_path

__all__ = ["OUTPUT_FORMATS", "GetRequest", "get_objects", "render_objects"]

JSON = dict[str, Any]

OUTPUT_FORMATS: Final = ("", "wide", "yaml", "json", "name")


@dataclass(frozen=True, slots=True)
class GetRequest:
    """One ``get`` invocation; ``all_namespaces`` is ``-A``, ``output`` one of OUTPUT_FORMATS."""

    resource: str
    names: tuple[str, ...] = ()
    all_namespaces: bool = False
    label_selector: str = ""
    output: str = ""
    # kubectl's --show-managed-fields: -o yaml|json drop metadata.managedFields unless asked.
    show_managed_fields: bool = False


def _with_type(kind: KindInfo, obj: JSON) -> JSON:
    """List items come without apiVersion/kind; kubectl fills them in before printing."""
    typed = {"apiVersion": kind.api_version, "kind": kind.kind}
    typed.update(obj)
    return typed


def _without_managed_fields(obj: JSON) -> JSON:
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or "managedFields" not in meta:
        return obj
    return {**obj, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}


def render_objects(
    kind: KindInfo,
    objects: list[JSON],
    output: str,
    *,
    single: bool,
    show_managed_fields: bool = False,
) -> str:
    """``-o yaml|json|name`` text; ``single`` (one NAME asked) prints the bare object.
    ``metadata.managedFields`` is left out unless ``show_managed_fields``, as kubectl does."""
    if output == "name":
        prefix = qualified_name(kind)
        return "".join(f"{prefix}/{o.get('metadata', {}).get('name', '')}\n" for o in objects)
    if not show_managed_fields:
        objects = [_without_managed_fields(o) for o in objects]
    typed = [_with_type(kind, o) for o in objects]
    document = typed[0] if single and len(typed) == 1 else as_list(typed)
    return render_yaml(document) if output == "yaml" else render_json(document)


def _empty_message(kind: KindInfo, namespace: str | None) -> str:
    if kind.namespaced and namespace:
        return f"No resources found in {namespace} namespace."
    return "No resources found"


async def _tables(
    api: HttpApi, kind: KindInfo, namespace: str | None, request: GetRequest, report: Report
) -> list[JSON]:
    if not request.names:
        params = {"limit": "500"}
        if request.label_selector:
            params["labelSelector"] = request.label_selector
        return [await get_table(api, resource_path(kind, namespace), params)]
    tables = []
    for name in request.names:
        try:
            tables.append(await get_table(api, resource_path(kind, namespace, name)))
        except ApiError as err:
            report.errors.append(await describe_missing(api, kind, namespace, err))
    return tables


async def _objects(
    api: HttpApi, kind: KindInfo, namespace: str | None, request: GetRequest, report: Report
) -> list[JSON]:
    if not request.names:
        listed = await api.list(kind, namespace, label_selector=request.label_selector or None)
        return [o for o in listed.get("items") or [] if isinstance(o, dict)]
    objects = []
    for name in request.names:
        try:
            objects.append(await api.get(kind, namespace, name))
        except ApiError as err:
            report.errors.append(await describe_missing(api, kind, namespace, err))
    return objects


async def get_objects(api: HttpApi, target: Target, request: GetRequest) -> Report:
    """Run ``get`` against ``api``; the Report holds stdout and stderr lines."""
    kind = resolve_kind(request.resource)
    namespace = None if request.all_namespaces or not kind.namespaced else target.namespace
    report = Report()
    try:
        if request.output in ("", "wide"):
            tables = await _tables(api, kind, namespace, request, report)
            rows = sum(len(t.get("rows") or []) for t in tables)
            if rows:
                with_namespace = request.all_namespaces and kind.namespaced
                text = render_table(
                    tables, wide=request.output == "wide", with_namespace=with_namespace
                )
                report.out.append(text)
            elif not request.names:
                report.notes.append(_empty_message(kind, namespace))
            return report
        objects = await _objects(api, kind, namespace, request, report)
    except ApiError as err:
        report.errors.append(describe_api_error(err))
        return report
    if objects or not request.names:
        single = len(request.names) == 1
        text = render_objects(
            kind,
            objects,
            request.output,
            single=single,
            show_managed_fields=request.show_managed_fields,
        )
        report.out.append(text.rstrip("\n"))
    return report
