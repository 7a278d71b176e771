"""Defaults of the HorizontalPodAutoscaler (autoscaling/v2 and v1) and of its behavior rules.

``default_hpa_v2`` / ``default_hpa_v1`` are what upstream's ``SetDefaults_HorizontalPodAutoscaler``
fill in (pkg/apis/autoscaling/v2 and v1 defaults.go); ``podscale.api.defaults`` dispatches
them. The HPA engine (``podscale.hpa.decide``) and the stored history
(``podscale.controllers.hpa.history_store``) call ``default_scale_up_rules`` /
``default_scale_down_rules`` on *undefaulted* behavior, the way the controller calls
``GenerateHPAScaleUpRules``; ``podscale.api.conversion`` takes ``DEFAULT_CPU_UTILIZATION`` for
the implicit target of a v1 HPA. Mutates the object it is given (the caller's private copy).
"""

from __future__ import annotations

from typing import Any, Final

__all__ = [
    "DEFAULT_CPU_UTILIZATION",
    "default_hpa_v1",
    "default_hpa_v2",
    "default_scale_down_rules",
    "default_scale_up_rules",
]

# autoscaling.DefaultCPUUtilization: shared by v2 defaulting and v1 -> v2 conversion.
DEFAULT_CPU_UTILIZATION: Final = 80

JSON = dict[str, Any]


def _spec(obj: JSON) -> JSON:
    """The object's spec, created empty when absent (Go's zero-value struct)."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        spec = obj["spec"] = {}
    return spec


def _scale_up_policies() -> list[JSON]:
    # Upstream's order: the Pods policy (4 pods) first, then Percent (100%), both per 15s.
    return [
        {"type": "Pods", "value": 4, "periodSeconds": 15},
        {"type": "Percent", "value": 100, "periodSeconds": 15},
    ]


def _scale_down_policies() -> list[JSON]:
    return [{"type": "Percent", "value": 100, "periodSeconds": 15}]


def _fill_rules(rules: JSON | None, defaults: JSON) -> JSON:
    """Copy each non-null field of ``rules`` over ``defaults``; keep unknown fields of ``rules``.

    An explicit empty ``policies: []`` is kept (Go decodes it to a non-nil slice), so validation
    can reject it rather than defaulting silently replacing it.
    """
    if rules is None:
        return defaults
    merged = dict(defaults)
    merged.update((key, value) for key, value in rules.items() if value is not None)
    return merged


def default_scale_up_rules(rules: JSON | None) -> JSON:
    """Fully populated scale-up rules: window 0, selectPolicy Max, Pods 4 / Percent 100 per 15s.

    Returns a new dict; ``rules`` is not modified and its nested values are shared, not copied.
    ``tolerance`` is never defaulted (the controller's --horizontal-pod-autoscaler-tolerance
    applies when it is unset).
    """
    defaults = {"stabilizationWindowSeconds": 0, "selectPolicy": "Max"}
    defaults["policies"] = _scale_up_policies()
    return _fill_rules(rules, defaults)


def default_scale_down_rules(rules: JSON | None) -> JSON:
    """Fully populated scale-down rules, except ``stabilizationWindowSeconds`` which stays unset.

    The window is left to the controller's --horizontal-pod-autoscaler-downscale-stabilization
    flag (300s by default), which defaulting cannot know.
    """
    defaults: JSON = {"selectPolicy": "Max", "policies": _scale_down_policies()}
    return _fill_rules(rules, defaults)


def default_hpa_v2(obj: JSON) -> None:
    spec = _spec(obj)
    if spec.get("minReplicas") is None:
        spec["minReplicas"] = 1
    if not spec.get("metrics"):
        spec["metrics"] = [
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "target": {
                        "type": "Utilization",
                        "averageUtilization": DEFAULT_CPU_UTILIZATION,
                    },
                },
            }
        ]
    behavior = spec.get("behavior")
    # A nil behavior stays nil: the controller then applies the same defaults itself.
    if isinstance(behavior, dict):
        behavior["scaleUp"] = default_scale_up_rules(behavior.get("scaleUp"))
        behavior["scaleDown"] = default_scale_down_rules(behavior.get("scaleDown"))


def default_hpa_v1(obj: JSON) -> None:
    # v1 only defaults minReplicas; the implicit 80% CPU target is applied by conversion to v2.
    spec = _spec(obj)
    if spec.get("minReplicas") is None:
        spec["minReplicas"] = 1
