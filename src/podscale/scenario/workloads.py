"""The ``spec.workloads[*]`` part of a scenario: a target and its load spec.

Called by ``podscale.scenario.loader`` with a ``FieldReader`` (``podscale.api.field_reader``)
that collects every error. A workload is a ``target`` naming the Deployment, ReplicaSet or
StatefulSet next to a load spec (``load``, ``containers``, ``noise``), which
``podscale.runtime.load.spec`` reads (its docstring has the schema) into the runtime's own
types; a live plane reads the same spec from a workload's annotation
(``podscale.runtime.load.annotation``)::

    target: {kind: Deployment, name: php-apache, namespace: default}
    load: {type: step, steps: [{at: 0s, rate: 10}, {at: 5m, rate: 80}]}
    containers: [{name: php-apache, perRequest: {cpu: 2m}}]

Trace paths are relative to the scenario file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from podscale.api.field_errors import FieldPath, not_supported, required
from podscale.api.field_reader import FieldReader
from podscale.runtime.load.spec import (
    DEFAULT_NOISE_STDDEV,
    LOAD_SPEC_FIELDS,
    LOAD_TYPES,
    read_load_profile,
    read_rate_source,
)
from podscale.scenario.model import TARGET_API_VERSIONS, Workload, WorkloadTarget

__all__ = ["DEFAULT_NOISE_STDDEV", "LOAD_TYPES", "read_rate_source", "read_target", "read_workload"]


def read_target(r: FieldReader, value: Any, path: FieldPath) -> WorkloadTarget | None:
    """``{kind, name, namespace}`` naming a Deployment, ReplicaSet or StatefulSet."""
    obj = r.mapping(value, path, ("kind", "name", "namespace"))
    if obj is None:
        return None
    kind = r.string(obj, "kind", path, need=True)
    name = r.string(obj, "name", path, need=True)
    namespace = r.string(obj, "namespace", path) or "default"
    if kind is not None and kind not in TARGET_API_VERSIONS:
        r.errors.append(not_supported(path.child("kind"), kind, TARGET_API_VERSIONS))
        return None
    if kind is None or name is None:
        return None
    return WorkloadTarget(kind, name, namespace)


def read_workload(r: FieldReader, value: Any, path: FieldPath, base: Path) -> Workload | None:
    """One ``spec.workloads[i]`` entry."""
    obj = r.mapping(value, path, ("target", *LOAD_SPEC_FIELDS))
    if obj is None:
        return None
    target = None
    if obj.get("target") is None:
        r.errors.append(required(path.child("target")))
    else:
        target = read_target(r, obj["target"], path.child("target"))
    load = None
    if obj.get("load") is None:
        r.errors.append(required(path.child("load")))
    else:
        load = read_rate_source(r, obj["load"], path.child("load"), base)
    profile = read_load_profile(r, obj, path)
    if target is None or load is None:
        return None
    return Workload(target, load, profile)
