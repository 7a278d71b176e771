"""Invariants over generated structural schemas and values that satisfy them.

A value drawn for a schema validates clean; pruning never drops a field the schema
specifies and is idempotent; defaulting is idempotent and keeps values valid.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.api.schema import apply_defaults, prune, validate

NAMES = st.sampled_from(["alpha", "beta", "gamma", "delta", "eps", "zeta"])

_leaves: st.SearchStrategy[dict[str, Any]] = st.one_of(
    st.builds(
        lambda lo, span: {"type": "integer", "minimum": lo, "maximum": lo + span},
        st.integers(-50, 50),
        st.integers(0, 100),
    ),
    st.just({"type": "number"}),
    st.just({"type": "boolean"}),
    st.builds(lambda n: {"type": "string", "maxLength": n}, st.integers(1, 12)),
    st.builds(
        lambda e: {"type": "string", "enum": e},
        st.lists(st.text(min_size=1, max_size=4), min_size=1, max_size=3, unique=True),
    ),
    st.just({"type": "string", "format": "uuid"}),
    st.just({"x-kubernetes-int-or-string": True}),
)


def _object(props: dict[str, dict[str, Any]], required: list[str], default: bool) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = required
    # A default must validate (the API server rejects the CRD otherwise), so only
    # objects without required fields get ``default: {}``.
    if default and not required:
        schema["default"] = {}
    return schema


def _objects(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(NAMES, children, min_size=1, max_size=4).flatmap(
        lambda props: st.builds(
            _object,
            st.just(props),
            st.lists(st.sampled_from(sorted(props)), unique=True, max_size=len(props)),
            st.booleans(),
        )
    )


schemas: st.SearchStrategy[dict[str, Any]] = st.recursive(
    _leaves,
    lambda children: st.one_of(
        _objects(children),
        st.builds(lambda s: {"type": "array", "items": s}, children),
        st.builds(lambda s: {"type": "object", "additionalProperties": s}, children),
        st.builds(
            lambda s: {**s, "x-kubernetes-preserve-unknown-fields": True},
            _objects(children),
        ),
    ),
    max_leaves=6,
)


@st.composite
def value_for(draw: st.DrawFn, schema: dict[str, Any]) -> Any:
    """A value that satisfies ``schema`` (one drawn from ``schemas``)."""
    if schema.get("x-kubernetes-int-or-string"):
        return draw(st.one_of(st.integers(-5, 5), st.text(max_size=3)))
    kind = schema.get("type")
    if kind == "integer":
        return draw(st.integers(schema["minimum"], schema["maximum"]))
    if kind == "number":
        return draw(st.floats(allow_nan=False, allow_infinity=False, width=32))
    if kind == "boolean":
        return draw(st.booleans())
    if kind == "string":
        if "enum" in schema:
            return draw(st.sampled_from(schema["enum"]))
        if schema.get("format") == "uuid":
            return str(draw(st.uuids()))
        return draw(st.text(max_size=schema["maxLength"]))
    if kind == "array":
        return draw(st.lists(value_for(schema["items"]), max_size=3))
    if "additionalProperties" in schema:
        return draw(st.dictionaries(NAMES, value_for(schema["additionalProperties"]), max_size=3))
    out: dict[str, Any] = {}
    for name, sub in schema["properties"].items():
        if name in schema.get("required", []) or draw(st.booleans()):
            out[name] = draw(value_for(sub))
    return out


def _add_unknown(value: Any, schema: dict[str, Any]) -> Any:
    """``value`` with an unknown key in every object whose schema would prune it."""
    if isinstance(value, list):
        return [_add_unknown(v, schema["items"]) for v in value]
    if not isinstance(value, dict):
        return value
    if "additionalProperties" in schema:
        extra = schema["additionalProperties"]
        return {k: _add_unknown(v, extra) for k, v in value.items()}
    out = {k: _add_unknown(v, schema["properties"][k]) for k, v in value.items()}
    if not schema.get("x-kubernetes-preserve-unknown-fields"):
        out["zz_unknown"] = {"n": 1}
    return out


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_generated_values_validate_clean(data: st.DataObject) -> None:
    schema = data.draw(schemas)
    value = data.draw(value_for(schema))
    assert validate(value, schema) == []


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_pruning_keeps_every_specified_field_and_is_idempotent(data: st.DataObject) -> None:
    schema = data.draw(schemas)
    value = data.draw(value_for(schema))
    conforming = copy.deepcopy(value)
    assert prune(conforming, schema, is_resource_root=False) == []
    assert conforming == value
    noisy = _add_unknown(value, schema)
    prune(noisy, schema, is_resource_root=False)
    once = copy.deepcopy(noisy)
    assert prune(noisy, schema, is_resource_root=False) == []
    assert noisy == once
    # Only unknown keys went: the pruned value still validates and carries every
    # specified field of the original.
    assert validate(noisy, schema) == []
    assert _specified_subset(value, noisy)


def _specified_subset(original: Any, pruned: Any) -> bool:
    if isinstance(original, dict):
        return isinstance(pruned, dict) and all(
            k in pruned and _specified_subset(v, pruned[k]) for k, v in original.items()
        )
    if isinstance(original, list):
        return (
            isinstance(pruned, list)
            and len(original) == len(pruned)
            and all(map(_specified_subset, original, pruned))
        )
    return bool(original == pruned)


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_defaulting_is_idempotent_and_keeps_values_valid(data: st.DataObject) -> None:
    schema = data.draw(schemas)
    value = data.draw(value_for(schema))
    apply_defaults(value, schema)
    once = copy.deepcopy(value)
    apply_defaults(value, schema)
    assert value == once
    assert validate(value, schema) == []
