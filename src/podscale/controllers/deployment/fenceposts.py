"""Rolling-update fenceposts: resolving ``maxSurge`` / ``maxUnavailable`` to pod counts.

Behaviour of upstream's ``intstr.GetScaledValueFromIntOrPercent`` and the deployment
utilities ``ResolveFenceposts``, ``MaxSurge`` and ``MaxUnavailable``
(``pkg/controller/deployment/util/deployment_util.go``). ``rollout`` and ``proportional``
build on these numbers; ``Strategy`` is read from a Deployment dict here so that every
neighbour agrees on the defaults.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "RECREATE",
    "ROLLING_UPDATE",
    "Strategy",
    "max_surge",
    "max_unavailable",
    "resolve_fenceposts",
    "scaled_value",
    "strategy_of",
]

ROLLING_UPDATE: Final = "RollingUpdate"
RECREATE: Final = "Recreate"

IntOrPercent = int | str

# Go's strconv.Atoi syntax: optional sign then ASCII digits (no spaces, no underscores).
_ATOI: Final = re.compile(r"[+-]?[0-9]+")


def scaled_value(value: IntOrPercent, total: int, *, round_up: bool) -> int:
    """Resolve an int-or-percent against ``total``; integers pass through unchanged.

    A percentage is rounded up or down as asked. Exact integer arithmetic replaces the
    float multiply upstream does; the two agree for every int32 input. A string without
    a ``%`` suffix or with a non-integer body raises ``ValueError`` with upstream's text.
    """
    if isinstance(value, bool):
        raise ValueError("invalid value for IntOrString: invalid type: bool")
    if isinstance(value, int):
        return value
    if not value.endswith("%"):
        raise ValueError("invalid value for IntOrString: invalid type: string is not a percentage")
    body = value[:-1]
    if _ATOI.fullmatch(body) is None:
        raise ValueError(
            f'invalid value for IntOrString: invalid value "{value}": '
            f'strconv.Atoi: parsing "{body}": invalid syntax'
        )
    product = int(body) * total
    # Floor and ceiling of product/100 without floats.
    return -(-product // 100) if round_up else product // 100


# Results of ``resolve_fenceposts`` (pure), keyed by each argument with its type so that
# ``True`` and ``1`` or ``1`` and ``1.0`` never share an entry; errors are not stored.
# Every Deployment sync resolves the same few (strategy, replicas) pairs.
_RESOLVED: dict[tuple[object, ...], tuple[int, int]] = {}
_RESOLVED_LIMIT: Final = 4096


def resolve_fenceposts(
    max_surge_value: IntOrPercent | None,
    max_unavailable_value: IntOrPercent | None,
    desired: int,
) -> tuple[int, int]:
    """Return ``(surge, unavailable)`` for ``desired`` replicas.

    Surge rounds up and unavailable rounds down, so a rollout errs towards keeping
    capacity. Absent values count as 0; if both resolve to 0 the rollout could never
    move, so unavailable becomes 1 (validation forbids 0/0, percentages can still get
    there on small deployments).
    """
    key = (
        type(max_surge_value),
        max_surge_value,
        type(max_unavailable_value),
        max_unavailable_value,
        type(desired),
        desired,
    )
    try:
        return _RESOLVED[key]
    except KeyError:
        pass
    except TypeError:  # an unhashable value (not an int or string): no memo
        return _resolve(max_surge_value, max_unavailable_value, desired)
    resolved = _resolve(max_surge_value, max_unavailable_value, desired)
    if len(_RESOLVED) >= _RESOLVED_LIMIT:
        _RESOLVED.clear()
    _RESOLVED[key] = resolved
    return resolved


def _resolve(
    max_surge_value: IntOrPercent | None,
    max_unavailable_value: IntOrPercent | None,
    desired: int,
) -> tuple[int, int]:
    surge = scaled_value(0 if max_surge_value is None else max_surge_value, desired, round_up=True)
    unavailable = scaled_value(
        0 if max_unavailable_value is None else max_unavailable_value, desired, round_up=False
    )
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


@dataclass(frozen=True, slots=True)
class Strategy:
    """A Deployment's ``spec.strategy``; defaults are apps/v1's (RollingUpdate, 25%/25%)."""

    type: str = ROLLING_UPDATE
    max_surge: IntOrPercent | None = "25%"
    max_unavailable: IntOrPercent | None = "25%"

    @property
    def is_rolling_update(self) -> bool:
        return self.type == ROLLING_UPDATE


def strategy_of(deployment: Mapping[str, Any]) -> Strategy:
    """Read ``spec.strategy`` of a Deployment dict, filling apps/v1 defaults when absent."""
    raw = (deployment.get("spec") or {}).get("strategy") or {}
    kind = raw.get("type") or ROLLING_UPDATE
    if kind != ROLLING_UPDATE:
        return Strategy(type=kind, max_surge=None, max_unavailable=None)
    rolling = raw.get("rollingUpdate") or {}
    return Strategy(
        type=kind,
        max_surge=rolling.get("maxSurge", "25%"),
        max_unavailable=rolling.get("maxUnavailable", "25%"),
    )


def max_surge(strategy: Strategy, replicas: int) -> int:
    """Pods allowed above ``replicas`` during a rollout; 0 for non-rolling strategies."""
    if not strategy.is_rolling_update:
        return 0
    return resolve_fenceposts(strategy.max_surge, strategy.max_unavailable, replicas)[0]


def max_unavailable(strategy: Strategy, replicas: int) -> int:
    """Pods allowed below ``replicas``; 0 when not rolling or scaled to 0, capped at replicas."""
    if not strategy.is_rolling_update or replicas == 0:
        return 0
    unavailable = resolve_fenceposts(strategy.max_surge, strategy.max_unavailable, replicas)[1]
    return min(unavailable, replicas)
