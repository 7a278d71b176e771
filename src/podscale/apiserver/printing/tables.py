"""Server-side printing: ``meta.k8s.io/v1`` Table responses, as kube-apiserver builds them.

kubectl ``get`` asks for ``as=Table`` (see ``wants_table``) and prints whatever columns the
server sends, so the columns and cells here are what users see. The app (the rest of
``podscale.apiserver``) calls ``table_for`` for a list or a get, and ``table_row_event`` for
each watch event in Table mode. Every column is always sent, wide ones included, as upstream
does. Rows carry ``object`` per ``includeObject``: ``Metadata`` (the default) a
PartialObjectMetadata, ``Object`` the full object (``kubectl --sort-by``), ``None`` nothing.

The returned dicts share sub-dicts (metadata, objects) with the inputs: serialize them, do not
mutate them. Per-kind printers live in ``printing.pods``, ``printing.hpa`` and
``printing.rows``, their columns in ``printing.columns``, shared formatting in
``printing.format``. Pure code: ``now`` is injected for the Age columns.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Final

from podscale.api.conversion_events import event_to_core
from podscale.api.kinds import KindInfo
from podscale.api.selector_model import go_quote
from podscale.apiserver.customresources import columns as custom_columns
from podscale.apiserver.customresources.definitions import CustomKind
from podscale.apiserver.printing.app import (
    CONFIG_MAP_COLUMNS,
    LEASE_COLUMNS,
    PDB_COLUMNS,
    SECRET_COLUMNS,
    SERVICE_ACCOUNT_COLUMNS,
    SERVICE_COLUMNS,
    print_config_map,
    print_lease,
    print_pdb,
    print_secret,
    print_service,
    print_service_account,
)
from podscale.apiserver.printing.columns import (
    CREATED_AT_COLUMNS,
    DEPLOYMENT_COLUMNS,
    EVENT_COLUMNS,
    GENERIC_COLUMNS,
    HPA_COLUMNS,
    NAMESPACE_COLUMNS,
    NODE_COLUMNS,
    POD_COLUMNS,
    REPLICA_SET_COLUMNS,
    STATEFUL_SET_COLUMNS,
    ColumnDefinition,
)
from podscale.apiserver.printing.hpa import print_hpa
from podscale.apiserver.printing.pods import print_pod
from podscale.apiserver.printing.rows import (
    print_created_at,
    print_deployment,
    print_event,
    print_generic,
    print_namespace,
    print_node,
    print_replica_set,
    print_stateful_set,
)

__all__ = [
    "INCLUDE_OBJECT_VALUES",
    "partial_object_metadata",
    "table_for",
    "table_row_event",
    "wants_table",
]

JSON = dict[str, Any]
RowPrinter = Callable[[JSON, datetime], JSON]

TABLE_API_VERSION: Final = "meta.k8s.io/v1"
# The accepted ``includeObject`` query values; "" means the default, Metadata.
INCLUDE_OBJECT_VALUES: Final = ("Metadata", "Object", "None")
# Table versions kube-apiserver serves; kubectl offers v1 first, then v1beta1.
_TABLE_VERSIONS: Final = ("v1", "v1beta1")
# Media types a JSON Table can answer.
_JSON_MEDIA_TYPES: Final = ("application/json", "application/*", "*/*")

_PRINTERS: Final[dict[tuple[str, str], tuple[tuple[ColumnDefinition, ...], RowPrinter]]] = {
    ("", "Pod"): (POD_COLUMNS, print_pod),
    ("", "Node"): (NODE_COLUMNS, print_node),
    ("", "Namespace"): (NAMESPACE_COLUMNS, print_namespace),
    ("", "Event"): (EVENT_COLUMNS, print_event),
    ("apps", "ReplicaSet"): (REPLICA_SET_COLUMNS, print_replica_set),
    ("apps", "Deployment"): (DEPLOYMENT_COLUMNS, print_deployment),
    ("apps", "StatefulSet"): (STATEFUL_SET_COLUMNS, print_stateful_set),
    ("autoscaling", "HorizontalPodAutoscaler"): (HPA_COLUMNS, print_hpa),
    ("", "Service"): (SERVICE_COLUMNS, print_service),
    ("", "ConfigMap"): (CONFIG_MAP_COLUMNS, print_config_map),
    ("", "Secret"): (SECRET_COLUMNS, print_secret),
    ("", "ServiceAccount"): (SERVICE_ACCOUNT_COLUMNS, print_service_account),
    ("policy", "PodDisruptionBudget"): (PDB_COLUMNS, print_pdb),
    ("coordination.k8s.io", "Lease"): (LEASE_COLUMNS, print_lease),
    # Upstream prints the internal (core-shaped) event for both APIs: the same columns.
    ("events.k8s.io", "Event"): (
        EVENT_COLUMNS,
        lambda event, now: print_event(event_to_core(event), now),
    ),
    ("apiextensions.k8s.io", "CustomResourceDefinition"): (CREATED_AT_COLUMNS, print_created_at),
}


def table_for(
    kind: KindInfo,
    objects: list[JSON],
    *,
    include_object: str = "Metadata",
    resource_version: str,
    now: datetime,
) -> JSON:
    """The Table for ``objects`` of ``kind`` (one object for a get, the items for a list).

    ``resource_version`` becomes ``metadata.resourceVersion``: the list's for a list, the
    object's for a get. Raises ValueError with upstream's BadRequest message for an unknown
    ``include_object``.
    """
    columns, printer = _printer_for(kind)
    mode = _include_mode(include_object)
    rows = [_row(printer, obj, mode, now) for obj in objects]
    return _table(resource_version, [dict(column) for column in columns], rows)


def table_row_event(
    kind: KindInfo,
    obj: JSON,
    *,
    include_object: str,
    resource_version: str,
    now: datetime,
    with_columns: bool,
) -> JSON:
    """The one-row Table that is the ``object`` of a watch event in Table mode.

    ``with_columns`` False sends ``columnDefinitions: []``, as upstream does after the first
    event of a watch (kubectl prints either way).
    """
    columns, printer = _printer_for(kind)
    mode = _include_mode(include_object)
    definitions = [dict(column) for column in columns] if with_columns else []
    return _table(resource_version, definitions, [_row(printer, obj, mode, now)])


def wants_table(accept: str) -> bool:
    """Whether the Accept header's preferred servable choice is a ``meta.k8s.io`` Table.

    Clauses are ranked like upstream's negotiation (by ``q``, then specificity). The first one
    we can answer decides: a JSON Table clause (``as=Table;g=meta.k8s.io;v=v1|v1beta1``) means
    True, plain JSON means False. Clauses we cannot answer (protobuf, other ``as=`` kinds,
    unknown Table versions) are skipped; nothing servable means False.
    """
    for media_type, params in _ranked_clauses(accept):
        if media_type not in _JSON_MEDIA_TYPES:
            continue
        target = params.get("as")
        if target is None:
            return False
        if (
            target == "Table"
            and params.get("g") == "meta.k8s.io"
            and params.get("v") in _TABLE_VERSIONS
        ):
            return True
    return False


def _printer_for(kind: KindInfo) -> tuple[tuple[ColumnDefinition, ...], RowPrinter]:
    if isinstance(kind, CustomKind):
        # A custom kind prints its CRD version's additionalPrinterColumns.
        version = kind.definition_version
        columns = tuple(custom_columns.column_definitions(version))
        return columns, lambda obj, now: custom_columns.print_row(version, obj, now)
    return _PRINTERS.get((kind.group, kind.kind), (GENERIC_COLUMNS, print_generic))


def _include_mode(include_object: str) -> str:
    if include_object == "":
        return "Metadata"
    if include_object not in INCLUDE_OBJECT_VALUES:
        raise ValueError(f"unrecognized includeObject value: {go_quote(include_object)}")
    return include_object


def _row(printer: RowPrinter, obj: JSON, mode: str, now: datetime) -> JSON:
    row = printer(obj, now)
    if mode == "Object":
        row["object"] = obj
    elif mode == "Metadata":
        row["object"] = partial_object_metadata(obj)
    return row


def partial_object_metadata(obj: JSON) -> JSON:
    """``meta.AsPartialObjectMetadata``: the object's whole ObjectMeta under a new kind."""
    metadata = obj.get("metadata")
    return {
        "kind": "PartialObjectMetadata",
        "apiVersion": TABLE_API_VERSION,
        "metadata": metadata if isinstance(metadata, dict) else {},
    }


