"""Typed reads of a decoded YAML or JSON document that collect errors instead of raising.

The parsers of the files and annotations users write read every field through a
``FieldReader`` so one pass reports every problem, each with its field path, in upstream's
``field.Error`` wording (``podscale.api.field_errors``): scenario files
(``podscale.scenario.loader`` and its neighbours) and load specs
(``podscale.runtime.load.spec``). Fields that the schema does not declare are collected
separately and reported like upstream's strict decoding (``unknown field "spec.foo"``).

Each getter returns the value or None (missing, wrong type, or invalid: the error is
already recorded), so callers only check for None. Pure.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from types import UnionType
from typing import Any, cast

from podscale.api.durations import DurationError, parse_go_duration
from podscale.api.field_errors import ErrorType, FieldError, FieldPath, invalid, required
from podscale.api.quantity import Quantity, QuantityError, parse_quantity

__all__ = ["FieldReader"]

JSON = dict[str, Any]


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

    def _typed(
        self,
        obj: dict[str, Any],
        key: str,
        path: FieldPath,
        need: bool,
        accepted: type | UnionType,
        expected: str,
    ) -> Any:
        """The value when present and an instance of ``accepted`` (a bool only when asked for),
        else None with the error recorded (``must be of type <expected>``)."""
        value = self._get(obj, key, path, need)
        if value is None:
            return None
        if not isinstance(value, accepted) or (isinstance(value, bool) and accepted is not bool):
            self.type_error(path.child(key), value, expected)
            return None
        return value

    def _signed(self, field_path: FieldPath, value: Any, sign: int, *, positive: bool) -> bool:
        """Whether a value whose sign is ``sign`` (-1, 0, 1) is >= 0 (> 0 when ``positive``);
        the error is recorded when it is not."""
        if positive and sign <= 0:
            self.errors.append(invalid(field_path, value, "must be greater than 0"))
            return False
        if sign < 0:
            detail = "must be greater than or equal to 0"
            self.errors.append(invalid(field_path, value, detail))
            return False
        return True

    def string(
        self, obj: dict[str, Any], key: str, path: FieldPath, *, need: bool = False
    ) -> str | None:
        value = self._typed(obj, key, path, need, str, "string")
        if need and value == "":
            self.errors.append(required(path.child(key)))
            return None
        return cast("str | None", value)

    def boolean(self, obj: dict[str, Any], key: str, path: FieldPath) -> bool | None:
        return cast("bool | None", self._typed(obj, key, path, False, bool, "boolean"))

    def integer(
        self, obj: dict[str, Any], key: str, path: FieldPath, *, need: bool = False, minimum: int
    ) -> int | None:
        value = self._typed(obj, key, path, need, int, "integer")
        if value is not None and value < minimum:
            detail = f"must be greater than or equal to {minimum}"
            self.errors.append(invalid(path.child(key), value, detail))
            return None
        return cast("int | None", value)

    def number(
        self, obj: JSON, key: str, path: FieldPath, *, need: bool = False, positive: bool = False
    ) -> float | None:
        """A finite number, >= 0 (> 0 when ``positive``)."""
        value = self._typed(obj, key, path, need, int | float, "number")
        if value is None:
            return None
        if not math.isfinite(value):
            self.errors.append(invalid(path.child(key), str(value), "must be a finite number"))
            return None
        sign = (value > 0) - (value < 0)
        return (
            float(value) if self._signed(path.child(key), value, sign, positive=positive) else None
        )

    def duration(
        self, obj: JSON, key: str, path: FieldPath, *, need: bool = False, positive: bool = False
    ) -> timedelta | None:
        """A Go duration string, >= 0 (> 0 when ``positive``)."""
        value = self._typed(obj, key, path, need, str, "string")
        if value is None:
            return None
        try:
            parsed = parse_go_duration(value)
        except DurationError as err:
            self.errors.append(invalid(path.child(key), value, str(err)))
            return None
        sign = (parsed > timedelta(0)) - (parsed < timedelta(0))
        return parsed if self._signed(path.child(key), value, sign, positive=positive) else None

    def quantity(
        self, obj: dict[str, Any], key: str, path: FieldPath, *, positive: bool = False
    ) -> Quantity | None:
        """A resource quantity (string or bare number), >= 0 (> 0 when ``positive``)."""
        value = self._typed(obj, key, path, False, str | int | float, "string")
        if value is None:
            return None
        try:
            parsed = parse_quantity(value)
        except QuantityError as err:
            self.errors.append(invalid(path.child(key), value, str(err)))
            return None
        signed = self._signed(path.child(key), value, parsed.sign(), positive=positive)
        return parsed if signed else None

    def sequence(
        self, obj: dict[str, Any], key: str, path: FieldPath, *, need: bool = False
    ) -> list[Any]:
        """A list (empty when absent; a required one must not be empty)."""
        value: list[Any] | None = self._typed(obj, key, path, need, list, "array")
        if value is None:
            return []
        if need and not value:
            self.errors.append(required(path.child(key)))
        return value
