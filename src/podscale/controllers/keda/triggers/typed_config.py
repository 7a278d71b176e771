"""KEDA's typed trigger config: how `scalersconfig.TypedConfig` reads `trigger.metadata`.

Each scaler declares its fields (name, required or optional, default, enum); KEDA
looks each up in the metadata (trimmed; an empty value counts as absent), fills in the
default, checks the enum, converts the text (strings as they are, numbers and bools
through Go's `encoding/json`, maps as `k=v,k2=v2`), collects every field's error, then
runs the scaler's own `Validate` on whatever it could fill (failed fields keep their
zero value) and joins all errors with newlines. `MetadataReader` does the same, field
by field, for the trigger modules beside it; `gojson` supplies Go's decode messages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from podscale.api.selector_model import go_quote
from podscale.controllers.keda.triggers.gojson import GoJSONError, GoType, decode
from podscale.controllers.keda.triggers.spec import TriggerError


def _go_list(items: Sequence[str]) -> str:
    return "[" + " ".join(items) + "]"


class MetadataReader:
    """Reads fields from one trigger's metadata, collecting KEDA's error texts."""

    def __init__(self, metadata: Mapping[str, str]) -> None:
        self._metadata = metadata
        self.errors: list[str] = []

    def _lookup(
        self, name: str, optional: bool, default: str | None, enum: Sequence[str] | None
    ) -> str | None:
        value = self._metadata.get(name, "").strip()
        if value == "" and default is not None:
            value = default
        if value == "":
            if not optional:
                self.errors.append(
                    f"missing required parameter {go_quote(name)} in [triggerMetadata]"
                )
            return None
        if enum is not None and any(part.strip() not in enum for part in value.split(",")):
            allowed = _go_list(enum)
            self.errors.append(
                f"parameter {go_quote(name)} value {go_quote(value)} must be one of {allowed}"
            )
            return None
        return value

    def _decode(self, name: str, value: str, go_type: GoType) -> float | int | bool | None:
        try:
            return decode(value, go_type)
        except GoJSONError as err:
            self.errors.append(
                f"unable to set param {go_quote(name)} value {go_quote(value)}: "
                f"unable to unmarshal to field type {go_type}: {err}"
            )
            return None

    def string(
        self,
        name: str,
        *,
        optional: bool = False,
        default: str | None = None,
        enum: Sequence[str] | None = None,
    ) -> str:
        return self._lookup(name, optional, default, enum) or ""

    def float64(self, name: str, *, optional: bool = False, default: str | None = None) -> float:
        value = self._lookup(name, optional, default, None)
        decoded = None if value is None else self._decode(name, value, "float64")
        return float(decoded) if decoded is not None else 0.0

    def integer(self, name: str, go_type: GoType = "int64", *, optional: bool = False) -> int:
        value = self._lookup(name, optional, None, None)
        decoded = None if value is None else self._decode(name, value, go_type)
        return int(decoded) if decoded is not None else 0

    def boolean(self, name: str, *, optional: bool = False, default: str | None = None) -> bool:
        value = self._lookup(name, optional, default, None)
        decoded = None if value is None else self._decode(name, value, "bool")
        return bool(decoded)

    def string_map(self, name: str) -> dict[str, str]:
        """An optional `k=v,k2=v2` map, as KEDA reads `customHeaders`."""
        value = self._lookup(name, True, None, None)
        result: dict[str, str] = {}
        if value is None:
            return result
        for part in value.split(","):
            pair = part.strip().split("=")
            if len(pair) != 2:
                self.errors.append(
                    f"unable to set param {go_quote(name)} value {go_quote(value)}: "
                    f"expected format key=value, got {go_quote(part.strip())}"
                )
                return {}
            result[pair[0].strip()] = pair[1].strip()
        return result

    def finish(self, prefix: str, validation: str | None = None) -> None:
        """Raise the joined errors (and the `Validate` error) under KEDA's wrapping."""
        errors = [*self.errors, *([validation] if validation else [])]
        if errors:
            raise TriggerError(prefix + "\n".join(errors))
