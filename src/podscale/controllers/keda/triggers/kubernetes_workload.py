"""KEDA's `kubernetes-workload` trigger metadata: a count of pods matching a selector.

Required: `podSelector` (a label selector string, read as `labels.Parse` reads it);
`value` (float, must be above 0: the pods each replica should account for) and
`activationValue` (float) default to 0; `namespace` (optional) overrides the
ScaledObject's namespace, `*` meaning all namespaces. The metric is
`s<i>-workload-<namespace normalized>`; the HPA target is `value` in milli-units.
Counting the pods (all phases but Succeeded and Failed) is not here.
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

_PREFIX = "error parsing kubernetes workload metadata: "
ALL_NAMESPACES = "*"


@dataclass(frozen=True)
class WorkloadTrigger:
    pod_selector: str
    selector: Selector
    value: float
    activation_value: float
    namespace: str  # where pods are counted; "" for all namespaces


def parse_kubernetes_workload(
    index: int, metadata: Mapping[str, str], namespace: str
) -> tuple[str, WorkloadTrigger]:
    """The metric name and the parsed trigger for a ScaledObject in `namespace`."""
    reader = MetadataReader(metadata)
    pod_selector = reader.string("podSelector")
    value = reader.float64("value", default="0")
    activation = reader.float64("activationValue", default="0")
    override = reader.string("namespace", optional=True)
    validation = None if value > 0 else "value must be a float greater than 0"
    reader.finish(_PREFIX + _PREFIX, validation)
    try:
        selector = parse_selector(pod_selector)
    except SelectorError as err:
        raise TriggerError(f"{_PREFIX}error parsing pod selector: {err}") from None
    if override == ALL_NAMESPACES:
        namespace = ""
    elif override:
        namespace = override
    trigger = WorkloadTrigger(pod_selector, selector, value, activation, namespace)
    name = normalize_string(f"workload-{namespace}")
    return metric_name_with_index(index, name), trigger
