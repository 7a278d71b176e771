"""Typed reads of a decoded YAML document that collect errors instead of raising.

The scenario parsers (``podscale.scenario.loader`` and ``podscale.scenario.workloads``) read
every field through a ``FieldReader`` so one pass reports every problem, each with its
field path, in upstream's ``field.Error`` wording (``podscale.api.field_errors``). Fields
that the schema does not declare are collected separately and reported like upstream's
strict decoding (``unknown field "spec.foo"``).

Each getter returns the value or None (missing, wrong type, or invalid: the error is
already recorded), so callers only check for None.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from podscale.api.durations import DurationError, parse_go_duration
from podscale.api.field_errors import ErrorType, FieldError, FieldPath, invalid, required
from podscale.api.quantity import Quantity, QuantityError, parse_quantity

__all__ = ["FieldReader"]


@dataclass
class FieldReader:
    """Collects ``errors`` and ``unknown_fields`` while reading a document."""

    errors: list[FieldError] = field(default_factory=list)
    unknown_fields: list[str] = field(default_factory=list)

    def type_error(self, path: FieldPath, value: Any, expected: str) -> None:
        self.errors.append(
            FieldError(ErrorType.TYPE_INVALID, str(path), value, f"must be of type {expected}")
        )

    def mapping(self, value: Any, path: FieldPath, allowed: Iterable[str]) -> dict[str, Any] | None:
        """``value`` as an object; undeclared keys go to ``unknown_fields``."""
        if not isinstance(value, dict):
            self.type_error(path, value, "object")
            return None
        known = set(allowed)
        for key in value:
            if key not in known:
                self.unknown_fields.append(str(path.child(str(key))))
        return value

    def child_mapping(
        self, obj: dict[str, Any], key: str, path: FieldPath, allowed: Iterable[str]
    ) -> dict[str, Any] | None:
        """An optional nested object (None when absent, without an error)."""
        if obj.get(key) is None:
            return None
        return self.mapping(obj[key], path.child(key), allowed)

    def _get(self, obj: dict[str, Any], key: str, path: FieldPath, need: bool) -> Any:
        value = obj.get(key)
        if value is None and need:
            self.errors.append(required(path.child(key)))
        return value

    def string(
        self, obj: dict[str, Any], key: str, path: FieldPath, *, need: bool = False
    ) -> str | None:
        value = self._get(obj, key, path, need)
        if value is None:
            return None
        if not isinstance(value, str):
            self.type_error(path.child(key), value, "string")
            return None
        if need and not value:
            self.errors.append(required(path.child(key)))
            return None
        return value

    def boolean(self, obj: dict[str, Any], key: str, path: FieldPath) -> bool | None:
        value = obj.get(key)
        if value is None:
            return None
        if not isinstance(value, bool):
            self.type_error(path.child(key), value, "boolean")
            return None
        return value

    def integer(
        self, obj: dict[str, Any], key: str, path: FieldPath, *, need: bool = False, minimum: int
    ) -> int | None:
        value = self._get(obj, key, path, need)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            self.type_error(path.child(key), value, "integer")
            return None
        if value < minimum:
            detail = f"must be greater than or equal to {minimum}"
            self.errors.append(invalid(path.child(key), value, detail))
            return None
        return value

    def number(
        self,
        obj: dict[str, Any],
        key: str,
        path: FieldPath,
        *,
        need: bool = False,
        positive: bool = False,
    ) -> float | None:
        """A finite number, >= 0 (> 0 when ``positive``)."""
        value = self._get(obj, key, path, need)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.type_error(path.child(key), value, "number")
            return None
        if not math.isfinite(value):
            self.errors.append(invalid(path.child(key), str(value), "must be a finite number"))
            return None
        if positive and value <= 0:
            self.errors.append(invalid(path.child(key), value, "must be greater than 0"))
            return None
        if value < 0:
            detail = "must be greater than or equal to 0"
            self.errors.append(invalid(path.child(key), value, detail))
            return None
        return float(value)

    def duration(
        self,
        obj: dict[str, Any],
        key: str,
        path: FieldPath,
        *,
        need: bool = False,
        positive: bool = False,
    ) -> timedelta | None:
        """A Go duration string, >= 0 (> 0 when ``positive``)."""
        value = self._get(obj, key, path, need)
        if value is None:
            return None
        if not isinstance(value, str):
            self.type_error(path.child(key), value, "string")
            return None
        try:
            parsed = parse_go_duration(value)
        except DurationError as err:
            self.errors.append(invalid(path.child(key), value, str(err)))
            return None
        if positive and parsed <= timedelta(0):
            self.errors.append(invalid(path.child(key), value, "must be greater than 0"))
            return None
        if parsed < timedelta(0):
            detail = "must be greater than or equal to 0"
            self.errors.append(invalid(path.child(key), value, detail))
            return None
        return parsed

    def quantity(
        self, obj: dict[str, Any], key: str, path: FieldPath, *, positive: bool = False
    ) -> Quantity | None:
        """A resource quantity (string or bare number), >= 0 (> 0 when ``positive``)."""
        value = obj.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            self.type_error(path.child(key), value, "string")
            return None
        try:
            parsed = parse_quantity(value)
        except QuantityError as err:
            self.errors.append(invalid(path.child(key), value, str(err)))
            return None
        if positive and parsed.sign() <= 0:
            self.errors.append(invalid(path.child(key), value, "must be greater than 0"))
            return None
        if parsed.sign() < 0:
            detail = "must be greater than or equal to 0"
            self.errors.append(invalid(path.child(key), value, detail))
            return None
        return parsed

    def sequence(
        self, obj: dict[str, Any], key: str, path: FieldPath, *, need: bool = False
    ) -> list[Any]:
        """A list (empty when absent; a required one must not be empty)."""
        value = self._get(obj, key, path, need)
        if value is None:
            return []
        if not isinstance(value, list):
            self.type_error(path.child(key), value, "array")
            return []
        if need and not value:
            self.errors.append(required(path.child(key)))
        return value
