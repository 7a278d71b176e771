"""The ``spec.workloads[*]`` part of a scenario: a target and its load spec.

Called by ``podscale.scenario.loader`` with a ``FieldReader`` (``podscale.api.field_reader``)
that collects every error. A workload is a ``target`` naming the object that receives the
load (a Deployment, ReplicaSet or StatefulSet, or any kind a CRD of the scenario defines
with a scale subresource: ``scenario.targets``) next to a load spec (``load``,
``containers``, ``noise``), which
``podscale.runtime.load.spec`` reads (its docstring has the schema) into the runtime's own
types; a live plane reads the same spec from a workload's annotation
(``podscale.runtime.load.annotation``)::

    target: {kind: Deployment, name: php-apache, namespace: default}   # apiVersion optional
    load: {type: step, steps: [{at: 0s, rate: 10}, {at: 5m, rate: 80}]}
    containers: [{name: php-apache, perRequest: {cpu: 2m}}]

Trace paths are relative to the scenario file.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from podscale.api.field_errors import FieldPath, required
from podscale.api.field_reader import FieldReader
from podscale.runtime.load.spec import (
    DEFAULT_NOISE_STDDEV,
    LOAD_SPEC_FIELDS,
    LOAD_TYPES,
    read_load_profile,
    read_rate_source,
)
from podscale.scenario.custom_kinds import DefinedKind
from podscale.scenario.model import Workload, WorkloadTarget
from podscale.scenario.targets import resolve_target_api_version

__all__ = ["DEFAULT_NOISE_STDDEV", "LOAD_TYPES", "read_rate_source", "read_target", "read_workload"]


def read_target(
    r: FieldReader,
    value: Any,
    path: FieldPath,
    defined: Mapping[tuple[str, str], DefinedKind] | None = None,
) -> WorkloadTarget | None:
    """``{apiVersion, kind, name, namespace}`` naming an object with a scale subresource:
    a built-in kind, or one of ``defined`` (the kinds of the scenario's CRDs)."""
    obj = r.mapping(value, path, ("apiVersion", "kind", "name", "namespace"))
    if obj is None:
        return None
    written = r.string(obj, "apiVersion", path)
    kind = r.string(obj, "kind", path, need=True)
    name = r.string(obj, "name", path, need=True)
    namespace = r.string(obj, "namespace", path) or "default"
    api_version = None
    if kind is not None:
        api_version, errors = resolve_target_api_version(kind, written or None, defined or {}, path)
        r.errors.extend(errors)
    if kind is None or name is None or api_version is None:
        return None
    return WorkloadTarget(kind, name, namespace, api_version)


def read_workload(
    r: FieldReader,
    value: Any,
    path: FieldPath,
    base: Path,
    defined: Mapping[tuple[str, str], DefinedKind] | None = None,
) -> Workload | None:
    """One ``spec.workloads[i]`` entry; ``defined`` as for ``read_target``."""
    obj = r.mapping(value, path, ("target", *LOAD_SPEC_FIELDS))
    if obj is None:
        return None
    target = None
    if obj.get("target") is None:
        r.errors.append(required(path.child("target")))
    else:
        target = read_target(r, obj["target"], path.child("target"), defined)
    load = None
    if obj.get("load") is None:
        r.errors.append(required(path.child("load")))
    else:
        load = read_rate_source(r, obj["load"], path.child("load"), base)
    profile = read_load_profile(r, obj, path)
    if target is None or load is None:
        return None
    return Workload(target, load, profile)
