"""The load annotation: a workload's load declared on the workload itself.

A Deployment, ReplicaSet or StatefulSet on a live plane carries its load in the annotation
``load.podscale.dev/v1alpha1``, whose value is a load spec as a scenario workload writes it
(``podscale.runtime.load.spec``: ``load``, ``containers``, ``noise``), in JSON or YAML::

    load.podscale.dev/v1alpha1: '{"load":{"type":"constant","rate":50},
      "containers":[{"name":"web","perRequest":{"cpu":"20m"}}]}'

The key names the schema version, as a scenario's ``apiVersion: podscale.dev/v1alpha1`` does:
a later schema gets a new key, and a plane that does not know it ignores it instead of
misreading it. ``podscale load`` (``podscale.cli.load_command``) writes it,
``podscale.runtime.simulated.load_annotations`` reads it into the simulated usage, and
``podscale describe`` shows it. Trace paths must be absolute here (an annotation has no
directory to be relative to) and are read by the plane, on the plane's machine.

Pure but for reading a trace file; errors are ``LoadSpecError`` with every problem.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, Final

import yaml

from podscale.api.field_errors import FieldPath, invalid, not_found, required
from podscale.api.field_reader import FieldReader
from podscale.runtime.load.rates import RateSource
from podscale.runtime.load.spec import LOAD_SPEC_FIELDS, read_load_profile, read_rate_source
from podscale.runtime.load.traces import TraceError
from podscale.runtime.load.usage import LoadProfile

__all__ = [
    "LOAD_ANNOTATION",
    "DeclaredLoad",
    "LoadSpecError",
    "check_containers",
    "format_load_annotation",
    "load_summary",
    "parse_load_annotation",
    "parse_load_spec",
    "template_containers",
]

LOAD_ANNOTATION: Final = "load.podscale.dev/v1alpha1"
# Upstream caps all of an object's annotations at 256 KiB together (TotalAnnotationSizeLimitB).
MAX_ANNOTATION_BYTES: Final = 256 * 1024


class LoadSpecError(ValueError):
    """A load spec that cannot be used; ``problems`` lists each, field path first."""

    def __init__(self, problems: Iterable[str]) -> None:
        self.problems = tuple(problems)
        super().__init__(
            f'invalid load annotation "{LOAD_ANNOTATION}": [{", ".join(self.problems)}]'
        )


@dataclass(frozen=True, slots=True)
class DeclaredLoad:
    """A valid load spec: the runtime's rate source and profile, and the spec it came from."""

    rate: RateSource
    profile: LoadProfile
    spec: dict[str, Any]


def _relative_trace(value: Any, r: FieldReader) -> bool:
    """Whether ``load`` names a trace by a relative path (recorded as an error): an
    annotation has no file for it to be relative to."""
    if not isinstance(value, dict) or value.get("type") != "trace":
        return False
    path = value.get("path")
    if isinstance(path, str) and path and not Path(path).is_absolute():
        r.errors.append(invalid(FieldPath("load", "path"), path, "must be an absolute path"))
        return True
    return False


def parse_load_spec(value: Any) -> DeclaredLoad:
    """The decoded value of a load annotation, validated strictly (unknown fields fail)."""
    if not isinstance(value, dict):
        kind = "null" if value is None else type(value).__name__
        raise LoadSpecError([f'must be an object with a "load" field, not {kind}'])
    r = FieldReader()
    obj = r.mapping(value, FieldPath(), LOAD_SPEC_FIELDS)
    rate = None
    if obj is not None:
        if obj.get("load") is None:
            r.errors.append(required(FieldPath("load")))
        elif not _relative_trace(obj["load"], r):
            rate = read_rate_source(r, obj["load"], FieldPath("load"), Path("/"))
        profile = read_load_profile(r, obj, FieldPath())
    problems = [f'unknown field "{f}"' for f in r.unknown_fields] + [str(e) for e in r.errors]
    if problems or obj is None or rate is None:
        raise LoadSpecError(problems)
    try:
        # A trace is read on its first rate: read it now, so a malformed file is this
        # error and never one in the usage model's integration, where the plane computes.
        rate.rate_at(timedelta(0))
    except TraceError as err:
        raise LoadSpecError([f"load.path: {err}"]) from None
    return DeclaredLoad(rate, profile, obj)


