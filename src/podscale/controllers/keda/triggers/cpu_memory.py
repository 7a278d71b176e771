"""KEDA's `cpu` and `memory` triggers: a Resource metric in the generated HPA.

One module for both, as KEDA has one scaler for both. Metadata: `value` (required),
`activationValue` (default "0"), `containerName` (optional: a ContainerResource
metric then), and the target type, from the trigger's `metricType` or the older
`metadata.type` (enum Utilization, AverageValue; it wins when both are given). A
Utilization value is a base-10 int32 (Go's `strconv.ParseInt` errors); an AverageValue
is a Kubernetes quantity. Neither trigger can be the only one of a ScaledObject that
scales to zero (that rule is the ScaledObject's validation, not here).

The HPA metric is named by the resource (`cpu`, `memory`); KEDA does not index it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from podscale.api.quantity import Quantity, QuantityError, parse_quantity
from podscale.controllers.keda.triggers.spec import MetricType, TriggerError
from podscale.controllers.keda.triggers.typed_config import MetadataReader

Resource = Literal["cpu", "memory"]
_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1
_ALLOWED = "allowed values are 'Utilization' or 'AverageValue'"


@dataclass(frozen=True)
class ResourceTrigger:
    resource: Resource
    metric_type: MetricType
    container_name: str
    average_utilization: int | None
    average_value: Quantity | None
    activation_average_utilization: int | None
    activation_average_value: Quantity | None


def parse_go_int32(text: str) -> int:
    """Go's `strconv.ParseInt(text, 10, 32)`, its errors as `ValueError` texts."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    if not digits or not all("0" <= ch <= "9" for ch in digits):
        raise ValueError(f'strconv.ParseInt: parsing "{text}": invalid syntax')
    value = int(text)
    if not _INT32_MIN <= value <= _INT32_MAX:
        raise ValueError(f'strconv.ParseInt: parsing "{text}": value out of range')
    return value


def _utilization(text: str, resource: Resource) -> int:
    try:
        return parse_go_int32(text)
    except ValueError as err:
        raise TriggerError(f"error parsing {resource} metadata: {err}") from None


def _quantity(text: str, resource: Resource) -> Quantity:
    # KEDA's resource.MustParse panics on a bad quantity; podscale reports the parse
    # error instead so that the ScaledObject shows it.
    try:
        return parse_quantity(text)
    except QuantityError as err:
        raise TriggerError(f"error parsing {resource} metadata: {err}") from None


def parse_resource(
    resource: Resource, metadata: Mapping[str, str], metric_type: str
) -> ResourceTrigger:
    """The parsed trigger; `TriggerError` as KEDA words it."""
    reader = MetadataReader(metadata)
    legacy_type = reader.string("type", optional=True, enum=("Utilization", "AverageValue"))
    value = reader.string("value")
    activation = reader.string("activationValue", default="0")
    container = reader.string("containerName", optional=True)
    reader.finish(f"error parsing {resource} metadata: ")
    chosen = legacy_type or metric_type
    if chosen == "AverageValue":
        return ResourceTrigger(
            resource,
            "AverageValue",
            container,
            None,
            _quantity(value, resource),
            None,
            _quantity(activation, resource),
        )
    if chosen == "Utilization":
        return ResourceTrigger(
            resource,
            "Utilization",
            container,
            _utilization(value, resource),
            None,
            _utilization(activation, resource),
            None,
        )
    raise TriggerError(
        f"error parsing {resource} metadata: unknown metric type: {chosen}, {_ALLOWED}"
    )
