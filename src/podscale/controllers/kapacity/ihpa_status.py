"""An IntelligentHorizontalPodAutoscaler's status read into plain values, and written back.

``read_status`` (used by ``types.parse_ihpa``) reads the previous and current portrait
values (replicas, the provider they came from, when they expire), the gray progress
(percent of the change done and when it last moved) and the conditions; ``to_json``
writes each piece back in Kapacity's field names. Helpers come from ``reading``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from podscale.controllers.kapacity.reading import (
    JSON,
    Condition,
    conditions,
    format_time,
    integer,
    mapping,
    string,
    timestamp,
)

__all__ = ["GrayStatus", "IhpaStatus", "PortraitValue", "read_status"]


@dataclass(frozen=True, slots=True)
class PortraitValue:
    """A portrait's desired online replicas, the provider it came from and when it expires."""

    provider: str
    replicas: int
    expire_time: datetime | None = None

    def to_json(self) -> JSON:
        body: JSON = {"provider": self.provider, "replicas": self.replicas}
        if self.expire_time is not None:
            body["expireTime"] = format_time(self.expire_time)
        return body


@dataclass(frozen=True, slots=True)
class GrayStatus:
    gray_percent: int
    last_update_time: datetime | None

    def to_json(self) -> JSON:
        stamp = None if self.last_update_time is None else format_time(self.last_update_time)
        # metav1.Time writes a zero time as null; Kapacity's field has no omitempty.
        return {"grayPercent": self.gray_percent, "lastUpdateTime": stamp}


@dataclass(frozen=True, slots=True)
class IhpaStatus:
    previous: PortraitValue | None = None
    current: PortraitValue | None = None
    gray: GrayStatus | None = None
    conditions: tuple[Condition, ...] = ()


def _value(raw: Any, path: str) -> PortraitValue | None:
    if raw is None:
        return None
    body = mapping(raw, path)
    return PortraitValue(
        provider=string(body.get("provider"), f"{path}.provider"),
        replicas=integer(body.get("replicas"), f"{path}.replicas"),
        expire_time=timestamp(body.get("expireTime"), f"{path}.expireTime"),
    )


def read_status(raw: Any) -> IhpaStatus:
    body = mapping(raw, "status")
    gray = body.get("gray")
    gray_status = None
    if gray is not None:
        at = mapping(gray, "status.gray")
        gray_status = GrayStatus(
            gray_percent=integer(at.get("grayPercent"), "status.gray.grayPercent"),
            last_update_time=timestamp(at.get("lastUpdateTime"), "status.gray.lastUpdateTime"),
        )
    return IhpaStatus(
        previous=_value(body.get("previousPortraitValue"), "status.previousPortraitValue"),
        current=_value(body.get("currentPortraitValue"), "status.currentPortraitValue"),
        gray=gray_status,
        conditions=conditions(body.get("conditions"), "status.conditions"),
    )
