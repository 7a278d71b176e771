"""Running one CronHorizontalPodAutoscaler job against the API: a plain target or an HPA.

A plain target (any kind with a ``scale`` subresource: Deployment, StatefulSet, a custom
kind) gets the job's size written through ``/scale``: its kind is mapped to the versions
the API serves (``controllers.hpa.scale_target``: ``ControllerApi.rest_mappings``, as
upstream's RESTMapper), the first version whose ``/scale`` answers is read and updated. An
HPA target is read (``autoscaling/v2``), adjusted as ``hpa_target.adjust`` decides and
written back with an update, and its own target scaled through ``/scale`` when that
decision says so. Each returns upstream's detail text for the ``Succeed`` message, or
raises ``JobFailed`` with upstream's error text. The controller (``controller``) calls
these at a job's fire time; upstream retries a failed run for 10 s before reporting it,
podscale reports the first failure (the job runs again at its next fire time).
"""

from __future__ import annotations

from typing import Any, Final

from podscale.api.kinds import KindInfo, kind_for
from podscale.client.http import ApiError
from podscale.controllers.cronhpa.hpa_target import adjust, scaled_detail, skip_detail
from podscale.controllers.cronhpa.types import TargetRef
from podscale.controllers.hpa.scale_target import ScaleTargetError, read_scale, resolve_target
from podscale.controllers.runtime_api import ControllerApi

__all__ = ["HPA", "JobFailed", "scale_hpa", "scale_plain"]

JSON = dict[str, Any]
HPA: Final = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")


class JobFailed(Exception):
    """A run failed; the message is upstream's."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


async def _write_scale(
    api: ControllerApi, info: KindInfo, namespace: str, scale: JSON, desired: int, what: str
) -> None:
    scale = {**scale, "spec": {**(scale.get("spec") or {}), "replicas": desired}}
    try:
        await api.update(info, namespace, scale, "scale")
    except ApiError as err:
        raise JobFailed(
            f"failed to scale {what} in {namespace} namespace to {desired}, because of {err}"
        ) from None


async def scale_plain(api: ControllerApi, namespace: str, ref: TargetRef, desired: int) -> str:
    """Write ``desired`` to the target's ``/scale``; upstream's detail text."""
    what = f"{ref.kind} {ref.name}"
    try:
        mappings = await resolve_target(api, ref.to_json())
    except ScaleTargetError as err:
        raise JobFailed(f"Failed to create create mapping,because of {err.message}") from None
    try:
        scale, info = await read_scale(api, mappings, namespace, ref.name)
    except ScaleTargetError:
        raise JobFailed(f"failed to find source target {what} in {namespace} namespace") from None
    current = int((scale.get("spec") or {}).get("replicas") or 0)
    await _write_scale(api, info, namespace, scale, desired, what)
    return scaled_detail(current, desired)


async def scale_hpa(api: ControllerApi, namespace: str, ref: TargetRef, desired: int) -> str:
    """Adjust the HPA ``ref`` names (and maybe scale its target); upstream's detail text."""
    what = f"{ref.kind} {ref.name}"
    try:
        hpa = await api.get(HPA, namespace, ref.name)
    except ApiError as err:
        raise JobFailed(f"Failed to get HorizontalPodAutoscaler Ref,because of {err}") from None
    spec: JSON = hpa.get("spec") or {}
    target = spec.get("scaleTargetRef") or {}
    try:
        mappings = await resolve_target(api, target)
    except ScaleTargetError as err:
        if err.spec:
            message = f"Failed to get TargetGroup of HPA {ref.name},because of {err.message}"
        else:
            message = f"Failed to create mapping,because of {err.message}"
        raise JobFailed(message) from None
    try:
        scale, info = await read_scale(api, mappings, namespace, str(target.get("name") or ""))
    except ScaleTargetError as err:
        raise JobFailed(
            f"failed to found source target {what} in {namespace} namespace, err is {err.message}"
        ) from None
    current = int((hpa.get("status") or {}).get("currentReplicas") or 0)
    decision = adjust(
        desired, int(spec.get("minReplicas") or 1), int(spec.get("maxReplicas") or 0), current
    )
    if decision.update_hpa:
        hpa["spec"] = {
            **spec,
            "minReplicas": decision.min_replicas,
            "maxReplicas": decision.max_replicas,
        }
        try:
            await api.update(HPA, namespace, hpa)
        except ApiError as err:
            raise JobFailed(str(err)) from None
    scale_replicas = int((scale.get("spec") or {}).get("replicas") or 0)
    if not decision.scale_target:
        return skip_detail(ref.name, scale_replicas, desired)
    await _write_scale(api, info, namespace, scale, desired, what)
    return scaled_detail(scale_replicas, desired)
