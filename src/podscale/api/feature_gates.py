"""Feature gates that change API validation and HPA decisions, with upstream's defaults.

Gates are plain strings in a ``frozenset``; a gate is on when its name is in the set.
``DEFAULT_FEATURE_GATES`` mirrors the state of current upstream (v1.35):
``HPAConfigurableTolerance`` is beta and on, ``HPAScaleToZero`` is alpha and off, and the
ReplicaSet scale-down gates ``PodDeletionCost`` and ``LogarithmicScaleDown`` are on.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "DEFAULT_FEATURE_GATES",
    "HPA_CONFIGURABLE_TOLERANCE",
    "HPA_SCALE_TO_ZERO",
    "KNOWN_FEATURE_GATES",
    "LOGARITHMIC_SCALE_DOWN",
    "POD_DELETION_COST",
    "parse_feature_gates",
]

HPA_SCALE_TO_ZERO: Final = "HPAScaleToZero"
HPA_CONFIGURABLE_TOLERANCE: Final = "HPAConfigurableTolerance"
# ReplicaSet scale-down order (ActivePodsWithRanks); both on by default upstream.
POD_DELETION_COST: Final = "PodDeletionCost"
LOGARITHMIC_SCALE_DOWN: Final = "LogarithmicScaleDown"

KNOWN_FEATURE_GATES: Final = frozenset(
    {HPA_SCALE_TO_ZERO, HPA_CONFIGURABLE_TOLERANCE, POD_DELETION_COST, LOGARITHMIC_SCALE_DOWN}
)
DEFAULT_FEATURE_GATES: Final = frozenset(
    {HPA_CONFIGURABLE_TOLERANCE, POD_DELETION_COST, LOGARITHMIC_SCALE_DOWN}
)


def parse_feature_gates(text: str, base: frozenset[str] = DEFAULT_FEATURE_GATES) -> frozenset[str]:
    """Apply a ``--feature-gates`` string (``A=true,B=false``) on top of ``base``.

    Raises ``ValueError`` for an unknown gate or a value that is not a boolean, with
    upstream's wording (``unrecognized feature gate: X``).
    """
    gates = set(base)
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"missing bool value for {name}")
        if name not in KNOWN_FEATURE_GATES:
            raise ValueError(f"unrecognized feature gate: {name}")
        lowered = value.strip().lower()
        if lowered not in ("true", "false"):
            raise ValueError(f"invalid value of {name}={value}, err: invalid syntax")
        if lowered == "true":
            gates.add(name)
        else:
            gates.discard(name)
    return frozenset(gates)
