"""Finding and reading an HPA's ``scaleTargetRef`` through its ``/scale`` subresource.

Upstream's ``reconcileAutoscaler`` parses the reference's ``apiVersion`` (only its group
matters), asks the RESTMapper (fed by discovery) for every version of that group serving the
kind, and reads ``/scale`` through each mapping in turn until one answers, reporting the first
failure otherwise. ``resolve_target`` is the parse and mapping step, over what the API serves
now (``ControllerApi.rest_mappings``: built-in kinds and the kinds of CustomResourceDefinitions
alike, in-process from the server's registries, over HTTP from discovery); ``read_scale`` the
reading step. Either failure becomes the engine's ``FailedGetScale`` outcome
(``podscale.hpa.scale_unavailable``) in the controller, with the texts below as the event
message: ``unexpected GroupVersion string: a/b/c``, ``no matches for kind "Foo" in group
"apps"``, or the API's own error (``replicasets.apps "web" not found``; for a custom kind
without a scale subresource, the CRD handler's ``widgets.example.com "web" not found``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from podscale.api.kinds import KindInfo
from podscale.client.http import ApiError
from podscale.controllers.runtime_api import ControllerApi

__all__ = ["ScaleTargetError", "read_scale", "resolve_target"]

JSON = dict[str, Any]


class ScaleTargetError(Exception):
    """The target could not be resolved or read. ``spec`` marks a fault in the HPA's spec
    (the ``error="spec"`` label of upstream's reconciliation metrics)."""

    def __init__(self, message: str, *, spec: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.spec = spec


def _parse_group(api_version: str) -> str:
    """Go's ``schema.ParseGroupVersion``, keeping the group."""
    if api_version.count("/") > 1:
        raise ScaleTargetError(f"unexpected GroupVersion string: {api_version}", spec=True)
    group, _, _ = api_version.rpartition("/")
    return group


async def resolve_target(api: ControllerApi, ref: Mapping[str, Any]) -> list[KindInfo]:
    """Every served version of the referenced kind, the group's preferred version first."""
    group = _parse_group(str(ref.get("apiVersion") or ""))
    kind = str(ref.get("kind") or "")
    try:
        mappings = await api.rest_mappings(group, kind)
    except ApiError as err:  # discovery itself failed (a remote server)
        raise ScaleTargetError(str(err)) from None
    if not mappings:
        raise ScaleTargetError(f'no matches for kind "{kind}" in group "{group}"')
    return mappings


async def read_scale(
    api: ControllerApi, mappings: Sequence[KindInfo], namespace: str, name: str
) -> tuple[JSON, KindInfo]:
    """The target's ``Scale`` and the mapping that served it; the first error otherwise."""
    first_error: ApiError | None = None
    for info in mappings:
        try:
            return await api.get(info, namespace, name, "scale"), info
        except ApiError as err:
            first_error = first_error or err
    raise ScaleTargetError(str(first_error) if first_error else "unrecognized resource")
