"""Every OpenAPI schema podscale publishes, in one table, and lookups into it.

Merges the ``openapi_schemas_*`` modules (meta, container, probes, pod with affinity,
pod_status, volume with volume_legacy, claim, core, apps, autoscaling, autoscaling_status,
autoscaling_v1, events, apiextensions) into ``components.schemas`` form. ``openapi`` cuts
per group-version documents out of it (``reachable_schemas``); ``openapi.fields`` finds a
kind's schema (``schema_for_kind``) to check objects against. The table is built once and
is read-only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from podscale.apiserver.openapi.dsl import REF_PREFIX, Schema
from podscale.apiserver.openapi.schemas_apiextensions import apiextensions_schemas
from podscale.apiserver.openapi.schemas_app import app_schemas
from podscale.apiserver.openapi.schemas_apps import apps_schemas
from podscale.apiserver.openapi.schemas_autoscaling import autoscaling_v2_schemas
from podscale.apiserver.openapi.schemas_autoscaling_status import autoscaling_v2_status_schemas
from podscale.apiserver.openapi.schemas_autoscaling_v1 import autoscaling_v1_schemas
from podscale.apiserver.openapi.schemas_claim import claim_schemas
from podscale.apiserver.openapi.schemas_container import container_schemas
from podscale.apiserver.openapi.schemas_core import core_schemas
from podscale.apiserver.openapi.schemas_events import events_schemas
from podscale.apiserver.openapi.schemas_meta import meta_schemas
from podscale.apiserver.openapi.schemas_pod import pod_spec_schemas
from podscale.apiserver.openapi.schemas_pod_status import pod_status_schemas
from podscale.apiserver.openapi.schemas_probes import probe_schemas
from podscale.apiserver.openapi.schemas_volume import volume_schemas

__all__ = ["all_schemas", "reachable_schemas", "referenced_names", "schema_for_kind"]


@cache
def all_schemas() -> Mapping[str, Schema]:
    """Schema name -> schema, for every type podscale describes. Shared: do not mutate."""
    merged: dict[str, Schema] = {}
    for part in (
        meta_schemas(),
        container_schemas(),
        probe_schemas(),
        pod_spec_schemas(),
        pod_status_schemas(),
        volume_schemas(),
        claim_schemas(),
        core_schemas(),
        apps_schemas(),
        autoscaling_v2_schemas(),
        autoscaling_v2_status_schemas(),
        autoscaling_v1_schemas(),
        app_schemas(),
        events_schemas(),
        apiextensions_schemas(),
    ):
        overlap = merged.keys() & part.keys()
        if overlap:
            raise AssertionError(f"schemas defined twice: {sorted(overlap)}")
        merged.update(part)
    return merged


@cache
def _kind_index() -> dict[tuple[str, str], str]:
    index: dict[tuple[str, str], str] = {}
    for name, schema in all_schemas().items():
        for gvk in schema.get("x-kubernetes-group-version-kind", ()):
            group, version = gvk["group"], gvk["version"]
            api_version = f"{group}/{version}" if group else version
            index[(api_version, gvk["kind"])] = name
    return index


def schema_for_kind(api_version: str, kind: str) -> str | None:
    """The name of the schema whose GVK is (``api_version``, ``kind``), or None."""
    return _kind_index().get((api_version, kind))


def referenced_names(fragment: Any) -> Iterable[str]:
    """Every schema name a JSON fragment refers to with ``$ref``, at any depth."""
    if isinstance(fragment, dict):
        for key, value in fragment.items():
            if key == "$ref" and isinstance(value, str) and value.startswith(REF_PREFIX):
                yield value.removeprefix(REF_PREFIX)
            else:
                yield from referenced_names(value)
    elif isinstance(fragment, list):
        for value in fragment:
            yield from referenced_names(value)


def reachable_schemas(roots: Iterable[str]) -> dict[str, Schema]:
    """The schemas named in ``roots`` plus everything they reference, transitively.

    A GV document must be self-contained (kubectl resolves ``$ref`` only within it), so the
    apps/v1 document carries core/v1 PodSpec and the meta types too, as upstream's does.
    """
    schemas = all_schemas()
    found: dict[str, Schema] = {}
    pending = list(roots)
    while pending:
        name = pending.pop()
        if name in found:
            continue
        found[name] = schemas[name]
        pending.extend(referenced_names(schemas[name]))
    return found
