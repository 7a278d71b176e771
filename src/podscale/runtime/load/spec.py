"""A load spec: a workload's request rate, what its containers cost, and noise.

The one reader of the load model's declarations (``podscale.runtime.load``), for both places
users write them: a scenario's ``spec.workloads[*]`` (``podscale.scenario.workloads`` adds the
target) and the load annotation of a workload on a live plane
(``podscale.runtime.load.annotation``). Reads through a ``FieldReader``
(``podscale.api.field_reader``), so every error comes with its field path.

Schema::

    load: {type: step, steps: [{at: 0s, rate: 10}, {at: 5m, rate: 80}]}
    containers:
      - name: php-apache
        baseline: {cpu: 1m, memory: 12Mi}     # usage at no load
        perRequest: {cpu: 2m, memory: 64Ki}   # extra usage per request/s
    noise: {stddev: 0.05}                     # multiplicative, N(1, stddev); default 0.05

Load types and their fields: ``constant`` (rate), ``step`` (steps: [{at, rate}], strictly
increasing ``at``; 0 before the first step), ``ramp`` (from, to, over, start), ``sine``
(base, amplitude, period, phase) and ``trace`` (path, relative to ``base``; requestType,
timeScale, offset, loop, rateScale). Rates are requests per second, times Go durations.
Containers not listed cost nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any, Final

from podscale.api.field_errors import FieldPath, duplicate, invalid, not_found, not_supported
from podscale.api.field_reader import FieldReader
from podscale.api.quantity import Quantity
from podscale.runtime.load.rates import (
    ConstantRate,
    RampRate,
    RateSource,
    RateStep,
    SineRate,
    StepRate,
)
from podscale.runtime.load.traces import TraceRate
from podscale.runtime.load.usage import ContainerCost, LoadProfile

__all__ = [
    "DEFAULT_NOISE_STDDEV",
    "LOAD_SPEC_FIELDS",
    "LOAD_TYPES",
    "read_load_profile",
    "read_rate_source",
]

DEFAULT_NOISE_STDDEV: Final = 0.05

_Reader = Callable[[FieldReader, dict[str, Any], FieldPath, Path], RateSource | None]


def _constant(r: FieldReader, obj: dict[str, Any], path: FieldPath, _: Path) -> RateSource | None:
    rate = r.number(obj, "rate", path, need=True)
    return ConstantRate(rate) if rate is not None else None


def _step(r: FieldReader, obj: dict[str, Any], path: FieldPath, _: Path) -> RateSource | None:
    steps: list[RateStep] = []
    ok = True
    for i, item in enumerate(r.sequence(obj, "steps", path, need=True)):
        step_path = path.child("steps").index(i)
        fields = r.mapping(item, step_path, ("at", "rate"))
        if fields is None:
            ok = False
            continue
        at = r.duration(fields, "at", step_path, need=True)
        rate = r.number(fields, "rate", step_path, need=True)
        if at is None or rate is None:
            ok = False
            continue
        if steps and at <= steps[-1].at:
            detail = f"must be later than steps[{i - 1}].at"
            r.errors.append(invalid(step_path.child("at"), fields["at"], detail))
            ok = False
            continue
        steps.append(RateStep(at, rate))
    return StepRate(tuple(steps)) if ok and steps else None


def _curve(
    fields: tuple[str, str, str, str],
    build: Callable[[float, float, timedelta, timedelta], RateSource],
) -> _Reader:
    """The reader of a curve given by two numbers, a period (> 0) and an optional offset: the
    four field names in that order (``ramp``: from, to, over, start; ``sine``: base,
    amplitude, period, phase)."""
    first, second, period, offset = fields

    def read(r: FieldReader, obj: dict[str, Any], path: FieldPath, _: Path) -> RateSource | None:
        a = r.number(obj, first, path, need=True)
        b = r.number(obj, second, path, need=True)
        span = r.duration(obj, period, path, need=True, positive=True)
        shift = r.duration(obj, offset, path)
        if a is None or b is None or span is None:
            return None
        return build(a, b, span, shift or timedelta(0))

    return read


_RAMP: Final = ("from", "to", "over", "start")
_SINE: Final = ("base", "amplitude", "period", "phase")


def _trace(r: FieldReader, obj: dict[str, Any], path: FieldPath, base: Path) -> RateSource | None:
    file = r.string(obj, "path", path, need=True)
    request_type = r.string(obj, "requestType", path)
    time_scale = r.number(obj, "timeScale", path, positive=True)
    offset = r.duration(obj, "offset", path)
    loop = r.boolean(obj, "loop", path)
    rate_scale = r.number(obj, "rateScale", path)
    if file is None:
        return None
    resolved = (base / file).resolve()
    if not resolved.is_file():
        r.errors.append(not_found(path.child("path"), file))
        return None
    return TraceRate(
        resolved,
        request_type=request_type,
        time_scale=1.0 if time_scale is None else time_scale,
        offset=offset or timedelta(0),
        loop=bool(loop),
        rate_scale=1.0 if rate_scale is None else rate_scale,
    )


_LOAD_TYPES: Final[dict[str, tuple[tuple[str, ...], _Reader]]] = {
    "constant": (("rate",), _constant),
    "step": (("steps",), _step),
    "ramp": (_RAMP, _curve(_RAMP, RampRate)),
    "sine": (_SINE, _curve(_SINE, SineRate)),
    "trace": (("path", "requestType", "timeScale", "offset", "loop", "rateScale"), _trace),
}
LOAD_TYPES: Final = tuple(sorted(_LOAD_TYPES))


def read_rate_source(r: FieldReader, value: Any, path: FieldPath, base: Path) -> RateSource | None:
    """A ``load:`` object; ``base`` is the directory trace paths are relative to."""
    if not isinstance(value, dict):
        r.type_error(path, value, "object")
        return None
    kind = r.string(value, "type", path, need=True)
    if kind is None:
        return None
    if kind not in _LOAD_TYPES:
        r.errors.append(not_supported(path.child("type"), kind, LOAD_TYPES))
        return None
    fields, reader = _LOAD_TYPES[kind]
    obj = r.mapping(value, path, ("type", *fields))
    return reader(r, obj, path, base) if obj is not None else None


def _millicores(q: Quantity | None) -> float:
    return float(q.as_fraction() * 1000) if q is not None else 0.0


def _bytes(q: Quantity | None) -> float:
    return float(q.as_fraction()) if q is not None else 0.0


def _resource_pair(
    r: FieldReader, obj: dict[str, Any], key: str, path: FieldPath
) -> tuple[float, float]:
    fields = r.child_mapping(obj, key, path, ("cpu", "memory"))
    if fields is None:
        return 0.0, 0.0
    inner = path.child(key)
    return _millicores(r.quantity(fields, "cpu", inner)), _bytes(
        r.quantity(fields, "memory", inner)
    )


def _read_costs(r: FieldReader, obj: dict[str, Any], path: FieldPath) -> dict[str, ContainerCost]:
    costs: dict[str, ContainerCost] = {}
    for i, item in enumerate(r.sequence(obj, "containers", path)):
        item_path = path.child("containers").index(i)
        fields = r.mapping(item, item_path, ("name", "baseline", "perRequest"))
        if fields is None:
            continue
        name = r.string(fields, "name", item_path, need=True)
        baseline_cpu, baseline_memory = _resource_pair(r, fields, "baseline", item_path)
        cpu_per_rps, memory_per_rps = _resource_pair(r, fields, "perRequest", item_path)
        if name is None:
            continue
        if name in costs:
            r.errors.append(duplicate(item_path.child("name"), name))
            continue
        costs[name] = ContainerCost(baseline_cpu, baseline_memory, cpu_per_rps, memory_per_rps)
    return costs


# The fields of a load spec next to ``load`` (a scenario workload adds ``target``).
LOAD_SPEC_FIELDS: Final = ("load", "containers", "noise")


def read_load_profile(r: FieldReader, obj: dict[str, Any], path: FieldPath) -> LoadProfile:
    """The ``containers`` and ``noise`` of a load spec ``obj`` (already a mapping)."""
    costs = _read_costs(r, obj, path)
    noise = r.child_mapping(obj, "noise", path, ("stddev",))
    stddev = r.number(noise, "stddev", path.child("noise")) if noise is not None else None
    return LoadProfile(costs=costs, noise_stddev=DEFAULT_NOISE_STDDEV if stddev is None else stddev)
