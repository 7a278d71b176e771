"""Who writes, and what an apply request says: the request-level rules of server-side apply.

Pure functions over plain values, used by the write handlers (``operations``, ``patch``):

- ``manager_name``: the field manager a write is recorded under (``?fieldManager=`` or the
  User-Agent's product token, as kube-apiserver's handlers derive it);
- ``validate_field_manager`` / ``field_manager_errors`` / ``options_invalid``: the checks
  apimachinery's ``ValidatePatchOptions`` (and Create/UpdateOptions) run, and their 422;
- ``parse_apply_request``: an ``application/apply-patch+yaml`` body (YAML or JSON) and its
  query, with upstream's 400s in upstream's order (YAML, apiVersion, managedFields, kind, then
  name and namespace against the URL);
- ``conflict_status``: the 409 ``Status`` an apply with conflicts answers, messages and
  ``FieldManagerConflict`` causes as the apiserver's managedfields package builds them.

The merge itself (which fields conflict) is ``fieldmanager.merge``'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import orjson
import yaml

from podscale.api.field_errors import FieldError, forbidden, invalid, invalid_status, required
from podscale.api.field_errors import too_long as too_long_error
from podscale.apiserver.errors import ApiError, bad_request, status_body

__all__ = [
    "APPLY_PATCH_YAML",
    "FIELD_MANAGER_MAX_LENGTH",
    "ApplyRequest",
    "conflict_status",
    "field_manager_errors",
    "manager_name",
    "options_invalid",
    "parse_apply_request",
    "patch_options_errors",
    "validate_field_manager",
]

APPLY_PATCH_YAML: Final = "application/apply-patch+yaml"
# apimachinery's validation.FieldManagerMaxLength, in bytes.
FIELD_MANAGER_MAX_LENGTH: Final = 128
# Go's strconv.ParseBool, which decodes ``?force=``.
_TRUE: Final = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_FALSE: Final = frozenset({"0", "f", "F", "FALSE", "false", "False"})
# How encoding/json names a JSON value's type when it cannot go into a Go map.
_GO_JSON_TYPES: Final = {list: "array", str: "string", bool: "bool", int: "number", float: "number"}


@dataclass(frozen=True)
class ApplyRequest:
    """A decoded apply: the applied configuration, its manager and whether it forces."""

    obj: dict[str, Any]
    field_manager: str
    force: bool


def manager_name(field_manager: str | None, user_agent: str | None) -> str:
    """``field_manager`` when given; else the User-Agent up to its first ``/`` with
    unprintable characters dropped and cut to 128 bytes (``kubectl/v1.33.0 (linux/amd64)``
    -> ``kubectl``), as upstream's ``managerOrUserAgent``. No User-Agent: ``""``."""
    if field_manager:
        return field_manager
    prefix = (user_agent or "").split("/", 1)[0]
    kept: list[str] = []
    size = 0
    for char in prefix:
        if not char.isprintable():
            continue
        width = len(char.encode())
        if size + width > FIELD_MANAGER_MAX_LENGTH:
            break
        kept.append(char)
        size += width
    return "".join(kept)


def field_manager_errors(name: str, *, apply: bool) -> list[FieldError]:
    """apimachinery's fieldManager checks: required for apply, <= 128 bytes, printable."""
    errors: list[FieldError] = []
    if apply and not name:
        errors.append(required("fieldManager", "is required for apply patch"))
    if len(name.encode()) > FIELD_MANAGER_MAX_LENGTH:
        errors.append(too_long_error("fieldManager", name, FIELD_MANAGER_MAX_LENGTH))
    if name.isprintable():
        return errors  # no rune to report (the check of every write's manager, in C)
    position = 0
    for char in name:
        if not char.isprintable():
            # Go's %#U of an unprintable rune, at its byte offset.
            detail = f"invalid character U+{ord(char):04X} (at position {position})"
            errors.append(invalid("fieldManager", name, detail))
        position += len(char.encode())
    return errors


