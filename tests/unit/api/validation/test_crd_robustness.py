"""CRD validation never raises, whatever JSON a schema holds: bad input is a field error
(or nothing), never an exception that would surface as a 500."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.api import apply_defaults
from podscale.api.field_errors import FieldError
from podscale.api.validation import validate

_KEYS = st.sampled_from(
    [
        "type",
        "items",
        "properties",
        "additionalProperties",
        "anyOf",
        "allOf",
        "oneOf",
        "not",
        "default",
        "nullable",
        "required",
        "pattern",
        "metadata",
        "x-kubernetes-int-or-string",
        "x-kubernetes-preserve-unknown-fields",
        "x-kubernetes-embedded-resource",
        "x-kubernetes-list-type",
        "x-kubernetes-list-map-keys",
        "x-kubernetes-map-type",
        "x-kubernetes-validations",
        "spec",
    ]
)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from(["object", "array", "string", "integer", "map", "set", "[", "", "x\ny"]),
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_KEYS, inner, max_size=4)),
    max_leaves=25,
)


def _crd(schema: Any, subresources: Any, columns: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "things.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "things", "kind": "Thing"},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": schema},
                    "subresources": subresources,
                    "additionalPrinterColumns": columns,
                }
            ],
        },
    }


@settings(max_examples=150, deadline=None)
@given(schema=_JSON, subresources=_JSON, columns=st.lists(_JSON, max_size=2))
def test_validation_of_any_schema_json_returns_field_errors(
    schema: Any, subresources: Any, columns: list[Any]
) -> None:
    crd = apply_defaults(_crd(schema, subresources, columns))
    for errors in (validate(crd), validate(crd, old=copy.deepcopy(crd))):
        assert all(isinstance(error, FieldError) for error in errors)
        assert all(str(error) for error in errors)
