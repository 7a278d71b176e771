"""A node of a CRD's ``openAPIV3Schema`` as its validation reads it: leniently, and where it sits.

The readers skip values of the wrong shape (the type check of
``podscale.apiserver.openapi.types`` refuses them before validation runs): ``as_schema`` and
``as_list`` for one value, ``properties_of`` and ``schemas_in`` for a node's properties and a
junctor's schemas, ``is_set`` for a field as Go sees it. ``Level`` is a node's place (root,
array items, object field), which names what a missing ``type`` must not be. Used by
``crd_structural`` and ``crd_junctors`` (the structural rules), ``crd_schema``,
``crd_extensions`` and ``crd_versions``. Pure.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

__all__ = ["JSON", "Level", "as_list", "as_schema", "is_set", "properties_of", "schemas_in"]

JSON = Mapping[str, Any]


class Level(enum.Enum):
    ROOT = "must not be empty at the root"
    ITEM = "must not be empty for specified array items"
    FIELD = "must not be empty for specified object fields"


def as_schema(value: Any) -> JSON | None:
    """``value`` when it is a schema object, else None (absent, null, boolean, list)."""
    return value if isinstance(value, Mapping) else None


def as_list(value: Any) -> list[Any]:
    """``value`` when it is a list, else empty (absent, null or another JSON type)."""
    return value if isinstance(value, list) else []


def properties_of(schema: JSON) -> dict[str, JSON]:
    """The node's ``properties`` that are schema objects, by name; empty when it has none."""
    props = schema.get("properties")
    if not isinstance(props, Mapping):
        return {}
    return {key: value for key, value in props.items() if isinstance(value, Mapping)}


def schemas_in(value: Any) -> list[JSON]:
    """The schema objects of a list (a junctor's ``allOf``/``anyOf``/``oneOf``), else empty."""
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def is_set(schema: JSON, key: str) -> bool:
    """Whether a field is set as Go would see it: not null, false, empty string or empty list."""
    value = schema.get(key)
    return value is not None and value is not False and value != "" and value != []
