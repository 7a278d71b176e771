"""Admit a custom resource through its CRD schema: prune, default, validate.

``admit_custom_object(obj, schema)`` runs kube-apiserver's schema steps for a create or
update body in upstream's order and returns a ``SchemaOutcome``:

1. ``pruning.prune`` drops unknown fields (their paths become ``unknown_fields``, which
   the API server turns into ``unknown field "spec.foo"`` errors or warnings according to
   ``fieldValidation``);
2. ``defaulting.apply_defaults`` drops non-nullable nulls and applies defaults;
3. ``validation.validate`` reports schema, embedded-resource and list-type errors.

The input is never modified; ``object`` is the pruned, defaulted copy to store.
``apply_read_defaults`` is the read path: stored objects get the schema's current defaults
(upstream defaults on every decode from storage), again on a copy. Metadata validation
of the root object and CEL rules are the caller's (``podscale.api.cel``) business.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from podscale.api.field_errors import FieldError
from podscale.api.json_copy import copy_json
from podscale.api.schema.defaulting import apply_defaults
from podscale.api.schema.pruning import prune
from podscale.api.schema.validation import validate

__all__ = ["SchemaOutcome", "admit_custom_object", "apply_read_defaults"]


@dataclass(frozen=True, slots=True)
class SchemaOutcome:
    """What the schema made of a request body."""

    object: dict[str, Any]
    unknown_fields: tuple[str, ...]
    errors: tuple[FieldError, ...]


def admit_custom_object(obj: Mapping[str, Any], schema: Mapping[str, Any]) -> SchemaOutcome:
    """Prune, default and validate a copy of ``obj`` against a CRD version's schema."""
    copy: dict[str, Any] = copy_json(dict(obj))
    unknown = prune(copy, schema, is_resource_root=True)
    apply_defaults(copy, schema)
    errors = validate(copy, schema)
    return SchemaOutcome(object=copy, unknown_fields=tuple(unknown), errors=tuple(errors))


def apply_read_defaults(obj: Mapping[str, Any], schema: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a stored object with the schema's defaults applied, as served on reads."""
    copy: dict[str, Any] = copy_json(dict(obj))
    apply_defaults(copy, schema)
    return copy
