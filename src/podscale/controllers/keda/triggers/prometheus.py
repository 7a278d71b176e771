"""KEDA's `prometheus` trigger metadata: the query, its threshold and null handling.

Required: `serverAddress`, `query`, `threshold` (a float); optional:
`activationThreshold` (float, 0), `ignoreNullValues` (bool, default true: an empty
result or a missing value reads as 0 instead of an error), `unsafeSsl` (bool),
`namespace`, `queryParameters` and `customHeaders` (`k=v,...` maps) and `timeout`
(milliseconds, an int, not negative). The metric is always `s<i>-prometheus`; the HPA
target is `threshold` in milli-units. The querying itself is not here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from podscale.controllers.keda.triggers.spec import TriggerError, metric_name_with_index
from podscale.controllers.keda.triggers.typed_config import MetadataReader

_PREFIX = "error parsing prometheus metadata: "


@dataclass(frozen=True)
class PrometheusTrigger:
    server_address: str
    query: str
    threshold: float
    activation_threshold: float
    ignore_null_values: bool
    unsafe_ssl: bool
    namespace: str
    timeout_ms: int
    query_parameters: Mapping[str, str] = field(default_factory=dict)
    custom_headers: Mapping[str, str] = field(default_factory=dict)


def parse_prometheus(index: int, metadata: Mapping[str, str]) -> tuple[str, PrometheusTrigger]:
    """The metric name and the parsed trigger; `TriggerError` as KEDA words it."""
    reader = MetadataReader(metadata)
    server_address = reader.string("serverAddress")
    query = reader.string("query")
    query_parameters = reader.string_map("queryParameters")
    threshold = reader.float64("threshold")
    activation = reader.float64("activationThreshold", optional=True)
    namespace = reader.string("namespace", optional=True)
    custom_headers = reader.string_map("customHeaders")
    ignore_null = reader.boolean("ignoreNullValues", default="true")
    unsafe_ssl = reader.boolean("unsafeSsl", optional=True)
    timeout = reader.integer("timeout", "int", optional=True)
    # KEDA wraps the typed-config errors twice: once in parsePrometheusMetadata and
    # once in NewPrometheusScaler.
    reader.finish(_PREFIX + _PREFIX)
    if timeout < 0:
        raise TriggerError(f"{_PREFIX}timeout must be greater than 0: {timeout}")
    trigger = PrometheusTrigger(
        server_address=server_address,
        query=query,
        threshold=threshold,
        activation_threshold=activation,
        ignore_null_values=ignore_null,
        unsafe_ssl=unsafe_ssl,
        namespace=namespace,
        timeout_ms=timeout,
        query_parameters=query_parameters,
        custom_headers=custom_headers,
    )
    return metric_name_with_index(index, "prometheus"), trigger