def validate_field_manager(name: str, *, apply: bool) -> str | None:
    """The field errors of ``name`` as upstream's aggregate prints them, or None when valid."""
    texts = list(dict.fromkeys(str(error) for error in field_manager_errors(name, apply=apply)))
    if not texts:
        return None
    return texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"


def patch_options_errors(query: Mapping[str, str], *, apply: bool) -> list[FieldError]:
    """``ValidatePatchOptions``'s fieldManager and force checks for a PATCH's query."""
    errors: list[FieldError] = []
    if not apply and "force" in query:
        errors.append(forbidden("force", "may not be specified for non-apply patch"))
    errors.extend(field_manager_errors(query.get("fieldManager", ""), apply=apply))
    return errors


def options_invalid(options_kind: str, errors: Sequence[FieldError]) -> ApiError:
    """The 422 for invalid request options: ``PatchOptions.meta.k8s.io "" is invalid: ...``."""
    status = invalid_status(options_kind, "meta.k8s.io", "", errors)
    # The options have no name: Go's omitempty leaves it out of the details.
    status["details"].pop("name", None)
    return ApiError(status)


def _force(query: Mapping[str, str]) -> bool:
    raw = query.get("force")
    if raw is None or raw in _FALSE:
        return False
    if raw in _TRUE:
        return True
    raise bad_request(f'strconv.ParseBool: parsing "{raw}": invalid syntax')