def _yaml_problem(err: yaml.YAMLError) -> str:
    """The parser's complaint on one line (it goes into an Event), with its position."""
    if isinstance(err, yaml.MarkedYAMLError) and err.problem_mark is not None:
        mark = err.problem_mark
        return f"line {mark.line + 1}, column {mark.column + 1}: {err.problem}"
    return " ".join(str(err).split())


def parse_load_annotation(text: str) -> DeclaredLoad:
    """The annotation's value (JSON or YAML text) as a load."""
    if len(text.encode()) > MAX_ANNOTATION_BYTES:
        raise LoadSpecError([f"must have at most {MAX_ANNOTATION_BYTES} bytes"])
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise LoadSpecError([f"not JSON or YAML: {_yaml_problem(err)}"]) from None
    return parse_load_spec(value)


def format_load_annotation(spec: dict[str, Any]) -> str:
    """The annotation value ``podscale load`` writes: compact JSON, keys in a stable order."""
    return json.dumps(spec, separators=(",", ":"), sort_keys=True)


def template_containers(workload: dict[str, Any]) -> list[str]:
    """The container names of a workload's pod template (sidecars included), in order."""
    spec = ((workload.get("spec") or {}).get("template") or {}).get("spec") or {}
    sidecars = [c for c in spec.get("initContainers") or [] if c.get("restartPolicy") == "Always"]
    return [str(c.get("name", "")) for c in [*sidecars, *(spec.get("containers") or [])]]


def check_containers(declared: DeclaredLoad, workload: dict[str, Any]) -> None:
    """Every container the spec costs must be in the workload's pod template."""
    names = set(template_containers(workload))
    problems = [
        str(not_found(FieldPath("containers").index(i).child("name"), item["name"]))
        for i, item in enumerate(declared.spec.get("containers") or [])
        if isinstance(item, dict) and item.get("name") not in names
    ]
    if problems:
        raise LoadSpecError(problems)


def _rate_summary(load: dict[str, Any]) -> str:
    kind = load.get("type")
    if kind == "constant":
        return f"constant {load.get('rate')} requests/s"
    if kind == "step":
        steps = ", ".join(f"{s.get('rate')} from {s.get('at')}" for s in load.get("steps") or [])
        return f"steps of {steps} requests/s"
    if kind == "ramp":
        start = f" starting at {load['start']}" if load.get("start") else ""
        return (
            f"ramp {load.get('from')} to {load.get('to')} requests/s over {load.get('over')}{start}"
        )
    if kind == "sine":
        return (
            f"sine {load.get('base')} ± {load.get('amplitude')} requests/s, "
            f"period {load.get('period')}"
        )
    keys = ("requestType", "timeScale", "rateScale", "offset", "loop")
    options = [f"{k} {load[k]}" for k in keys if load.get(k) is not None]
    return f"trace {load.get('path')}" + (f" ({', '.join(options)})" if options else "")


def _cost_summary(containers: list[Any], part: str) -> str:
    costs = []
    for item in containers:
        values = item.get(part) or {}
        shown = [f"{values[r]} {r}" for r in ("cpu", "memory") if values.get(r) is not None]
        if shown:
            costs.append(f"{item.get('name')} {' '.join(shown)}")
    return ", ".join(costs)


def load_summary(spec: dict[str, Any]) -> str:
    """One line saying what a valid load spec does, for Events and ``podscale describe``:
    ``constant 50 requests/s; per request/s: web 20m cpu``."""
    parts = [_rate_summary(spec.get("load") or {})]
    containers = [c for c in spec.get("containers") or [] if isinstance(c, dict)]
    per_request = _cost_summary(containers, "perRequest")
    baseline = _cost_summary(containers, "baseline")
    if per_request:
        parts.append(f"per request/s: {per_request}")
    if baseline:
        parts.append(f"baseline: {baseline}")
    if not per_request and not baseline:
        parts.append("no container costs: the pods serve requests but use no more CPU")
    return "; ".join(parts)
