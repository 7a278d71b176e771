"""Validation of the configuration kinds: ConfigMap, Secret and ServiceAccount (core/v1).

Follows upstream's ``ValidateConfigMap``/``ValidateSecret``/``ValidateServiceAccount`` and their
update rules: keys are config keys (``[-._a-zA-Z0-9]+``, at most 253 characters, never ``.``,
``..`` or a ``..`` prefix), a ConfigMap key may not sit in both ``data`` and ``binaryData``, the
whole payload stays within 1 MiB, a Secret of a well-known type carries its required keys, and
an ``immutable`` object keeps its data (and stays immutable). A Secret's type never changes.

Objects arrive here after ``podscale.api.core_data.normalize_data_maps``: byte maps hold
canonical base64, so sizes are the decoded byte counts. No message ever carries a secret
value (upstream's ``<secret contents redacted>`` stands in where one would).
Dispatched from ``podscale.api.validation.validate``; metadata rules from ``objectmeta``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final

from podscale.api.core_data import DataError, decode_base64, decoded_size
from podscale.api.field_errors import FieldError, FieldPath, forbidden, invalid, required, too_long
from podscale.api.names import max_len_error, regex_error
from podscale.api.validation.objectmeta import (
    validate_immutable_field,
    validate_object_meta,
    validate_object_meta_update,
)

__all__ = [
    "MAX_SECRET_SIZE",
    "is_config_map_key",
    "validate_config_map",
    "validate_config_map_update",
    "validate_secret",
    "validate_secret_update",
    "validate_service_account",
    "validate_service_account_update",
]

JSON = Mapping[str, Any]

MAX_SECRET_SIZE: Final = 1024 * 1024  # also the ConfigMap limit
_KEY_RE: Final = re.compile(r"[-._a-zA-Z0-9]+")
_KEY_MAX: Final = 253
_IMMUTABLE: Final = "field is immutable when `immutable` is set"
_REDACTED: Final = "<secret contents redacted>"
# Well-known Secret types and the data keys they require.
_TLS_KEYS: Final = ("tls.crt", "tls.key")
_SA_NAME_ANNOTATION: Final = "kubernetes.io/service-account.name"


def is_config_map_key(key: str) -> list[str]:
    """Upstream ``IsConfigMapKey``: why ``key`` cannot name a ConfigMap or Secret entry."""
    problems: list[str] = []
    if len(key) > _KEY_MAX:
        problems.append(max_len_error(_KEY_MAX))
    if not _KEY_RE.fullmatch(key):
        problems.append(
            regex_error(
                "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
                "[-._a-zA-Z0-9]+",
                "key.name",
                "KEY_NAME",
                "key-name",
            )
        )
    if key == ".":
        problems.append("must not be '.'")
    elif key == "..":
        problems.append("must not be '..'")
    elif key.startswith(".."):
        problems.append("must not start with '..'")
    return problems


def _map(obj: JSON, name: str) -> Mapping[str, Any]:
    value = obj.get(name)
    return value if isinstance(value, dict) else {}


def _metadata(obj: JSON) -> JSON:
    return obj.get("metadata") or {}


def _key_errors(values: Mapping[str, Any], path: FieldPath) -> list[FieldError]:
    return [
        invalid(path.key(key), key, problem)
        for key in values
        for problem in is_config_map_key(str(key))
    ]


def validate_config_map(obj: JSON) -> list[FieldError]:
    errors = validate_object_meta(_metadata(obj), namespaced=True)
    data, binary = _map(obj, "data"), _map(obj, "binaryData")
    errors.extend(_key_errors(data, FieldPath("data")))
    errors.extend(
        invalid(FieldPath("data").key(key), key, "duplicate of key present in binaryData")
        for key in data
        if key in binary
    )
    errors.extend(_key_errors(binary, FieldPath("binaryData")))
    total = sum(len(str(v).encode()) for v in data.values() if v is not None)
    total += sum(decoded_size(v) for v in binary.values())
    if total > MAX_SECRET_SIZE:
        # Upstream reports the whole object, at the empty path.
        errors.append(too_long(FieldPath(""), "", MAX_SECRET_SIZE))
    return errors


def _immutable_errors(new: JSON, old: JSON, fields: tuple[str, ...]) -> list[FieldError]:
    if old.get("immutable") is not True:
        return []
    errors: list[FieldError] = []
    if new.get("immutable") is not True:
        errors.append(forbidden(FieldPath("immutable"), _IMMUTABLE))
    for name in fields:
        # Go's DeepEqual: a nil map differs from an empty one, but JSON null/absent are both nil.
        if (new.get(name) or None) != (old.get(name) or None):
            errors.append(forbidden(FieldPath(name), _IMMUTABLE))
    return errors


def validate_config_map_update(new: JSON, old: JSON) -> list[FieldError]:
    errors = validate_object_meta_update(_metadata(new), _metadata(old))
    errors.extend(_immutable_errors(new, old, ("data", "binaryData")))
    errors.extend(validate_config_map(new))
    return errors


def _docker_json_errors(data: Mapping[str, Any], key: str) -> list[FieldError]:
    path = FieldPath("data").key(key)
    if key not in data:
        return [required(path)]
    try:
        decoded = json.loads(decode_base64(str(data[key] or "")) or b"null")
    except (DataError, ValueError):
        return [invalid(path, _REDACTED, "invalid character in the JSON document")]
    if not isinstance(decoded, dict):
        return [invalid(path, _REDACTED, "the JSON document is not an object")]
    return []


def _type_errors(obj: JSON, data: Mapping[str, Any]) -> list[FieldError]:
    secret_type = str(obj.get("type") or "")
    path = FieldPath("data")
    if secret_type == "kubernetes.io/service-account-token":
        annotations = _metadata(obj).get("annotations") or {}
        if not annotations.get(_SA_NAME_ANNOTATION):
            return [required(FieldPath("metadata", "annotations").key(_SA_NAME_ANNOTATION))]
    elif secret_type == "kubernetes.io/dockercfg":
        return _docker_json_errors(data, ".dockercfg")
    elif secret_type == "kubernetes.io/dockerconfigjson":
        return _docker_json_errors(data, ".dockerconfigjson")
    elif secret_type == "kubernetes.io/basic-auth":
        # Either key may be empty, but one of them must be there.
        if "username" not in data and "password" not in data:
            return [required(path.key("username")), required(path.key("password"))]
    elif secret_type == "kubernetes.io/ssh-auth":
        if not data.get("ssh-privatekey"):
            return [required(path.key("ssh-privatekey"))]
    elif secret_type == "kubernetes.io/tls":
        return [required(path.key(key)) for key in _TLS_KEYS if key not in data]
    return []


def validate_secret(obj: JSON) -> list[FieldError]:
    errors = validate_object_meta(_metadata(obj), namespaced=True)
    data = _map(obj, "data")
    errors.extend(_key_errors(data, FieldPath("data")))
    if sum(decoded_size(v) for v in data.values()) > MAX_SECRET_SIZE:
        errors.append(too_long(FieldPath("data"), "", MAX_SECRET_SIZE))
    errors.extend(_type_errors(obj, data))
    return errors


def validate_secret_update(new: JSON, old: JSON) -> list[FieldError]:
    errors = validate_object_meta_update(_metadata(new), _metadata(old))
    errors.extend(validate_immutable_field(new.get("type"), old.get("type"), FieldPath("type")))
    errors.extend(_immutable_errors(new, old, ("data",)))
    errors.extend(validate_secret(new))
    return errors


def validate_service_account(obj: JSON) -> list[FieldError]:
    return validate_object_meta(_metadata(obj), namespaced=True)


def validate_service_account_update(new: JSON, old: JSON) -> list[FieldError]:
    errors = validate_object_meta_update(_metadata(new), _metadata(old))
    errors.extend(validate_service_account(new))
    return errors
