"""kubectl's ``describe`` of a ReplicaSet, StatefulSet or Deployment, as text.

``describe_workload`` renders kubectl's header (name, selector, labels, annotations,
replicas, the strategy of a Deployment and its new and old ReplicaSets, the pods status of
a ReplicaSet or StatefulSet from the pods its controller owns), the pod template, the
conditions and the events. Beyond kubectl, a workload with a load annotation gets a
``Load:`` line saying what the simulated cluster makes of it
(``podscale.runtime.load.annotation``). Pure: ``podscale.cli.describe`` fetches the object,
its pods or ReplicaSets and its events and calls it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from podscale.api.selectors import format_label_selector
from podscale.cli.describe_annotations import write_annotations
from podscale.cli.describe_template import write_pod_template
from podscale.cli.describe_text import SKIPPED_ANNOTATIONS, DescribeWriter, format_timestamp

__all__ = ["describe_workload"]

JSON = dict[str, Any]


def _pods_status(pods: list[JSON]) -> str:
    phases = [str((p.get("status") or {}).get("phase") or "") for p in pods]
    counts = {phase: phases.count(phase) for phase in ("Running", "Pending", "Succeeded", "Failed")}
    return (
        f"{counts['Running']} Running / {counts['Pending']} Waiting / "
        f"{counts['Succeeded']} Succeeded / {counts['Failed']} Failed"
    )


def _controller(metadata: JSON) -> str:
    for ref in metadata.get("ownerReferences") or []:
        if isinstance(ref, dict) and ref.get("controller"):
            return f"{ref.get('kind', '')}/{ref.get('name', '')}"
    return ""


def _rolling_update(strategy: JSON) -> str:
    rolling = strategy.get("rollingUpdate") or {}
    unavailable = rolling.get("maxUnavailable", "25%")
    surge = rolling.get("maxSurge", "25%")
    return f"{unavailable} max unavailable, {surge} max surge"


def _replica_sets_text(replica_sets: list[JSON]) -> str:
    if not replica_sets:
        return "<none>"
    return ", ".join(
        f"{(rs.get('metadata') or {}).get('name', '')} "
        f"({(rs.get('status') or {}).get('replicas', 0)}/"
        f"{(rs.get('spec') or {}).get('replicas', 1)} replicas created)"
        for rs in replica_sets
    )


def _write_conditions(out: DescribeWriter, status: JSON) -> None:
    conditions = [c for c in status.get("conditions") or [] if isinstance(c, dict)]
    if conditions:
        out.write(0, "Conditions:\n  Type\tStatus\tReason\n")
        out.write(1, "----\t------\t------\n")
        for cond in conditions:
            out.write(
                1, f"{cond.get('type', '')} \t{cond.get('status', '')}\t{cond.get('reason', '')}\n"
            )


def _write_load(out: DescribeWriter, kind: str, metadata: JSON) -> None:
    """podscale's ``Load:`` line: what the workload's load annotation declares, as the plane
    reads it (a Deployment's ReplicaSets carry a copy the plane ignores: no line for them)."""
    # The key is podscale.runtime.load.annotation.LOAD_ANNOTATION, spelled out so that
    # describing a workload without one imports nothing of the load model (tests compare).
    value = (metadata.get("annotations") or {}).get("load.podscale.dev/v1alpha1")
    if not isinstance(value, str) or (kind == "ReplicaSet" and _controller(metadata)):
        return
    # Imported only here: describing a workload without a load stays as fast as before.
    from podscale.runtime.load.annotation import (
        LoadSpecError,
        load_summary,
        parse_load_annotation,
    )

    try:
        text = load_summary(parse_load_annotation(value).spec)
    except LoadSpecError as err:
        text = f"<invalid: {', '.join(err.problems)}>"
    out.write(0, f"Load:\t{text}\n")


def describe_workload(
    kind: str,
    obj: JSON,
    related: list[JSON],
    events: list[JSON],
    now: datetime,
) -> str:
    """ReplicaSet/StatefulSet/Deployment as kubectl describes them. ``related`` is the pods a
    ReplicaSet/StatefulSet controls, or the ReplicaSets a Deployment controls."""
    metadata = obj.get("metadata") or {}
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    out = DescribeWriter()
    out.write(0, f"Name:\t{metadata.get('name', '')}\n")
    out.write(0, f"Namespace:\t{metadata.get('namespace', '')}\n")
    if kind == "Deployment":
        out.write(0, f"CreationTimestamp:\t{format_timestamp(metadata.get('creationTimestamp'))}\n")
        out.write_map("Labels", metadata.get("labels"))
        write_annotations(out, metadata.get("annotations"), SKIPPED_ANNOTATIONS)
        _write_load(out, kind, metadata)
        out.write(0, f"Selector:\t{format_label_selector(spec.get('selector'))}\n")
        out.write(
            0,
            f"Replicas:\t{spec.get('replicas', 1)} desired | {status.get('updatedReplicas', 0)}"
            f" updated | {status.get('replicas', 0)} total | {status.get('availableReplicas', 0)}"
            f" available | {status.get('unavailableReplicas', 0)} unavailable\n",
        )
        strategy = spec.get("strategy") or {}
        out.write(0, f"StrategyType:\t{strategy.get('type', '')}\n")
        out.write(0, f"MinReadySeconds:\t{spec.get('minReadySeconds', 0)}\n")
        if strategy.get("type") == "RollingUpdate":
            out.write(0, f"RollingUpdateStrategy:\t{_rolling_update(strategy)}\n")
        write_pod_template(out, spec.get("template"))
        _write_conditions(out, status)
        new, old = _split_replica_sets(obj, related)
        if new or old:  # kubectl skips both lines until the controller made a ReplicaSet
            out.write(0, f"OldReplicaSets:\t{_replica_sets_text(old)}\n")
            out.write(0, f"NewReplicaSet:\t{_replica_sets_text(new)}\n")
    else:
        if kind == "StatefulSet":
            out.write(
                0, f"CreationTimestamp:\t{format_timestamp(metadata.get('creationTimestamp'))}\n"
            )
        out.write(0, f"Selector:\t{format_label_selector(spec.get('selector'))}\n")
        out.write_map("Labels", metadata.get("labels"))
        write_annotations(out, metadata.get("annotations"), SKIPPED_ANNOTATIONS)
        _write_load(out, kind, metadata)
        controller = _controller(metadata)
        if controller:
            out.write(0, f"Controlled By:\t{controller}\n")
        current, desired = status.get("replicas", 0), spec.get("replicas", 1)
        if kind == "StatefulSet":
            out.write(0, f"Replicas:\t{desired} desired | {current} total\n")
        else:
            out.write(0, f"Replicas:\t{current} current / {desired} desired\n")
        out.write(0, f"Pods Status:\t{_pods_status(related)}\n")
        write_pod_template(out, spec.get("template"))
        _write_conditions(out, status)
    out.write_events(events, now)
    return out.render()


def _template_without_hash(template: Any) -> Any:
    if not isinstance(template, dict):
        return template
    metadata = dict(template.get("metadata") or {})
    labels = dict(metadata.get("labels") or {})
    labels.pop("pod-template-hash", None)
    metadata["labels"] = labels
    return {**template, "metadata": metadata}


def _split_replica_sets(
    deployment: JSON, replica_sets: list[JSON]
) -> tuple[list[JSON], list[JSON]]:
    """(new, old): the new ReplicaSet has the Deployment's pod template (hash label aside)."""
    wanted = _template_without_hash((deployment.get("spec") or {}).get("template"))
    new = [
        rs
        for rs in replica_sets
        if _template_without_hash((rs.get("spec") or {}).get("template")) == wanted
    ][:1]
    return new, [rs for rs in replica_sets if rs not in new]
