"""What Go's decoder of an ``autoscaling/v1`` ``Scale`` body refuses, before validation.

A Scale written through ``/scale`` (``subresources.write_scale``, for an update or the
result of a patch) is decoded upstream into the typed struct first: a ``spec`` or
``status`` that is not an object, a ``spec.replicas`` that is not an integer, or a value out
of its field's range is a 400 with the decoder's message, and never reaches validation.
``check_scale_types`` raises that ``ApiError``; the range check reads the OpenAPI types
(``openapi.types.type_mismatches``).
"""

from __future__ import annotations

from typing import Any

from podscale.apiserver.errors import bad_request
from podscale.apiserver.openapi.types import type_mismatches

__all__ = ["check_scale_types"]

JSON = dict[str, Any]


def _go_type(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "number"


def check_scale_types(scale: JSON) -> None:
    """Reject what Go's decoder of ``autoscaling/v1.Scale`` would (400), before validation.

    A Scale body or a patched Scale must have object ``spec``/``status`` and an integer
    ``spec.replicas``; anything else never reaches validation upstream.
    """
    handled = 'Scale in version "v1" cannot be handled as a Scale'
    prefix = f"{handled}: json: cannot unmarshal"
    for field, struct in (("spec", "ScaleSpec"), ("status", "ScaleStatus")):
        value = scale.get(field)
        if value is not None and not isinstance(value, dict):
            raise bad_request(
                f"{prefix} {_go_type(value)} into Go struct field Scale.{field} of type v1.{struct}"
            )
    replicas = (scale.get("spec") or {}).get("replicas")
    if replicas is not None and (isinstance(replicas, bool) or not isinstance(replicas, int)):
        got = f"number {replicas}" if isinstance(replicas, float) else _go_type(replicas)
        raise bad_request(
            f"{prefix} {got} into Go struct field ScaleSpec.spec.replicas of type int32"
        )
    # What is left for the decoder to refuse is a value out of its field's range (2^31).
    mismatches = type_mismatches("autoscaling/v1", "Scale", scale)
    if mismatches:
        raise bad_request(f"{handled}: {mismatches[0].message()}")
