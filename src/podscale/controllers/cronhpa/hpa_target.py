"""A job on an HorizontalPodAutoscaler: how upstream adjusts the HPA and its target.

kubernetes-cronhpa-controller lets a CronHorizontalPodAutoscaler name an HPA as its
``scaleTargetRef`` so the two cooperate instead of fighting over the replicas. At a
job's run, with the job's ``targetSize`` as the desired size, upstream (in order):

- raises ``maxReplicas`` to the desired size when it is above it;
- lowers ``minReplicas`` to it when it is below it;
- lowers ``minReplicas`` to it when the HPA sits at its minimum and the desired size is
  below its current replicas;
- sets ``minReplicas`` to it when the HPA's current replicas are below it (scaling up);
- writes the HPA when any of these changed it, and then writes the desired size to the
  HPA's target through ``/scale`` only when the current replicas are below it: otherwise
  the replicas are left to the HPA.

``adjust`` is that decision over plain numbers (an unset ``minReplicas`` is the API's
default, 1); ``controller`` reads the HPA and its target's scale and applies it. The
messages are upstream's, with the target's ``/scale`` replicas as it prints them.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["HpaAdjustment", "adjust", "scaled_detail", "skip_detail"]


@dataclass(frozen=True, slots=True)
class HpaAdjustment:
    """The HPA's bounds after a run, whether they changed, and whether to write the
    desired size to the HPA's target."""

    min_replicas: int
    max_replicas: int
    update_hpa: bool
    scale_target: bool


def adjust(desired: int, min_replicas: int, max_replicas: int, current: int) -> HpaAdjustment:
    """Upstream's min/max adjustment for a job of size ``desired`` (module docstring)."""
    low, high = min_replicas, max_replicas
    if desired > high:
        high = desired
    if desired < low:
        low = desired
    if current == low and desired < current:
        low = desired
    if current < desired:
        low = desired
    changed = (low, high) != (min_replicas, max_replicas)
    return HpaAdjustment(low, high, changed, current < desired)


def skip_detail(hpa_name: str, scale_replicas: int, desired: int) -> str:
    return (
        f"Skip scale replicas because HPA {hpa_name} current replicas:{scale_replicas} "
        f">= desired replicas:{desired}."
    )


def scaled_detail(scale_replicas: int, desired: int) -> str:
    return f"current replicas:{scale_replicas}, desired replicas:{desired}."
