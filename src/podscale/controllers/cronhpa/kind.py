"""The CronHorizontalPodAutoscaler kind: its names, its ``KindInfo`` and its CRD.

CronHorizontalPodAutoscaler (``autoscaling.alibabacloud.com/v1beta1``, short name
``cronhpa``) is the kind of Alibaba's kubernetes-cronhpa-controller: namespaced, with
``spec.scaleTargetRef``, ``spec.excludeDates`` and ``spec.jobs[]``, and a status holding
one condition per job. The CRD ships as package data next to this module, read by
``definition``; ``podscale up`` installs it (``plane.workloads``), as does a scenario's
``spec.crds``. ``types`` reads the objects, ``decisions`` and ``hpa_target`` decide, and
``controller`` acts.

``TIMEZONE_ANNOTATION`` names a per-object IANA zone the object's schedules run in (the
controller's ``--cronhpa-timezone`` otherwise); ``DEFAULT_MISFIRE_GRACE`` is how late a
job missed while no controller ran may still run once when one starts.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Final

from podscale.api.kinds import KindInfo, Subresource
from podscale.controllers.packaged_crd import packaged_crd

__all__ = [
    "CRD_NAME",
    "CRONHPA",
    "DEFAULT_MISFIRE_GRACE",
    "GROUP",
    "KIND",
    "TIMEZONE_ANNOTATION",
    "VERSION",
    "definition",
]

GROUP: Final = "autoscaling.alibabacloud.com"
VERSION: Final = "v1beta1"
KIND: Final = "CronHorizontalPodAutoscaler"
PLURAL: Final = "cronhorizontalpodautoscalers"
CRD_NAME: Final = f"{PLURAL}.{GROUP}"

# An IANA zone name (``Europe/Berlin``) for this object's schedules and excludeDates.
TIMEZONE_ANNOTATION: Final = "cronhpa.podscale.dev/timezone"
# Upstream's executor treats a job whose next run is more than 5 minutes overdue as out
# of date and reruns it once (``OutOfDate``); podscale uses the same span as its grace.
DEFAULT_MISFIRE_GRACE: Final = timedelta(minutes=5)

CRONHPA: Final = KindInfo(
    group=GROUP,
    version=VERSION,
    kind=KIND,
    plural=PLURAL,
    singular="cronhorizontalpodautoscaler",
    short_names=("cronhpa",),
    namespaced=True,
    verbs=("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"),
    subresources=(Subresource("status", GROUP, VERSION, KIND),),
    categories=(),
    list_kind="CronHorizontalPodAutoscalerList",
)


def definition() -> dict[str, Any]:
    """A fresh copy of the CronHorizontalPodAutoscaler CRD shipped with podscale."""
    return packaged_crd(__package__, CRD_NAME)
