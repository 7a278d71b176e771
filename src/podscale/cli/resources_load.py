"""``podscale load``: declare a workload's load through the API, as its load annotation.

The click layer (``podscale.cli.resources``) passes the flags as a ``LoadFlags``;
``spec_from_flags`` turns them into a load spec (the schema of ``podscale.runtime.load.spec``),
and ``set_load`` GETs the workload, validates the spec against it (the same checks the plane
makes: ``podscale.runtime.load.annotation``) and writes the annotation with a JSON merge
patch, which works against any server and kubeconfig (what ``kubectl annotate`` does);
``--off`` removes it. Nothing is written when the spec is invalid.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import yaml

from podscale.api.durations import DurationError, parse_go_duration
from podscale.cli.resources_core import (
    CommandError,
    Report,
    Target,
    describe_api_error,
    qualified_name,
    resolve_kind,
)
from podscale.client.http import ApiError, HttpApi
from podscale.runtime.load.annotation import (
    LOAD_ANNOTATION,
    LoadSpecError,
    check_containers,
    format_load_annotation,
    load_summary,
    parse_load_spec,
    template_containers,
)

__all__ = ["LoadFlags", "set_load", "spec_from_flags"]

JSON = dict[str, Any]
_WORKLOADS: Final = ("Deployment", "ReplicaSet", "StatefulSet")


@dataclass(frozen=True, slots=True)
class LoadFlags:
    """The flags of ``podscale load``; exactly one shape (or ``off``) is set."""

    rate: float | None = None
    steps: tuple[str, ...] = ()
    ramp: str | None = None
    sine: str | None = None
    trace: str | None = None
    spec_file: str | None = None
    off: bool = False
    time_scale: float | None = None
    loop: bool = False
    cpu_per_request: str | None = None
    memory_per_request: str | None = None
    container: str | None = None
    noise: float | None = None


def _duration(flag: str, text: str) -> str:
    try:
        parse_go_duration(text)
    except DurationError as err:
        raise CommandError(f"error: {flag}: {err}") from None
    return text


def _plain(value: float) -> float | int:
    """Whole numbers written as such (``50``, not ``50.0``) in the annotation and messages."""
    return int(value) if float(value).is_integer() else value


def _number(flag: str, text: str) -> float | int:
    try:
        return _plain(float(text))
    except ValueError:
        raise CommandError(f"error: {flag}: {text!r} is not a number") from None


def _step(text: str) -> JSON:
    at, sep, rate = text.partition("=")
    if not sep:
        raise CommandError(f"error: --step {text!r}: expected AT=RATE, e.g. 5m=80")
    return {"at": _duration("--step", at), "rate": _number("--step", rate)}


def _triple(flag: str, text: str, names: tuple[str, str, str]) -> JSON:
    parts = text.split(",")
    if len(parts) != 3:
        raise CommandError(f"error: {flag} {text!r}: expected {','.join(n.upper() for n in names)}")
    first, second, period = names
    return {
        first: _number(flag, parts[0]),
        second: _number(flag, parts[1]),
        period: _duration(flag, parts[2]),
    }


def _shape(flags: LoadFlags) -> JSON:
    if flags.rate is not None:
        return {"type": "constant", "rate": _plain(flags.rate)}
    if flags.steps:
        return {"type": "step", "steps": [_step(s) for s in flags.steps]}
    if flags.ramp is not None:
        return {"type": "ramp", **_triple("--ramp", flags.ramp, ("from", "to", "over"))}
    if flags.sine is not None:
        return {"type": "sine", **_triple("--sine", flags.sine, ("base", "amplitude", "period"))}
    assert flags.trace is not None
    trace: JSON = {"type": "trace", "path": str(Path(flags.trace).resolve())}
    if flags.time_scale is not None:
        trace["timeScale"] = _plain(flags.time_scale)
    if flags.loop:
        trace["loop"] = True
    return trace


def _spec_file(path: str) -> Any:
    try:
        text = Path(path).read_text(encoding="utf-8")
        return yaml.safe_load(text)
    except (OSError, yaml.YAMLError) as err:
        raise CommandError(f"error: {path}: {' '.join(str(err).split())}") from None


def spec_from_flags(flags: LoadFlags, containers: list[str]) -> JSON | None:
    """The load spec the flags ask for (None for ``--off``); ``containers`` are the pod
    template's, the first of which is costed unless ``--container`` names another."""
    shapes = [
        flags.rate is not None,
        bool(flags.steps),
        flags.ramp is not None,
        flags.sine is not None,
        flags.trace is not None,
        flags.spec_file is not None,
        flags.off,
    ]
    if sum(shapes) != 1:
        raise CommandError(
            "error: give exactly one of --rate, --step, --ramp, --sine, --trace, -f or --off"
        )
    if flags.off:
        return None
    if flags.spec_file is not None:
        document = _spec_file(flags.spec_file)
        if not isinstance(document, dict):
            raise CommandError(f'error: {flags.spec_file}: must be an object with a "load" field')
        return dict(document)
    spec: JSON = {"load": _shape(flags)}
    per_request = {
        resource: value
        for resource, value in (
            ("cpu", flags.cpu_per_request),
            ("memory", flags.memory_per_request),
        )
        if value is not None
    }
    if per_request:
        name = flags.container or (containers[0] if containers else "")
        spec["containers"] = [{"name": name, "perRequest": per_request}]
    if flags.noise is not None:
        spec["noise"] = {"stddev": _plain(flags.noise)}
    return spec


async def set_load(
    api: HttpApi, target: Target, resource: str, name: str, *, flags: LoadFlags
) -> Report:
    """Write (or with ``--off`` remove) the workload's load annotation."""
    kind = resolve_kind(resource)
    if kind.kind not in _WORKLOADS:
        raise CommandError(
            f"error: cannot load {qualified_name(kind)}: use a deployment, "
            "replicaset or statefulset"
        )
    report = Report()
    try:
        workload = await api.get(kind, target.namespace, name)
    except ApiError as err:
        report.errors.append(describe_api_error(err))
        return report
    spec = spec_from_flags(flags, template_containers(workload))
    value: str | None = None
    if spec is not None:
        try:
            declared = parse_load_spec(spec)
            check_containers(declared, workload)
        except LoadSpecError as err:
            raise CommandError(f"error: {err}") from None
        value = format_load_annotation(spec)
    try:
        await api.patch(
            kind, target.namespace, name, {"metadata": {"annotations": {LOAD_ANNOTATION: value}}}
        )
    except ApiError as err:
        report.errors.append(describe_api_error(err))
        return report
    what = "load removed" if spec is None else f"load set: {load_summary(spec)}"
    report.out.append(f"{qualified_name(kind)}/{name} {what}")
    return report
