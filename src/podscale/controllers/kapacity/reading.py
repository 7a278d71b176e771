"""Reading Kapacity objects' JSON into plain values, as Go's decoder would.

``types`` and ``replicaprofile`` read IntelligentHorizontalPodAutoscalers and
ReplicaProfiles with these helpers: a missing value reads as Go's zero value (or the
default Kapacity's CRD declares, for an object that skipped defaulting), a value of the
wrong JSON type raises ``KapacityError`` naming the field path, never a crash. The shared
shapes (``TargetRef``, ``Condition``, ``External``) live here as well.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, TypeVar

__all__ = [
    "JSON",
    "Condition",
    "External",
    "KapacityError",
    "TargetRef",
    "boolean",
    "choice",
    "conditions",
    "external",
    "format_time",
    "integer",
    "items",
    "mapping",
    "string",
    "target_ref",
    "timestamp",
]

JSON = dict[str, Any]
_E = TypeVar("_E", bound=StrEnum)


class KapacityError(ValueError):
    """A field of the wrong JSON type or an unreadable value; the message names the field."""


@dataclass(frozen=True, slots=True)
class TargetRef:
    """``scaleTargetRef``: an autoscaling/v2 CrossVersionObjectReference."""

    api_version: str
    kind: str
    name: str

    def to_json(self) -> JSON:
        return {"apiVersion": self.api_version, "kind": self.kind, "name": self.name}


@dataclass(frozen=True, slots=True)
class External:
    """A user-named external plug-in (pod sorter, traffic controller, stability checker)."""

    name: str
    config: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Condition:
    """A ``metav1.Condition`` as Kapacity's statuses hold them."""

    type: str
    status: str
    reason: str
    message: str
    last_transition_time: datetime | None
    observed_generation: int = 0

    def to_json(self) -> JSON:
        body: JSON = {"type": self.type, "status": self.status}
        if self.observed_generation:
            body["observedGeneration"] = self.observed_generation
        if self.last_transition_time is not None:
            body["lastTransitionTime"] = format_time(self.last_transition_time)
        body.update(reason=self.reason, message=self.message)
        return body


def mapping(value: Any, path: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise KapacityError(f"{path}: must be an object")
    return value


def items(value: Any, path: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise KapacityError(f"{path}: must be an array")
    return value


def integer(value: Any, path: str, default: int = 0) -> int:
    if value is None:
        return default
    # JSON booleans are ints to Python; Go's decoder refuses them for an int32.
    if isinstance(value, bool) or not isinstance(value, int):
        raise KapacityError(f"{path}: must be an integer")
    return value


def string(value: Any, path: str, default: str = "") -> str:
    if value is None:
        return default
    if not isinstance(value, str):
        raise KapacityError(f"{path}: must be a string")
    return value


def boolean(value: Any, path: str) -> bool:
    if value is None:
        return False
    if not isinstance(value, bool):
        raise KapacityError(f"{path}: must be a boolean")
    return value


def choice(kind: type[_E], value: Any, path: str, default: _E) -> _E:
    """One of an enum's values; missing or empty reads as ``default`` (the CRD's default)."""
    text = string(value, path) or default.value
    try:
        return kind(text)
    except ValueError:
        allowed = ", ".join(f'"{member.value}"' for member in kind)
        message = f'Unsupported value: "{text}": supported values: {allowed}'
        raise KapacityError(f"{path}: {message}") from None


def format_time(instant: datetime) -> str:
    """RFC 3339 in UTC with whole seconds, as ``metav1.Time`` serialises."""
    return instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def timestamp(value: Any, path: str) -> datetime | None:
    text = string(value, path)
    if not text:
        return None
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise KapacityError(f"{path}: must be an RFC 3339 date-time") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def target_ref(value: Any, path: str) -> TargetRef:
    raw = mapping(value, path)
    return TargetRef(
        api_version=string(raw.get("apiVersion"), f"{path}.apiVersion"),
        kind=string(raw.get("kind"), f"{path}.kind"),
        name=string(raw.get("name"), f"{path}.name"),
    )


def external(value: Any, path: str) -> External | None:
    if value is None:
        return None
    raw = mapping(value, path)
    config = mapping(raw.get("config"), f"{path}.config")
    return External(
        name=string(raw.get("name"), f"{path}.name"),
        config={key: string(item, f"{path}.config.{key}") for key, item in config.items()},
    )


def conditions(value: Any, path: str) -> tuple[Condition, ...]:
    read: list[Condition] = []
    for index, raw in enumerate(items(value, path)):
        at = f"{path}[{index}]"
        entry = mapping(raw, at)
        read.append(
            Condition(
                type=string(entry.get("type"), f"{at}.type"),
                status=string(entry.get("status"), f"{at}.status"),
                reason=string(entry.get("reason"), f"{at}.reason"),
                message=string(entry.get("message"), f"{at}.message"),
                last_transition_time=timestamp(
                    entry.get("lastTransitionTime"), f"{at}.lastTransitionTime"
                ),
                observed_generation=integer(
                    entry.get("observedGeneration"), f"{at}.observedGeneration"
                ),
            )
        )
    return tuple(read)