def _table(resource_version: str, columns: list[Any], rows: list[JSON]) -> JSON:
    return {
        "kind": "Table",
        "apiVersion": TABLE_API_VERSION,
        "metadata": {"resourceVersion": resource_version},
        "columnDefinitions": columns,
        "rows": rows,
    }


def _ranked_clauses(accept: str) -> list[tuple[str, dict[str, str]]]:
    """Parse ``type/subtype;k=v`` clauses, drop ``q=0``, best first (stable among equals)."""
    ranked: list[tuple[float, int, int, tuple[str, dict[str, str]]]] = []
    for clause in accept.split(","):
        media_type, *raw_params = (part.strip() for part in clause.split(";"))
        if not media_type:
            continue
        params: dict[str, str] = {}
        for raw in raw_params:
            key, sep, value = raw.partition("=")
            if sep:
                params[key.strip().lower()] = value.strip().strip('"')
        try:
            quality = float(params.pop("q", "1"))
        except ValueError:
            quality = 1.0
        if not quality > 0:  # q=0 refuses the type; NaN is no preference either
            continue
        main, _, sub = media_type.lower().partition("/")
        ranked.append((-quality, main == "*", sub == "*", (media_type.lower(), params)))
    ranked.sort(key=lambda entry: entry[:3])
    return [entry[3] for entry in ranked]
