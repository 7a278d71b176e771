"""Scenario files: a versioned YAML describing a simulated cluster, its objects and its load.

``load_scenario(path)`` reads and validates one file into a ``Scenario``
(``podscale.scenario.model``); ``parse_scenario`` does the same for an already decoded
document. The parts are read by ``scenario.cluster`` (nodes, pod timing, events),
``scenario.manifests`` (the Kubernetes objects), ``scenario.workloads`` (workloads and their
load) and ``scenario.external_metrics`` (external metric values), all through one ``FieldReader``
so every problem is reported at once::

    apiVersion: podscale.dev/v1alpha1
    kind: Scenario
    metadata: {name: php-apache-step}
    spec:
      seed: 42                       # default 0
      duration: 30m                  # required, a Go duration
      history: 7d                    # the load's past written to the history store, max 35d
      nodes: {count: 3, capacity: {cpu: "4", memory: 8Gi}}
      pods: {startupDelay: 5s, readinessDelay: 10s}
      crds: [webapps.examples.podscale.dev]   # CRDs podscale ships, installed first
      manifests: [php-apache/deployment.yaml]
      workloads:
        - target: {kind: Deployment, name: php-apache}
          load: {type: step, steps: [{at: 0s, rate: 10}, {at: 5m, rate: 100}]}
          containers: [{name: php-apache, perRequest: {cpu: 2m}}]
      events: [{at: 20m, type: loseNode, node: node-2}]
      externalMetrics:               # external metric series over time (scenario_metrics)
        - {name: queue_ready, labels: {queue: a}, values: [{at: 1m, value: "90"}]}
      featureGates: {HPAScaleToZero: true}   # over upstream's defaults (scenario.feature_gates)

Validation failures raise ``ScenarioError`` whose message reads like the API server's for
an invalid object: ``<file>: Scenario.podscale.dev "name" is invalid: [<errors>]`` with each
error in upstream's ``field.Error`` form and undeclared fields as ``unknown field "spec.x"``
(upstream's strict decoding). Beyond the schema, every manifest's kind must be built in or
defined by a CRD of the scenario (``spec.crds`` or a CustomResourceDefinition among the
manifests), which the run creates first; a target must have a scale subresource (a built-in
workload kind, or a kind a CRD of the scenario serves ``scale`` for: ``scenario.targets``)
and be one of the manifests; a built-in target's costed containers must be in its pod
template (a custom target's pods are made by its controller, so its containers are not
known before the run).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import yaml

from podscale.api.field_errors import (
    FieldError,
    FieldPath,
    duplicate,
    invalid,
    not_found,
    required,
)
from podscale.api.field_reader import FieldReader
from podscale.api.names import validate_dns1123_subdomain_name
from podscale.scenario.cluster import read_events, read_nodes, read_pod_timing, read_string_map
from podscale.scenario.custom_kinds import defined_kinds
from podscale.scenario.external_metrics import read_external_metrics
from podscale.scenario.feature_gates import read_feature_gates
from podscale.scenario.history_prefill import parse_history
from podscale.scenario.manifests import read_manifests, read_shipped_crds
from podscale.scenario.model import API_VERSION, KIND, Manifest, Scenario, Workload
from podscale.scenario.workloads import read_workload

__all__ = ["ScenarioError", "load_scenario", "parse_scenario"]

_METADATA_FIELDS = ("name", "labels", "annotations")
_SPEC_FIELDS = (
    "seed",
    "duration",
    "nodes",
    "pods",
    "manifests",
    "workloads",
    "events",
    "externalMetrics",
    "crds",
    "history",
    "featureGates",
)


class ScenarioError(ValueError):
    """A scenario that cannot be loaded. ``errors`` and ``unknown_fields`` hold the parts
    of a validation failure (both empty for an unreadable file or a wrong apiVersion)."""

    def __init__(
        self,
        message: str,
        errors: Sequence[FieldError] = (),
        unknown_fields: Sequence[str] = (),
    ) -> None:
        super().__init__(message)
        self.errors = tuple(errors)
        self.unknown_fields = tuple(unknown_fields)


def _template_containers(obj: dict[str, Any]) -> set[str]:
    pod_spec = ((obj.get("spec") or {}).get("template") or {}).get("spec") or {}
    containers = [*(pod_spec.get("containers") or []), *(pod_spec.get("initContainers") or [])]
    return {str(c.get("name")) for c in containers if isinstance(c, dict)}


def _costed_containers(raw: Any) -> list[tuple[int, str]]:
    """(index, name) of each named ``containers[]`` entry of a raw workload, so errors point
    at the entry as written even when other entries were invalid."""
    items = raw.get("containers") if isinstance(raw, dict) else None
    if not isinstance(items, list):
        return []
    return [
        (j, item["name"])
        for j, item in enumerate(items)
        if isinstance(item, dict) and isinstance(item.get("name"), str)
    ]


def _check_targets(
    r: FieldReader,
    workloads: list[tuple[int, Workload, Any]],
    manifests: list[Manifest],
    spec: FieldPath,
) -> None:
    """Each target exists among the manifests, once, and a built-in target's costed
    containers exist."""
    by_key = {
        (
            _group(m.object.get("apiVersion")),
            m.object.get("kind"),
            (m.object.get("metadata") or {}).get("namespace") or "default",
            m.object["metadata"]["name"],
        ): m.object
        for m in manifests
    }
    seen: set[str] = set()
    for i, workload, raw in workloads:
        path = spec.child("workloads").index(i)
        target = workload.target
        if str(target) in seen:
            r.errors.append(duplicate(path.child("target"), str(target)))
        seen.add(str(target))
        obj = by_key.get((_group(target.api_version), target.kind, target.namespace, target.name))
        if obj is None:
            r.errors.append(not_found(path.child("target", "name"), target.name))
            continue
        if not target.built_in:
            continue
        known = _template_containers(obj)
        for j, name in _costed_containers(raw):
            if name not in known:
                r.errors.append(not_found(path.child("containers").index(j).child("name"), name))


def _read_history(r: FieldReader, spec: dict[str, Any], path: FieldPath) -> timedelta:
    """``spec.history``: a Go duration (or days, ``7d``) up to 35 days (absent: none)."""
    text = r.string(spec, "history", path)
    if text is None:
        return timedelta(0)
    try:
        return parse_history(text)
    except ValueError as err:  # DurationError is one
        r.errors.append(invalid(path.child("history"), text, str(err)))
        return timedelta(0)


def _group(api_version: Any) -> str:
    return str(api_version or "").rpartition("/")[0]


def _fail(source: str, name: str, r: FieldReader) -> ScenarioError:
    texts = [f'unknown field "{f}"' for f in r.unknown_fields] + [str(e) for e in r.errors]
    joined = texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
    return ScenarioError(
        f'{source}: {KIND}.podscale.dev "{name}" is invalid: {joined}', r.errors, r.unknown_fields
    )


def _check_type(document: Any, source: str) -> None:
    if not isinstance(document, dict):
        raise ScenarioError(f"{source}: a scenario must be a YAML mapping")
    api_version, kind = document.get("apiVersion"), document.get("kind")
    if not kind:
        raise ScenarioError(f"{source}: Object 'Kind' is missing")
    if not api_version:
        raise ScenarioError(f"{source}: Object 'apiVersion' is missing")
    if api_version != API_VERSION or kind != KIND:
        raise ScenarioError(
            f'{source}: no kind "{kind}" is registered for version "{api_version}": '
            f'a scenario needs apiVersion "{API_VERSION}" and kind "{KIND}"'
        )


def parse_scenario(
    document: Any, *, base_dir: Path | None = None, source: Path | None = None
) -> Scenario:
    """Validate a decoded scenario document. Relative paths in it (manifests, traces) are
    resolved against ``base_dir`` (default: ``source``'s directory, else the working
    directory)."""
    label = str(source) if source is not None else "scenario"
    _check_type(document, label)
    base = base_dir or (source.parent if source is not None else Path.cwd())
    r = FieldReader()
    r.mapping(document, FieldPath(), ("apiVersion", "kind", "metadata", "spec"))
    meta_path = FieldPath("metadata")
    metadata = r.mapping(document.get("metadata") or {}, meta_path, _METADATA_FIELDS) or {}
    name = r.string(metadata, "name", meta_path, need=True) or ""
    for problem in validate_dns1123_subdomain_name(name, False) if name else []:
        r.errors.append(invalid(meta_path.child("name"), name, problem))
    labels = read_string_map(r, metadata, "labels", meta_path)
    annotations = read_string_map(r, metadata, "annotations", meta_path)
    path = FieldPath("spec")
    if document.get("spec") is None:
        r.errors.append(required(path))
        raise _fail(label, name, r)
    spec = r.mapping(document["spec"], path, _SPEC_FIELDS)
    if spec is None:
        raise _fail(label, name, r)
    seed = r.integer(spec, "seed", path, minimum=0)
    duration = r.duration(spec, "duration", path, need=True, positive=True)
    history = _read_history(r, spec, path)
    nodes = read_nodes(r, spec, path)
    pods = read_pod_timing(r, spec, path)
    shipped = read_shipped_crds(r, spec, path)
    manifests = [*shipped, *read_manifests(r, spec, path, base, shipped)]
    defined = defined_kinds(m.object for m in manifests)
    workloads: list[tuple[int, Workload, Any]] = []
    for i, item in enumerate(r.sequence(spec, "workloads", path)):
        workload = read_workload(r, item, path.child("workloads").index(i), base, defined)
        if workload is not None:
            workloads.append((i, workload, item))
    _check_targets(r, workloads, manifests, path)
    events = read_events(r, spec, path, duration, nodes, defined)
    external_metrics = read_external_metrics(r, spec, path, duration)
    feature_gates = read_feature_gates(r, spec, path)
    if r.errors or r.unknown_fields or duration is None:
        raise _fail(label, name, r)
    return Scenario(
        name=name,
        duration=duration,
        seed=seed or 0,
        nodes=tuple(nodes),
        pods=pods,
        manifests=tuple(manifests),
        workloads=tuple(w for _, w, _ in workloads),
        events=tuple(events),
        external_metrics=tuple(external_metrics),
        labels=labels,
        annotations=annotations,
        source=source,
        history=history,
        feature_gates=feature_gates,
    )


def load_scenario(path: str | Path) -> Scenario:
    """Read, parse and validate a scenario file."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as err:
        raise ScenarioError(f"{file}: cannot read scenario: {err.strerror or err}") from None
    try:
        documents = [d for d in yaml.safe_load_all(text) if d is not None]
    except yaml.YAMLError as err:
        raise ScenarioError(f"{file}: error parsing scenario: {err}") from None
    if len(documents) != 1:
        raise ScenarioError(f"{file}: expected one scenario document, found {len(documents)}")
    return parse_scenario(documents[0], source=file)
