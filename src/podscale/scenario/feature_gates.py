"""``spec.featureGates`` of a scenario: gate names to booleans, over upstream's defaults.

``podscale.scenario.loader`` calls ``read_feature_gates`` with its ``FieldReader``; the gates
are those of ``podscale.api.feature_gates`` (the same names ``podscale up --feature-gates``
takes), and the result lands in ``Scenario.feature_gates``, which
``podscale.scenario.run.plane_for`` hands to the plane (API validation and the HPA engine)::

    spec:
      featureGates: {HPAScaleToZero: true}

A map rather than kube-controller-manager's ``A=true,B=false`` string because a scenario is
YAML, as a KubeletConfiguration's ``featureGates`` is. An unknown name is an unsupported
value listing the known ones; a value that is not a boolean is a type error.
"""

from __future__ import annotations

from typing import Any

from podscale.api.feature_gates import DEFAULT_FEATURE_GATES, KNOWN_FEATURE_GATES
from podscale.api.field_errors import FieldPath, not_supported
from podscale.api.field_reader import FieldReader

__all__ = ["read_feature_gates"]


def read_feature_gates(r: FieldReader, spec: dict[str, Any], path: FieldPath) -> frozenset[str]:
    """The gates ``spec.featureGates`` turns on and off, applied to the defaults (the
    defaults alone when the field is absent or has errors, which ``r`` then holds)."""
    raw = spec.get("featureGates")
    if raw is None:
        return DEFAULT_FEATURE_GATES
    gates_path = path.child("featureGates")
    if not isinstance(raw, dict):
        r.type_error(gates_path, raw, "object")
        return DEFAULT_FEATURE_GATES
    gates = set(DEFAULT_FEATURE_GATES)
    errors_before = len(r.errors)
    for name in raw:
        if name not in KNOWN_FEATURE_GATES:
            r.errors.append(not_supported(gates_path, name, KNOWN_FEATURE_GATES))
            continue
        enabled = r.boolean(raw, name, gates_path)
        if raw[name] is None:
            r.type_error(gates_path.child(name), None, "boolean")
        elif enabled:
            gates.add(name)
        elif enabled is False:
            gates.discard(name)
    if len(r.errors) > errors_before:
        return DEFAULT_FEATURE_GATES
    return frozenset(gates)