class _Loader(yaml.SafeLoader):
    """YAML as sigs.k8s.io/yaml reads it: timestamps stay strings (they become JSON strings)."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _stringify_keys(value: Any) -> Any:
    # YAML allows non-string keys (``80: http``); converted to JSON they are strings.
    if isinstance(value, dict):
        return {
            str(k).lower() if isinstance(k, bool) else str(k): _stringify_keys(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_stringify_keys(v) for v in value]
    return value


def _decode_yaml(body: bytes) -> dict[str, Any]:
    try:
        # kubectl sends JSON (a YAML subset); read it directly, fall back to YAML.
        decoded: Any = orjson.loads(body)
    except orjson.JSONDecodeError:
        try:
            decoded = _stringify_keys(yaml.load(body, Loader=_Loader))
        except yaml.YAMLError as err:
            mark = getattr(err, "problem_mark", None)
            problem = getattr(err, "problem", None) or str(err)
            where = f"line {mark.line + 1}: " if mark is not None else ""
            raise bad_request(
                f"error decoding YAML: error converting YAML to JSON: yaml: {where}{problem}"
            ) from None
    if decoded is None:
        return {}
    if not isinstance(decoded, dict):
        go_type = _GO_JSON_TYPES.get(type(decoded), "value")
        raise bad_request(
            "error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot "
            f"unmarshal {go_type} into Go value of type map[string]interface {{}}"
        )
    return decoded


def parse_apply_request(
    content_type: str,
    body: bytes,
    query: Mapping[str, str],
    *,
    api_version: str,
    kind: str,
    name: str,
    namespace: str = "",
) -> ApplyRequest:
    """The apply a PATCH carries to ``api_version``/``kind`` ``namespace/name`` (the URL's).

    Raises ``ApiError``: 415 for a content type other than apply-patch+yaml (kubectl up to
    1.33 sends only that one), 422 for invalid options, 400 for a body that is not a YAML
    object or names another version, kind, name or namespace, or carries managedFields.
    """
    if content_type.split(";", 1)[0].strip() != APPLY_PATCH_YAML:
        raise ApiError(
            status_body(
                415,
                f"the body of the request was in an unknown format - accepted "
                f"media types include: {APPLY_PATCH_YAML}",
                "UnsupportedMediaType",
            )
        )
    errors = patch_options_errors(query, apply=True)
    if errors:
        raise options_invalid("PatchOptions", errors)
    force = _force(query)
    obj = _decode_yaml(body)
    applied_version = obj.get("apiVersion")
    if applied_version != api_version:
        shown = applied_version if isinstance(applied_version, str) else ""
        raise bad_request(
            "Incorrect version specified in apply patch. "
            f"Specified patch version: {shown}, expected: {api_version}"
        )
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    if meta.get("managedFields") is not None:
        raise bad_request("metadata.managedFields must be nil")
    applied_kind = obj.get("kind")
    if applied_kind != kind:
        shown_kind = applied_kind if isinstance(applied_kind, str) else ""
        gvk = f"{api_version}, Kind={shown_kind}"
        who = f"{meta.get('namespace') or ''}/{meta.get('name') or ''}"
        # Upstream's type converter has no type for the applied kind; podscale answers the
        # same text as a 400 (upstream's is a 500 for this bad input).
        raise bad_request(
            f"failed to create typed patch object ({gvk}; {who}): no corresponding type for {gvk}"
        )
    obj_name = meta.get("name") or ""
    if obj_name != name:
        raise bad_request(
            f"the name of the object ({obj_name}) does not match the name on the URL ({name})"
        )
    obj_namespace = meta.get("namespace") or ""
    if namespace and obj_namespace and obj_namespace != namespace:
        raise bad_request(
            f"the namespace of the object ({obj_namespace}) does not match the namespace on "
            f"the URL ({namespace})"
        )
    return ApplyRequest(obj=obj, field_manager=query["fieldManager"], force=force)


def _manager_text(manager: str, api_version: str, subresource: str) -> str:
    """upstream's printManager: an Apply manager (no apiVersion in its identity) by name; an
    Update manager "using" the version it wrote; a subresource named after the manager."""
    text = orjson.dumps(manager).decode()
    if subresource:
        text += f" with subresource {orjson.dumps(subresource).decode()}"
    if api_version:
        text += f" using {api_version}"
    return text


def conflict_status(conflicts: Sequence[tuple[str, ...]]) -> dict[str, Any]:
    """The 409 ``Status`` for an apply that conflicts.

    Each conflict is ``(manager, api_version, path)`` or ``(manager, api_version, path,
    subresource)``: ``api_version`` is "" for an Apply manager (upstream's manager identity
    drops it for appliers) and the version an Update manager wrote otherwise; ``path`` is in
    upstream's form (``.spec.replicas``). One conflict reads ``Apply failed with 1 conflict:
    conflict with "m" using apps/v1: .spec.replicas``; several are grouped by manager, managers
    sorted, paths in the given order. Causes keep the given order.
    """
    rows = [(c[0], c[1], c[2], c[3] if len(c) > 3 else "") for c in conflicts]
    texts = [_manager_text(manager, version, sub) for manager, version, _, sub in rows]
    causes = [
        {"reason": "FieldManagerConflict", "message": f"conflict with {text}", "field": path}
        for text, (_, _, path, _) in zip(texts, rows, strict=True)
    ]
    if len(rows) == 1:
        message = f"Apply failed with 1 conflict: conflict with {texts[0]}: {rows[0][2]}"
    else:
        # Grouped by manager identity; upstream sorts the identities' JSON encodings, whose
        # fields run manager, operation, apiVersion, ..., subresource.
        grouped: dict[tuple[str, str, str, str], list[str]] = {}
        printed: dict[tuple[str, str, str, str], str] = {}
        for text, (manager, version, path, sub) in zip(texts, rows, strict=True):
            identity = (manager, "Update" if version else "Apply", version, sub)
            grouped.setdefault(identity, []).append(path)
            printed[identity] = text
        lines: list[str] = []
        for identity in sorted(grouped):
            lines.append(f"conflicts with {printed[identity]}:")
            lines.extend(f"- {path}" for path in grouped[identity])
        message = f"Apply failed with {len(rows)} conflicts: " + "\n".join(lines)
    return status_body(409, message, "Conflict", {"causes": causes})
