"""``describe rp``: a Kapacity ReplicaProfile, and the parts ``describe ihpa`` shares with it.

A ReplicaProfile is read with ``podscale.controllers.kapacity.replicaprofile`` and shown in
kubectl's describe layout: the header (name, namespace, labels, annotations, creation time,
the owning IHPA), the scale target, ``Paused``, the allowed scaling direction, the pod
sorter and traffic controller, a table of the online, cutoff and standby replicas wanted
(spec) against those reached (status), the conditions and events. ``write_header``,
``write_replica_states`` and ``write_conditions`` are also used by ``podscale.cli.describe_ihpa``
(which shows the IHPA's profile of the same name). Pure: ``podscale.cli.describe`` fetches
the objects and events; this module (and the controller's types it reads) loads only when
a Kapacity kind is described.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final

from podscale.cli.describe_annotations import write_annotations
from podscale.cli.describe_text import SKIPPED_ANNOTATIONS, DescribeWriter, format_timestamp
from podscale.controllers.kapacity.kind import REPLICA_PROFILE
from podscale.controllers.kapacity.reading import Condition, TargetRef
from podscale.controllers.kapacity.replicaprofile import ReplicaProfile, parse_replica_profile

__all__ = [
    "REPLICA_PROFILE",
    "describe_replica_profile",
    "is_replica_profile",
    "write_conditions",
    "write_header",
    "write_replica_states",
]

JSON = dict[str, Any]
_NAMES: Final = frozenset(
    {REPLICA_PROFILE.plural, REPLICA_PROFILE.singular, *REPLICA_PROFILE.short_names}
    | {
        f"{name}{version}.{REPLICA_PROFILE.group}"
        for name in (REPLICA_PROFILE.plural, REPLICA_PROFILE.singular)
        for version in ("", f".{REPLICA_PROFILE.version}")
    }
)


def is_replica_profile(resource: str) -> bool:
    """Whether a typed resource name (``rp``, ``replicaprofile(s)``, the plural qualified by
    its group) names the ReplicaProfile kind."""
    return resource.strip().lower() in _NAMES


def write_header(out: DescribeWriter, obj: Mapping[str, Any], target: TargetRef) -> None:
    """Name, namespace, labels, annotations, creation time, owner and scale target."""
    metadata: Mapping[str, Any] = obj.get("metadata") or {}
    out.write(0, f"Name:\t{metadata.get('name', '')}\n")
    out.write(0, f"Namespace:\t{metadata.get('namespace', '')}\n")
    out.write_map("Labels", metadata.get("labels"))
    write_annotations(out, metadata.get("annotations"), SKIPPED_ANNOTATIONS)
    out.write(0, f"CreationTimestamp:\t{format_timestamp(metadata.get('creationTimestamp'))}\n")
    for ref in metadata.get("ownerReferences") or []:
        if isinstance(ref, dict) and ref.get("controller"):
            out.write(0, f"Controlled By:\t{ref.get('kind', '')}/{ref.get('name', '')}\n")
    out.write(0, f"Reference:\t{target.kind}/{target.name}\n")


def _bool(value: bool) -> str:
    return "true" if value else "false"


def write_replica_states(out: DescribeWriter, profile: ReplicaProfile, level: int) -> None:
    """``Paused``, the allowed direction and a State/Desired/Current table of the counts."""
    spec, status = profile.spec, profile.status
    out.write(level, f"Paused:\t{_bool(spec.paused)}\n")
    out.write(level, f"Allowed scaling direction:\t{spec.allowed_scaling_direction.value}\n")
    out.write(level, "Replicas:\n")
    out.write(level + 1, "State\tDesired\tCurrent\n")
    out.write(level + 1, "-----\t-------\t-------\n")
    for state, desired, current in (
        ("Online", spec.online_replicas, status.online_replicas),
        ("Cutoff", spec.cutoff_replicas, status.cutoff_replicas),
        ("Standby", spec.standby_replicas, status.standby_replicas),
    ):
        out.write(level + 1, f"{state}\t{desired}\t{current}\n")


def write_conditions(out: DescribeWriter, conditions: tuple[Condition, ...]) -> None:
    """kubectl's HPA conditions table (type, status, reason, message); nothing when none."""
    if not conditions:
        return
    out.write(0, "Conditions:\n")
    out.write(1, "Type\tStatus\tReason\tMessage\n")
    out.write(1, "----\t------\t------\t-------\n")
    for cond in conditions:
        out.write(1, f"{cond.type}\t{cond.status}\t{cond.reason}\t{cond.message}\n")


def describe_replica_profile(obj: JSON, events: list[JSON], now: datetime) -> str:
    """The description of a ReplicaProfile with its events."""
    profile = parse_replica_profile(obj)
    behavior = profile.spec.behavior
    out = DescribeWriter()
    write_header(out, obj, profile.spec.target)
    write_replica_states(out, profile, 0)
    sorter = behavior.pod_sorter.value
    if behavior.pod_sorter_external is not None:
        sorter += f" ({behavior.pod_sorter_external.name})"
    traffic = behavior.traffic_controller.value
    if behavior.traffic_controller_external is not None:
        traffic += f" ({behavior.traffic_controller_external.name})"
    out.write(0, f"Pod sorter:\t{sorter}\n")
    out.write(0, f"Traffic controller:\t{traffic}\n")
    write_conditions(out, profile.status.conditions)
    out.write_events(events, now)
    return out.render()
