"""Per-direction tolerances: the band of usage ratios inside which an HPA does not rescale.

Upstream keeps a ``Tolerances`` pair (scale-down, scale-up) built by ``tolerancesForHpa``
in ``horizontal.go`` and consumed by the replica calculator (``podscale.hpa.calculator``),
which asks ``is_within`` before proposing a new count. Here the pair is a plain
``(scale_down, scale_up)`` tuple of fractions (``0.1`` is 10%), so it can be passed
around and recorded in a ``CalculationTrace`` as is.
"""

from __future__ import annotations

from typing import Any

from podscale.api.feature_gates import HPA_CONFIGURABLE_TOLERANCE
from podscale.api.quantity import parse_quantity
from podscale.hpa.types import Config

__all__ = ["Tolerances", "format_tolerances", "is_within", "tolerances_for"]

Tolerances = tuple[float, float]
"""``(scale_down, scale_up)``: how far below and above 1.0 a usage ratio may stray."""


def tolerances_for(behavior: dict[str, Any] | None, config: Config) -> Tolerances:
    """Return the HPA's ``(scale_down, scale_up)`` tolerances.

    ``config.tolerance`` (the controller's ``--horizontal-pod-autoscaler-tolerance``)
    applies both ways unless the ``HPAConfigurableTolerance`` gate is on; then a
    ``spec.behavior.scaleDown.tolerance`` / ``scaleUp.tolerance`` quantity overrides its
    own direction only. ``behavior`` is ``spec.behavior`` or ``None``.
    """
    scale_down = scale_up = config.tolerance
    if not behavior or HPA_CONFIGURABLE_TOLERANCE not in config.feature_gates:
        return scale_down, scale_up
    down_rules = behavior.get("scaleDown")
    if isinstance(down_rules, dict) and down_rules.get("tolerance") is not None:
        scale_down = _approximate_float(down_rules["tolerance"])
    up_rules = behavior.get("scaleUp")
    if isinstance(up_rules, dict) and up_rules.get("tolerance") is not None:
        scale_up = _approximate_float(up_rules["tolerance"])
    return scale_down, scale_up


def is_within(tolerances: Tolerances, usage_ratio: float) -> bool:
    """Whether ``usage_ratio`` is close enough to 1.0 that the replica count should stay.

    Both bounds are inclusive, as upstream: ``1 - down <= ratio <= 1 + up``. NaN is
    never within (every comparison with it is false), matching Go's float semantics.
    """
    scale_down, scale_up = tolerances
    return (1.0 - scale_down) <= usage_ratio <= (1.0 + scale_up)


def format_tolerances(tolerances: Tolerances) -> str:
    """Render like upstream's ``Tolerances.String()``: ``[down:10.0%, up:5.0%]``."""
    scale_down, scale_up = tolerances
    return f"[down:{scale_down * 100.0:.1f}%, up:{scale_up * 100.0:.1f}%]"


def _approximate_float(value: Any) -> float:
    # A bare JSON number is accepted too, as upstream's Quantity.UnmarshalJSON does.
    return parse_quantity(value).as_approximate_float()
