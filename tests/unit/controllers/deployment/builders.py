"""Small ReplicaSetState builders shared by this directory's tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from podscale.controllers.deployment.replicasets import ReplicaSetState

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def make_rs(
    name: str,
    replicas: int,
    available: int | None = None,
    *,
    age: int = 0,
    annotations: dict[str, str] | None = None,
    status_replicas: int | None = None,
    ready: int | None = None,
) -> ReplicaSetState:
    """A ReplicaSet created ``age`` seconds after T0; counts default to fully available."""
    available = replicas if available is None else available
    return ReplicaSetState(
        name=name,
        replicas=replicas,
        created=T0 + timedelta(seconds=age),
        uid=f"uid-{name}",
        status_replicas=replicas if status_replicas is None else status_replicas,
        ready_replicas=available if ready is None else ready,
        available_replicas=available,
        annotations=annotations or {},
    )
