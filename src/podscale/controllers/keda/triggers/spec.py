"""The value every trigger parser returns, and the naming rules KEDA's scalers share.

`TriggerSpec` is what `podscale.controllers.keda.triggers.registry.parse_trigger` gives
for one entry of a ScaledObject's `spec.triggers`: the metric name KEDA puts in the
generated HPA (`s<index>-<normalized>` as its `GenerateMetricNameWithIndex` builds it),
the HPA target type and value, the activation threshold, and the type's own fields in
`details` (a frozen dataclass from the type's module). `TriggerError` carries KEDA's
own message for bad metadata, to become the ScaledObject's `Ready=False` message.
Pure: no I/O, no clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

MetricType = Literal["AverageValue", "Value", "Utilization"]

# KEDA's GetMetricTargetType: external metrics take no Utilization target.
UTILIZATION_UNSUPPORTED = (
    "'Utilization' metric type is unsupported for external metrics, "
    "allowed values are 'Value' or 'AverageValue'"
)


class TriggerError(ValueError):
    """Bad trigger metadata; `str()` is the message KEDA's scaler constructor returns."""


@dataclass(frozen=True)
class TriggerSpec:
    """One parsed trigger.

    `metric_name` is the HPA metric name: the External metric's name for scalers
    served through the external metrics API, the resource name (`cpu`, `memory`) for
    the Resource metrics KEDA writes for those two. `target_value` is the HPA target
    (a percentage for Utilization). `activation_target` is the value the metric must
    exceed for the trigger to count as active; None for cron, whose activity is its
    window. `details` holds the type's own parsed fields.
    """

    type: str
    name: str
    index: int
    metric_name: str
    metric_type: MetricType
    target_value: float
    activation_target: float | None
    use_cached_metrics: bool
    details: object


def normalize_string(text: str) -> str:
    """KEDA's util.NormalizeString: slashes, dots, colons and percent signs become dashes."""
    for ch in "/.:%":
        text = text.replace(ch, "-")
    return text


def metric_name_with_index(index: int, name: str) -> str:
    """KEDA's GenerateMetricNameWithIndex: the trigger's position prefixes its metric."""
    return f"s{index}-{name}"


def target_milli(value: float) -> int:
    """The milli-units of the HPA target KEDA writes (GetMetricTargetMili).

    Go converts `value * 1000` to int64 by truncation toward zero, so a threshold
    below 0.001 becomes a zero target.
    """
    return int(value * 1000)


def external_metric_type(metric_type: str) -> MetricType:
    """KEDA's GetMetricTargetType for external scalers: AverageValue when unset."""
    if metric_type == "":
        return "AverageValue"
    if metric_type == "Utilization":
        raise TriggerError(f"error getting scaler metric type: {UTILIZATION_UNSUPPORTED}")
    if metric_type in ("AverageValue", "Value"):
        return "AverageValue" if metric_type == "AverageValue" else "Value"
    # KEDA passes other strings through to the HPA, whose validation refuses them;
    # refusing here keeps the generated HPA valid. The wording is podscale's.
    raise TriggerError(
        f'error getting scaler metric type: unsupported metric type "{metric_type}", '
        "allowed values are 'Value' or 'AverageValue'"
    )
