"""``podscale apply -f``: kubectl's client-side apply.

The manifest is recorded in the ``kubectl.kubernetes.io/last-applied-configuration``
annotation (compact JSON, sorted keys, trailing newline, as kubectl writes it). An absent
object is created with that annotation (``... created``); an existing one gets a three-way
strategic merge patch from ``podscale.cli.apply_patch`` (last-applied, manifest, live),
sent as ``application/strategic-merge-patch+json`` (``... configured``), or nothing when the
patch is empty (``... unchanged``). Manifests come from ``podscale.cli.manifests``.
"""

from __future__ import annotations

import copy
import json
from typing import Any, Final

from podscale.cli.apply_patch import create_three_way_patch
from podscale.cli.manifests import Manifest
from podscale.cli.resources_core import Report, Target, describe_api_error, qualified_name
from podscale.client.http import ApiError, HttpApi

__all__ = ["LAST_APPLIED", "annotate_last_applied", "apply_manifests"]

JSON = dict[str, Any]

LAST_APPLIED: Final = "kubectl.kubernetes.io/last-applied-configuration"
STRATEGIC_MERGE_PATCH: Final = "application/strategic-merge-patch+json"


def _go_json(value: Any) -> str:
    """Go's ``json.Marshal`` of a map: compact, sorted keys, HTML characters escaped."""
    text = json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def annotate_last_applied(manifest: JSON, namespace: str | None) -> JSON:
    """A copy of ``manifest`` (in ``namespace``) carrying itself as last-applied.

    Like kubectl, the recorded copy has the namespace filled in and an ``annotations`` map
    (empty when the manifest had none) without the last-applied annotation itself.
    """
    annotated = copy.deepcopy(manifest)
    metadata = annotated.setdefault("metadata", {})
    if namespace is not None:
        metadata["namespace"] = namespace
    annotations = dict(metadata.get("annotations") or {})
    annotations.pop(LAST_APPLIED, None)
    metadata["annotations"] = annotations
    recorded = _go_json(annotated) + "\n"
    metadata["annotations"] = {**annotations, LAST_APPLIED: recorded}
    return annotated


def _last_applied(live: JSON) -> JSON | None:
    annotations = (live.get("metadata") or {}).get("annotations") or {}
    text = annotations.get(LAST_APPLIED)
    if not text:
        return None
    try:
        recorded = json.loads(text)
    except ValueError:
        return None
    return recorded if isinstance(recorded, dict) else None


def _patch_error(manifest: Manifest, namespace: str | None, patch: JSON, err: ApiError) -> str:
    """kubectl's wording for a failed apply PATCH (Invalid keeps its own form)."""
    if err.status == 422:
        return describe_api_error(err)
    kind = manifest.kind
    resource = f"{kind.api_version}, Resource={kind.plural}"
    gvk = f"{kind.api_version}, Kind={kind.kind}"
    context = (
        f"error when applying patch:\n{_go_json(patch)}\n\nto:\n"
        f'Resource: "{resource}", GroupVersionKind: "{gvk}"\n'
        f'Name: "{manifest.name}", Namespace: "{namespace or ""}"\n'
        f'for: "{manifest.source}":'
    )
    return describe_api_error(err, context)


async def _apply_one(api: HttpApi, target: Target, manifest: Manifest, report: Report) -> None:
    namespace = manifest.namespace(target.namespace)
    label = f"{qualified_name(manifest.kind)}/{manifest.name}"
    modified = annotate_last_applied(manifest.obj, namespace)
    try:
        live = await api.get(manifest.kind, namespace, manifest.name)
    except ApiError as err:
        if err.status != 404:
            report.errors.append(describe_api_error(err))
            return
        try:
            await api.create(manifest.kind, namespace, modified)
        except ApiError as create_err:
            context = f'error when creating "{manifest.source}":'
            report.errors.append(describe_api_error(create_err, context))
            return
        report.out.append(f"{label} created")
        return
    patch = create_three_way_patch(_last_applied(live), modified, live)
    if not patch:
        report.out.append(f"{label} unchanged")
        return
    try:
        await api.patch(
            manifest.kind, namespace, manifest.name, patch, content_type=STRATEGIC_MERGE_PATCH
        )
    except ApiError as err:
        report.errors.append(_patch_error(manifest, namespace, patch, err))
        return
    report.out.append(f"{label} configured")


async def apply_manifests(api: HttpApi, target: Target, manifests: list[Manifest]) -> Report:
    """Apply every object in order; failures are reported and the rest still applied."""
    report = Report()
    for manifest in manifests:
        await _apply_one(api, target, manifest, report)
    return report
