"""A ScaledObject's scale target, through the API: its ``/scale``, containers, neighbours.

KEDA reaches the workload it scales through the scale client (``/scale`` of any kind that
serves it, mapped through discovery as ``controllers.hpa.scale_target`` does for the HPA)
and reads the workload itself only for what its admission checks need: the pod template's
containers (``validation.check_cpu_memory``). ``ScaleTargetClient`` does both for the
controller (``controller``) and the scale handler (``handler``): ``read`` returns the
target's Scale (``spec.replicas``, ``status.selector``), ``write`` sets its replicas,
``containers`` the pod template's containers (empty for kinds without one).
Failures raise ``TargetError`` with the text KEDA's reconciler reports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from podscale.api.kinds import KindInfo
from podscale.client.http import ApiError
from podscale.controllers.hpa.scale_target import ScaleTargetError, read_scale, resolve_target
from podscale.controllers.keda.types import ScaleTarget
from podscale.controllers.runtime_api import ControllerApi

__all__ = ["ScaleTargetClient", "TargetError", "TargetScale"]

JSON = dict[str, Any]


class TargetError(Exception):
    """The target cannot be read or scaled; ``str()`` is the cause."""


@dataclass(frozen=True)
class TargetScale:
    """The target's Scale and the mapping that served it."""

    scale: Mapping[str, Any]
    info: KindInfo

    @property
    def replicas(self) -> int:
        return int((self.scale.get("spec") or {}).get("replicas") or 0)

    @property
    def selector(self) -> str | None:
        selector = (self.scale.get("status") or {}).get("selector")
        return str(selector) if selector else None


def _ref(target: ScaleTarget) -> JSON:
    return {"apiVersion": target.api_version, "kind": target.kind, "name": target.name}


class ScaleTargetClient:
    """Reads and scales ScaledObjects' targets through ``api``."""

    def __init__(self, api: ControllerApi) -> None:
        self._api = api

    async def read(self, namespace: str, target: ScaleTarget) -> TargetScale:
        try:
            mappings = await resolve_target(self._api, _ref(target))
            scale, info = await read_scale(self._api, mappings, namespace, target.name)
        except ScaleTargetError as err:
            raise TargetError(err.message) from None
        return TargetScale(scale, info)

    async def write(self, namespace: str, current: TargetScale, replicas: int) -> TargetScale:
        scale = dict(current.scale)
        scale["spec"] = {**(scale.get("spec") or {}), "replicas": replicas}
        try:
            written = await self._api.update(current.info, namespace, scale, "scale")
        except ApiError as err:
            raise TargetError(str(err)) from None
        return TargetScale(written, current.info)

    async def replicas(self, namespace: str, target: ScaleTarget) -> int:
        return (await self.read(namespace, target)).replicas

    async def containers(self, namespace: str, target: ScaleTarget) -> list[Mapping[str, Any]]:
        """The pod template's containers of the target, if it has a pod template."""
        try:
            mappings = await resolve_target(self._api, _ref(target))
            obj = await self._api.get(mappings[0], namespace, target.name)
        except (ScaleTargetError, ApiError):
            return []
        template = (obj.get("spec") or {}).get("template") or {}
        return list((template.get("spec") or {}).get("containers") or ())
