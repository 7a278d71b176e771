"""Container environment validation: ``env[].name`` and ``envFrom[].prefix``.

``pod_containers`` runs ``validate_env`` on every container (regular and init). Spec:
``pkg/apis/core/validation`` (``ValidateEnv``, ``validateEnvFrom``) with the relaxed name rule
of ``k8s.io/apimachinery/pkg/util/validation.IsRelaxedEnvVarName``, which upstream enforces
since ``RelaxedEnvironmentVariableValidation`` went GA (v1.34): any printable ASCII character
but ``=``. A name with ``=`` cannot be passed to a process at all (``NAME=VALUE`` is the
environment's own syntax), so it must never be stored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from podscale.api.field_errors import FieldError, FieldPath, invalid, required

__all__ = ["is_env_var_name", "validate_env"]

_NAME_MESSAGE: Final = (
    "a valid environment variable name must consist only of printable ASCII characters "
    "other than '='"
)


def is_env_var_name(name: str) -> list[str]:
    """The relaxed rule's messages for a non-empty ``name`` (empty when valid); callers
    report an empty name as required first, as upstream does."""
    if any(not " " <= ch <= "~" or ch == "=" for ch in name):
        return [_NAME_MESSAGE]
    return []


def _items(value: Any) -> Sequence[Mapping[str, Any]]:
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, Mapping)]


def validate_env(container: Mapping[str, Any], path: FieldPath) -> list[FieldError]:
    """``env`` names are required and valid; a non-empty ``envFrom`` prefix is valid."""
    errors: list[FieldError] = []
    for index, var in enumerate(_items(container.get("env"))):
        name_path = path.child("env").index(index).child("name")
        name = var.get("name")
        if not name:
            errors.append(required(name_path))
            continue
        errors.extend(invalid(name_path, name, msg) for msg in is_env_var_name(str(name)))
    for index, source in enumerate(_items(container.get("envFrom"))):
        prefix = source.get("prefix")
        if prefix:
            prefix_path = path.child("envFrom").index(index).child("prefix")
            errors.extend(invalid(prefix_path, prefix, msg) for msg in is_env_var_name(str(prefix)))
    return errors
