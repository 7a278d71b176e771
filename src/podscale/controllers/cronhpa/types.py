"""A CronHorizontalPodAutoscaler read into plain values, and its job conditions as JSON.

``read_spec`` and ``read_status`` turn the object's JSON (already admitted by the CRD's
schema, so the shapes hold; missing values read as Go's zero values, as upstream's
structs do) into frozen dataclasses for ``decisions``; ``Condition.to_json`` writes a
condition back in upstream's field names (every field present, ``jobId`` and ``message``
empty rather than absent, as Go serialises them). ``target_ref_error`` is upstream's
check that the reference names a group, version, kind and name (it splits the apiVersion
at its ``/``; a core-group ``v1`` has no group and is refused like an empty field).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Final

__all__ = [
    "Condition",
    "CronSpec",
    "CronStatus",
    "Job",
    "JobState",
    "TargetRef",
    "format_time",
    "read_spec",
    "read_status",
    "target_ref_error",
]

JSON = dict[str, Any]
HPA_KIND: Final = "HorizontalPodAutoscaler"


class JobState(StrEnum):
    """A job condition's ``state`` (upstream's ``JobState``)."""

    SUBMITTED = "Submitted"
    SUCCEED = "Succeed"
    FAILED = "Failed"


@dataclass(frozen=True, slots=True)
class TargetRef:
    api_version: str
    kind: str
    name: str

    def to_json(self) -> JSON:
        return {"apiVersion": self.api_version, "kind": self.kind, "name": self.name}

    @property
    def is_hpa(self) -> bool:
        # Upstream looks at the kind alone (any group): an HPA's min/max are adjusted.
        return self.kind == HPA_KIND


@dataclass(frozen=True, slots=True)
class Job:
    name: str
    schedule: str
    target_size: int
    run_once: bool

    @property
    def once(self) -> bool:
        """Runs once: ``runOnce``, or an ``@date`` schedule (one instant by nature)."""
        return self.run_once or "@date " in self.schedule


@dataclass(frozen=True, slots=True)
class CronSpec:
    target: TargetRef
    exclude_dates: tuple[str, ...]
    jobs: tuple[Job, ...]


@dataclass(frozen=True, slots=True)
class Condition:
    """One job's condition in ``status.conditions``."""

    name: str
    job_id: str
    schedule: str
    target_size: int
    run_once: bool
    state: JobState
    last_probe_time: datetime
    message: str = ""

    def to_json(self) -> JSON:
        return {
            "name": self.name,
            "jobId": self.job_id,
            "schedule": self.schedule,
            "targetSize": self.target_size,
            "runOnce": self.run_once,
            "state": str(self.state),
            "lastProbeTime": format_time(self.last_probe_time),
            "message": self.message,
        }

    def matches(self, job: Job) -> bool:
        """The condition was written for this very job (upstream keeps it, and its id)."""
        return (self.schedule, self.run_once, self.target_size) == (
            job.schedule,
            job.run_once,
            job.target_size,
        )


@dataclass(frozen=True, slots=True)
class CronStatus:
    """``status``: the target and excludeDates the jobs were made for, and conditions.
    ``target`` is None before the controller first wrote the status."""

    target: TargetRef | None
    exclude_dates: tuple[str, ...]
    conditions: tuple[Condition, ...]


def format_time(instant: datetime) -> str:
    """RFC 3339 in UTC at whole seconds, as ``metav1.Time`` serialises."""
    return instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse_time(text: object) -> datetime:
    try:
        return datetime.strptime(str(text), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        return datetime.min.replace(tzinfo=UTC)  # Go's zero time: nothing was probed


def _ref(raw: object) -> TargetRef:
    ref = raw if isinstance(raw, Mapping) else {}
    return TargetRef(
        str(ref.get("apiVersion") or ""), str(ref.get("kind") or ""), str(ref.get("name") or "")
    )


def _strings(raw: object) -> tuple[str, ...]:
    return tuple(str(item) for item in raw) if isinstance(raw, list) else ()


def read_spec(obj: Mapping[str, Any]) -> CronSpec:
    spec = obj.get("spec") or {}
    jobs = tuple(
        Job(
            name=str(job.get("name") or ""),
            schedule=str(job.get("schedule") or ""),
            target_size=int(job.get("targetSize") or 0),
            run_once=bool(job.get("runOnce")),
        )
        for job in spec.get("jobs") or ()
        if isinstance(job, Mapping)
    )
    return CronSpec(_ref(spec.get("scaleTargetRef")), _strings(spec.get("excludeDates")), jobs)


def _condition(raw: Mapping[str, Any]) -> Condition:
    state = str(raw.get("state") or "")
    return Condition(
        name=str(raw.get("name") or ""),
        job_id=str(raw.get("jobId") or ""),
        schedule=str(raw.get("schedule") or ""),
        target_size=int(raw.get("targetSize") or 0),
        run_once=bool(raw.get("runOnce")),
        state=JobState(state) if state in JobState.__members__.values() else JobState.SUBMITTED,
        last_probe_time=_parse_time(raw.get("lastProbeTime")),
        message=str(raw.get("message") or ""),
    )


def read_status(obj: Mapping[str, Any]) -> CronStatus:
    status = obj.get("status") or {}
    raw_ref = status.get("scaleTargetRef")
    return CronStatus(
        target=_ref(raw_ref) if isinstance(raw_ref, Mapping) else None,
        exclude_dates=_strings(status.get("excludeDates")),
        conditions=tuple(
            _condition(c) for c in status.get("conditions") or () if isinstance(c, Mapping)
        ),
    )


def target_ref_error(ref: TargetRef) -> str | None:
    """Upstream's ``checkRefValid`` message, or None when the reference is complete."""
    group, slash, version = ref.api_version.partition("/")
    if not (slash and group and version and ref.kind and ref.name):
        return "any properties in ref could not be empty"
    return None
