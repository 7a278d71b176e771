"""Validate a custom resource (or any JSON value) against a CRD's structural schema.

``validate(value, schema, path)`` returns what kube-apiserver's custom resource strategy
reports from the schema, in its order:

1. kube-openapi's schema validation, converted to field errors the way
   apiextensions-apiserver's ``kubeOpenAPIResultToFieldErrors`` does (this module walks
   the value; the per-node checks and their texts live in ``value_checks``);
2. apiVersion/kind/metadata of nested ``x-kubernetes-embedded-resource`` objects
   (``embedded``; the root's metadata is the API server's job, as upstream);
3. uniqueness in ``x-kubernetes-list-type`` set and map lists (``listtype``).

Paths follow upstream: kube-openapi names a property ``spec.replicas``, an item
``spec.ports[1]`` and a map entry ``spec.labels.key``; its messages quote that name and
the field path is ``path`` joined with it. ``allOf``/``anyOf``/``oneOf``/``not`` failures
are reported on ``path`` itself with an empty value, as upstream reports them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from podscale.api.field_errors import FieldError, FieldPath, invalid, required
from podscale.api.schema.embedded import validate_embedded
from podscale.api.schema.formats import supported_format
from podscale.api.schema.gofmt import go_quote
from podscale.api.schema.listtype import validate_list_types
from podscale.api.schema.nodes import (
    Schema,
    additional_schema,
    allows_additional,
    as_schema,
    is_nullable,
    items_schema,
    properties,
    schema_types,
    sub_schemas,
)
from podscale.api.schema.value_checks import (
    check_array,
    check_enum,
    check_format_of,
    check_number,
    check_object_size,
    check_string,
    check_type,
    null_type_error,
)
from podscale.api.schema.values import is_number

__all__ = ["validate", "validate_schema_only"]

# Most nodes have none of these: ``node`` then skips ``combinators`` (which adds nothing).
_COMBINATORS: Final = frozenset({"anyOf", "oneOf", "allOf", "not"})


@dataclass
class _Result:
    """Errors of one sub-validation plus kube-openapi's ``MatchCount``.

    ``anyOf``/``oneOf`` report the errors of the failing branch with the highest match
    count (the number of checks that ran), so the count is kept the way upstream keeps it.
    """

    errors: list[FieldError] = field(default_factory=list)
    matches: int = 0

    def merge(self, other: _Result) -> None:
        self.errors.extend(other.errors)
        self.matches += other.matches


class _Walker:
    def __init__(self, prefix: str) -> None:
        self._prefix = prefix

    def field_of(self, name: str) -> str:
        """Upstream: ``fldPath.Child(strings.TrimPrefix(name, "."))`` unless the name is empty."""
        if not name or name == ".":
            return self._prefix
        rel = name[1:] if name.startswith(".") else name
        return f"{self._prefix}.{rel}" if self._prefix else rel

    def composite(self, detail: str) -> FieldError:
        return invalid(self._prefix, "", detail)

    def node(self, value: Any, schema: Schema, name: str) -> _Result:
        result = _Result()
        types = schema_types(schema)
        fmt = supported_format(schema.get("format"))
        enum = schema.get("enum")
        here = self.field_of(name)
        if value is None:
            # Only the type and enum checks see a null, and a null is no match count.
            if types and "null" not in types and not is_nullable(schema):
                result.errors.append(null_type_error(types, name, here))
            if isinstance(enum, list) and enum:
                result.errors.extend(check_enum(value, enum, here))
            return result
        if types or fmt:
            result.errors.extend(check_type(value, types, fmt, name, here))
            result.matches += 2
        if not _COMBINATORS.isdisjoint(schema):
            result.merge(self.combinators(value, schema, name))
        result.matches += 1
        if isinstance(value, str):
            result.errors.extend(check_string(value, schema, name, here))
            result.matches += 1
            if fmt:
                result.errors.extend(check_format_of(value, schema, name, here))
                result.matches += 1
        if is_number(value):
            result.errors.extend(check_number(value, schema, name, here))
            result.matches += 1
        if isinstance(value, list):
            result.merge(self.array(value, schema, name))
            result.matches += 1
        if isinstance(enum, list) and enum:
            result.errors.extend(check_enum(value, enum, here))
        result.matches += 1
        if isinstance(value, dict):
            result.merge(self.object(value, schema, name))
            result.matches += 1
        result.matches += 1
        return result

    def array(self, value: list[Any], schema: Schema, name: str) -> _Result:
        result = _Result()
        items = items_schema(schema)
        if items is not None:
            for i, item in enumerate(value):
                result.merge(self.node(item, items, f"{name}[{i}]"))
        result.errors.extend(check_array(value, schema, name, self.field_of(name)))
        return result

    def object(self, value: dict[str, Any], schema: Schema, name: str) -> _Result:
        result = _Result()
        sized = check_object_size(value, schema, name, self.field_of(name))
        if sized:
            result.errors.extend(sized)
            return result
        props = properties(schema)
        extra = additional_schema(schema)
        for key, item in value.items():
            if key in props:
                continue
            if not allows_additional(schema):
                detail = f"{name}.{key} in body is a forbidden property"
                result.errors.append(invalid(self.field_of(name), key, detail))
            elif extra is not None:
                result.merge(self.node(item, extra, f"{name}.{key}"))
        for key, item in value.items():
            sub = as_schema(props.get(key))
            if sub is not None:
                result.merge(self.node(item, sub, f"{name}.{key}" if name else key))
        wanted = schema.get("required")
        for key in wanted if isinstance(wanted, list) else ():
            if isinstance(key, str) and key not in value:
                result.errors.append(required(self.field_of(f"{name}.{key}")))
        return result

    def combinators(self, value: Any, schema: Schema, name: str) -> _Result:
        result = _Result()
        any_of = sub_schemas(schema, "anyOf")
        if any_of:
            best: _Result | None = None
            first_success: _Result | None = None
            for branch in any_of:
                outcome = self.node(value, branch, name)
                if not outcome.errors:
                    first_success, best = outcome, None
                    break
                if best is None or outcome.matches > best.matches:
                    best = outcome
            if first_success is None:
                result.errors.append(
                    self.composite(f"{go_quote(name)} must validate at least one schema (anyOf)")
                )
            result.merge(best or first_success or _Result())
        one_of = sub_schemas(schema, "oneOf")
        if one_of:
            best = None
            first_success = None
            valid = 0
            for branch in one_of:
                outcome = self.node(value, branch, name)
                if not outcome.errors:
                    valid += 1
                    best = None
                    first_success = first_success or outcome
                elif valid == 0 and (best is None or outcome.matches > best.matches):
                    best = outcome
            if valid != 1:
                found = "Found none valid" if valid == 0 else f"Found {valid} valid alternatives"
                detail = f"{go_quote(name)} must validate one and only one schema (oneOf). {found}"
                result.errors.append(self.composite(detail))
                if best is not None:
                    result.merge(best)
            elif first_success is not None:
                result.merge(first_success)
        all_of = sub_schemas(schema, "allOf")
        if all_of:
            valid = 0
            for branch in all_of:
                outcome = self.node(value, branch, name)
                valid += not outcome.errors
                result.merge(outcome)
            if valid != len(all_of):
                suffix = ". None validated" if valid == 0 else ""
                result.errors.append(
                    self.composite(
                        f"{go_quote(name)} must validate all the schemas (allOf){suffix}"
                    )
                )
        negated = as_schema(schema.get("not"))
        if negated is not None and not self.node(value, negated, name).errors:
            result.errors.append(
                self.composite(f"{go_quote(name)} must not validate the schema (not)")
            )
        return result


def validate_schema_only(value: Any, schema: Mapping[str, Any], path: str = "") -> list[FieldError]:
    """Step 1 alone: kube-openapi's validation of ``value`` as field errors."""
    return _Walker(path).node(value, schema, "").errors


def validate(value: Any, schema: Mapping[str, Any], path: str = "") -> list[FieldError]:
    """Every schema error of ``value`` (see the module docstring), reported under ``path``."""
    root = FieldPath(path) if path else FieldPath()
    errors = validate_schema_only(value, schema, path)
    errors.extend(validate_embedded(value, schema, root))
    errors.extend(validate_list_types(value, schema, root))
    return errors
