"""The write pipeline shared by create, update, patch and the subresources.

Order as kube-apiserver: decode -> type and namespace checks -> unknown-field check
(``fieldValidation``) -> strategy preparation (``strategy``: status is not writable through the
main resource) -> defaulting (``podscale.api.apply_defaults``)
-> validation (``podscale.api.validate``; a 422 built by ``invalid_status``). The handlers in
``operations`` and ``operations.subresources`` call these steps; nothing here touches the store.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Final

from starlette.requests import Request

import podscale.apiserver.extensions as extensions
from podscale.api import apply_defaults, invalid_status, validate
from podscale.api.core_data import DataError, normalize_data_maps
from podscale.api.defaults import apply_defaults_in_place
from podscale.api.kinds import KindInfo
from podscale.apiserver.customresources.admission import admit_custom
from podscale.apiserver.customresources.admission import unknown_fields as custom_unknown_fields
from podscale.apiserver.customresources.definitions import CustomKind
from podscale.apiserver.errors import ApiError, bad_request, conflict, status_body
from podscale.apiserver.openapi.types import type_mismatches

__all__ = [
    "WriteOptions",
    "check_resource_version",
    "check_type",
    "check_unknown_fields",
    "default_and_validate",
    "parse_write_options",
    "write_options",
]

JSON = dict[str, Any]

_FIELD_VALIDATION: Final = ("Ignore", "Warn", "Strict")


@dataclass(frozen=True)
class WriteOptions:
    """``dryRun=All`` and ``fieldValidation`` of one write request; its ``fieldManager`` and
    ``force`` as given (``force`` None when absent) and the client's User-Agent, from which
    ``operations.field_owners`` names the manager the write is recorded under."""

    dry_run: bool
    field_validation: str
    field_manager: str = ""
    user_agent: str = ""
    force: str | None = None


def write_options(request: Request) -> WriteOptions:
    query = request.query_params
    options = parse_write_options(query.getlist("dryRun"), query.get("fieldValidation"))
    return replace(
        options,
        field_manager=query.get("fieldManager", ""),
        user_agent=request.headers.get("user-agent", ""),
        force=query.get("force"),
    )


def parse_write_options(dry_run: list[str], field_validation: str | None) -> WriteOptions:
    """``WriteOptions`` from the ``dryRun`` values and ``fieldValidation`` (None: Warn)."""
    for value in dry_run:
        if value != "All":
            raise ApiError(
                status_body(400, f'dryRun: Unsupported value: "{value}": supported values: "All"')
            )
    mode = field_validation or "Warn"
    if mode not in _FIELD_VALIDATION:
        raise bad_request(
            f'fieldValidation: Unsupported value: "{mode}": '
            'supported values: "Ignore", "Strict", "Warn"'
        )
    return WriteOptions(bool(dry_run), mode)


def check_type(obj: JSON, info: KindInfo) -> None:
    """Fill an absent apiVersion/kind from the URL; 400 when they name something else."""
    api_version = obj.get("apiVersion") or ""
    kind = obj.get("kind") or ""
    if not isinstance(api_version, str) or not isinstance(kind, str):
        raise bad_request(
            "couldn't get version/kind; json parse error: apiVersion and kind must be strings"
        )
    if api_version and api_version != info.api_version:
        raise bad_request(
            f"the API version in the data ({api_version}) does not match the expected API "
            f"version ({info.api_version})"
        )
    if kind and kind != info.kind:
        raise bad_request(
            f"the object provided is unrecognized (must be of type {info.kind}): "
            f"the kind in the data ({kind}) does not match the expected kind ({info.kind})"
        )
    obj["apiVersion"] = info.api_version
    obj["kind"] = info.kind
    metadata = obj.get("metadata")
    if metadata is None:
        obj["metadata"] = {}
    elif not isinstance(metadata, dict):
        raise bad_request(
            "couldn't get version/kind; json parse error: json: cannot unmarshal into Go struct "
            f"field {info.kind}.metadata of type v1.ObjectMeta"
        )


def check_unknown_fields(
    obj: JSON, options: WriteOptions, info: KindInfo | None = None
) -> list[str]:
    """Warning texts for unknown fields (Warn), a 400 for them (Strict), nothing (Ignore).
    A custom kind's unknown fields are those its schema prunes."""
    if options.field_validation == "Ignore":
        return []
    if isinstance(info, CustomKind):
        unknown = custom_unknown_fields(obj, info)
    else:
        unknown = extensions.unknown_fields(str(obj["apiVersion"]), str(obj["kind"]), obj)
    texts = [f"unknown field {json.dumps(path)}" for path in unknown]
    if texts and options.field_validation == "Strict":
        raise bad_request("strict decoding error: " + ", ".join(texts))
    return texts


def check_resource_version(obj: JSON, old: JSON, resource: str, name: str) -> None:
    """A stale resourceVersion is a 409 before anything else is looked at (as upstream's
    GuaranteedUpdate compares it before calling the strategy)."""
    requested = obj["metadata"].get("resourceVersion") or ""
    current = (old.get("metadata") or {}).get("resourceVersion") or ""
    if requested and requested != current:
        raise conflict(
            resource,
            name,
            f'Operation cannot be fulfilled on {resource} "{name}": the object has been '
            "modified; please apply your changes to the latest version and try again",
        )


def default_and_validate(
    obj: JSON,
    info: KindInfo,
    *,
    old: JSON | None = None,
    subresource: str | None = None,
    feature_gates: frozenset[str],
    owned: bool = False,
) -> JSON:
    """The defaulted object, or a 422 ``Invalid`` Status with every field error.

    Values of the wrong JSON type are a 400 first, worded like upstream's decoder error,
    so they are never stored. Custom kinds go through their own pipeline (``customresources``).
    ``owned``: ``obj`` is a ``copy_json`` result no one else holds (nor any part of it),
    which is then defaulted in place instead of as a copy (the same object either way).
    """
    if isinstance(info, CustomKind):
        return admit_custom(obj, info, old=old, subresource=subresource)
    mismatches = type_mismatches(str(obj.get("apiVersion", "")), info.kind, obj, old)
    if mismatches:
        raise bad_request(
            f'{info.kind} in version "{info.version}" cannot be handled as a {info.kind}: '
            + mismatches[0].message()
        )
    try:
        # Byte maps (Secret data, ConfigMap binaryData) decode as upstream's decoder does;
        # a Secret's stringData is merged into data here, so it is never stored.
        obj = normalize_data_maps(obj)
    except DataError as err:
        raise bad_request(
            f'{info.kind} in version "{info.version}" cannot be handled as a {info.kind}: {err}'
        ) from None
    try:
        defaulted = apply_defaults_in_place(obj) if owned else apply_defaults(obj)
        errors = validate(defaulted, old=old, subresource=subresource, feature_gates=feature_gates)
    except (TypeError, AttributeError, ValueError, KeyError):
        # A body of the right kind but with fields of the wrong JSON types: upstream's decoder
        # would have refused it before validation.
        raise bad_request(
            f"the object provided is unrecognized (must be of type {info.kind}): "
            "a field has the wrong type"
        ) from None
    if errors:
        name = str((defaulted.get("metadata") or {}).get("name", ""))
        raise ApiError(invalid_status(info.kind, info.group, name, errors))
    return defaulted
