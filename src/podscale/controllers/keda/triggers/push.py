"""podscale's own `podscale-push` trigger: a value pushed to the plane's external metrics.

Not a KEDA trigger type. Simulations and tests use it to drive a ScaledObject from a
number they set (through the external metrics push API or the in-process push provider)
without an outside server. Metadata: `metricName` (required; the external metric read
in the ScaledObject's namespace), `value` (required float above 0: the HPA target),
`activationValue` (float, default 0) and `labelSelector` (optional, a label selector the
read passes on). Field errors are worded as KEDA's typed config words them. The metric
is `s<i>-<metricName normalized>`; reading it is `podscale.controllers.keda.scalers.push`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from podscale.api.selectors import Selector, SelectorError, parse_selector
from podscale.controllers.keda.triggers.spec import (
    TriggerError,
    metric_name_with_index,
    normalize_string,
)
from podscale.controllers.keda.triggers.typed_config import MetadataReader

TRIGGER_TYPE = "podscale-push"
_PREFIX = "error parsing podscale-push metadata: "


@dataclass(frozen=True)
class PushTrigger:
    metric_name: str
    value: float
    activation_value: float
    label_selector: str
    selector: Selector


def parse_push(index: int, metadata: Mapping[str, str]) -> tuple[str, PushTrigger]:
    """The metric name and the parsed trigger; `TriggerError` on bad metadata."""
    reader = MetadataReader(metadata)
    metric = reader.string("metricName")
    value = reader.float64("value")
    activation = reader.float64("activationValue", default="0")
    label_selector = reader.string("labelSelector", optional=True)
    validation = "value must be greater than 0" if value <= 0 and not reader.errors else None
    reader.finish(_PREFIX, validation)
    try:
        selector = parse_selector(label_selector)
    except SelectorError as err:
        raise TriggerError(f"{_PREFIX}error parsing labelSelector: {err}") from None
    trigger = PushTrigger(metric, value, activation, label_selector, selector)
    return metric_name_with_index(index, normalize_string(metric)), trigger
