"""Server-side apply: field ownership (``managedFields``) and the structured merge.

``fieldpath`` (paths and their text), ``fieldset`` (``FieldSet`` and ``fieldsV1``), ``schema``
(merge types from OpenAPI), ``walk`` (what the typed walks share), ``typed`` (field sets,
merge, removal over objects), ``compare`` (what a write changed), ``managed`` (entries, their
encoding and order) and ``merge`` (``apply`` and ``update``) are pure; the API server's
handlers call them with the live object, the request and the clock's ``now``. ``types``
finds a kind's schema on a server (built-in OpenAPI, a CRD's structural schema) and
``managers`` the request side (manager names, apply requests, the 409 for conflicts).
"""

from podscale.apiserver.fieldmanager.fieldpath import Path, PathElement, format_path
from podscale.apiserver.fieldmanager.fieldset import FieldSet
from podscale.apiserver.fieldmanager.managed import (
    ManagedEntry,
    decode_managed_fields,
    encode_managed_fields,
)
from podscale.apiserver.fieldmanager.merge import (
    Conflict,
    ConflictError,
    apply,
    merge,
    remove_fields,
    to_field_set,
    update,
)
from podscale.apiserver.fieldmanager.schema import TypeInfo, type_for
from podscale.apiserver.fieldmanager.walk import MergeError

__all__ = [
    "Conflict",
    "ConflictError",
    "FieldSet",
    "ManagedEntry",
    "MergeError",
    "Path",
    "PathElement",
    "TypeInfo",
    "apply",
    "decode_managed_fields",
    "encode_managed_fields",
    "format_path",
    "merge",
    "remove_fields",
    "to_field_set",
    "type_for",
    "update",
]
