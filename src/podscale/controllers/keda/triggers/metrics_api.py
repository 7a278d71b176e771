"""KEDA's `metrics-api` trigger metadata: a number read from a document at a URL.

Required: `url`, `valueLocation` (a GJSON path for `format: json`, a selector for
`prometheus`, a dotted path for `xml`/`yaml`), and `targetValue` (a float; 0 or absent
is refused with "no targetValue given in metadata"); optional:
`activationTargetValue` (0), `format` (json, prometheus, xml, yaml; default json),
`unsafeSsl`, `aggregateFromKubeServiceEndpoints` (bools, false) and `aggregationType`
(average, sum, max, min; default average). The metric is
`s<i>-metric-api-<valueLocation normalized>`; the HPA target is `targetValue` in
milli-units. Fetching and reading the document is not here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from podscale.controllers.keda.triggers.spec import (
    TriggerError,
    metric_name_with_index,
    normalize_string,
)
from podscale.controllers.keda.triggers.typed_config import MetadataReader

_OUTER = "error parsing metric API metadata: "
_INNER = "error parsing metrics API metadata: "
FORMATS = ("prometheus", "json", "xml", "yaml")
AGGREGATIONS = ("average", "sum", "max", "min")


@dataclass(frozen=True)
class MetricsApiTrigger:
    url: str
    value_location: str
    target_value: float
    activation_target_value: float
    format: str
    unsafe_ssl: bool
    aggregate_from_kube_service_endpoints: bool
    aggregation_type: str


def parse_metrics_api(index: int, metadata: Mapping[str, str]) -> tuple[str, MetricsApiTrigger]:
    """The metric name and the parsed trigger; `TriggerError` as KEDA words it."""
    reader = MetadataReader(metadata)
    target = reader.float64("targetValue", optional=True)
    activation = reader.float64("activationTargetValue", default="0")
    url = reader.string("url")
    fmt = reader.string("format", default="json", enum=FORMATS)
    value_location = reader.string("valueLocation")
    unsafe_ssl = reader.boolean("unsafeSsl", default="false")
    aggregate = reader.boolean("aggregateFromKubeServiceEndpoints", default="false")
    aggregation = reader.string("aggregationType", default="average", enum=AGGREGATIONS)
    reader.finish(_OUTER + _INNER)
    # Checked after the typed config: a ScaledObject trigger needs a target (KEDA
    # skips this only when the scaler serves as a ScaledJob's metric source).
    if target == 0:
        raise TriggerError(f"{_OUTER}no targetValue given in metadata")
    trigger = MetricsApiTrigger(
        url=url,
        value_location=value_location,
        target_value=target,
        activation_target_value=activation,
        format=fmt,
        unsafe_ssl=unsafe_ssl,
        aggregate_from_kube_service_endpoints=aggregate,
        aggregation_type=aggregation,
    )
    name = normalize_string(f"metric-api-{value_location}")
    return metric_name_with_index(index, name), trigger
