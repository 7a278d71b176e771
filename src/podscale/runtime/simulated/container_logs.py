"""The simulated kubelets' container logs: kept in their memory, served as ``pods/log``.

``ContainerLogs`` is what a node's container runtime keeps on disk, held in the kubelet
agent's memory (``kubelets.SimulatedKubelets.logs``): per pod uid and container, the lines
``container_log_lines.advance_log`` derives from each status the kubelet writes, for the
running instance and the one before it (the kubelet keeps one dead container per
container, which is what ``--previous`` reads). Bounded: ``MAX_LINES`` per instance (the
oldest drop first), two instances per container, and a pod's logs go when the pod is
deleted. They do not survive a restart of the process (``podscale up``): a restarted
kubelet starts each running container's log afresh from its status.

It is the ``ContainerLogSource`` of the API server
(``podscale.apiserver.operations.pod_log_options``): ``open`` applies the kubelet's checks of the
container state (waiting to start, no previous instance, terminated without a log) and streams the
lines rendered by ``container_log_render``; ``follow`` waits for new lines until the instance ends
or the pod is forgotten.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

from podscale.apiserver.errors import bad_request
from podscale.apiserver.operations.pod_log_options import PodLogOptions
from podscale.runtime.simulated.container_log_lines import (
    LogCursor,
    LogLine,
    advance_log,
    instance_of,
    last_termination,
)
from podscale.runtime.simulated.container_log_render import LogBudget, render_lines, select_lines
from podscale.store.interface import Clock

__all__ = ["MAX_LINES", "ContainerLogs"]

JSON = dict[str, Any]
MAX_LINES: Final = 1000
_KEPT_INSTANCES: Final = 2
# How long a follower waits before yielding b"" so the server can check the client is there.
_IDLE_SECONDS: Final = 1.0


@dataclass
class _Instance:
    lines: deque[tuple[datetime, str]] = field(default_factory=lambda: deque(maxlen=MAX_LINES))
    appended: int = 0  # lines ever appended: a follower's position survives dropped ones
    ended: bool = False


@dataclass
class _Container:
    cursor: LogCursor | None = None
    instances: dict[int, _Instance] = field(default_factory=dict)


class ContainerLogs:
    """The logs of the containers on ``nodes``; see the module docstring."""

    def __init__(self, clock: Clock, nodes: Collection[str]) -> None:
        self._clock = clock
        self._nodes = nodes
        self._pods: dict[str, dict[str, _Container]] = {}
        self._changed = asyncio.Event()

    # -- writing (the kubelets) ---------------------------------------------------------

    def observe(self, pod: Mapping[str, Any], now: datetime) -> None:
        """Append what ``pod``'s containers logged up to its current status."""
        uid = str((pod.get("metadata") or {}).get("uid", ""))
        statuses = (pod.get("status") or {}).get("containerStatuses") or []
        touched = False
        for status in statuses:
            containers = self._pods.setdefault(uid, {})
            entry = containers.setdefault(str(status.get("name", "")), _Container())
            lines, entry.cursor = advance_log(pod, status, entry.cursor, now)
            for line in lines:
                self._append(entry, line)
                touched = True
        if touched:
            self._wake()

    def _append(self, entry: _Container, line: LogLine) -> None:
        instance = entry.instances.get(line.instance)
        if instance is None:
            instance = entry.instances[line.instance] = _Instance()
            for old in sorted(entry.instances)[:-_KEPT_INSTANCES]:
                entry.instances[old].ended = True
                del entry.instances[old]
        instance.lines.append((line.at, line.text))
        instance.appended += 1
        instance.ended = instance.ended or line.ends

    def forget(self, uid: str) -> None:
        """The pod is gone: drop its logs and end its followers."""
        for entry in self._pods.pop(uid, {}).values():
            for instance in entry.instances.values():
                instance.ended = True
        self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    # -- reading (the API server's ContainerLogSource) -----------------------------------

    def serves(self, node: str) -> bool:
        return node in self._nodes

    def open(
        self, pod: Mapping[str, Any], container: str, options: PodLogOptions
    ) -> AsyncIterator[bytes]:
        metadata = pod.get("metadata") or {}
        name, uid = str(metadata.get("name", "")), str(metadata.get("uid", ""))
        statuses = (pod.get("status") or {}).get("containerStatuses") or []
        status = next((s for s in statuses if s.get("name") == container), None)
        if status is None:
            raise bad_request(f'container "{container}" in pod "{name}" is not available')
        number = _instance_to_read(status, name, options.previous)
        entry = self._pods.get(uid, {}).get(container)
        instance = entry.instances.get(number) if entry is not None else None
        if instance is None:
            instance = _Instance(ended=True)  # started before this kubelet kept logs
        return self._stream(instance, options)

    async def _stream(self, instance: _Instance, options: PodLogOptions) -> AsyncIterator[bytes]:
        budget = LogBudget(options.limit_bytes)
        lines = select_lines(list(instance.lines), options, self._clock.now())
        position = instance.appended
        chunk = render_lines(lines, options.timestamps, budget)
        if chunk:
            yield chunk
        while options.follow and not budget.spent:
            if instance.appended > position:
                fresh = list(instance.lines)[-(instance.appended - position) :]
                position = instance.appended
                chunk = render_lines(fresh, options.timestamps, budget)
                if chunk:
                    yield chunk
                continue
            if instance.ended:
                return  # the container ended (or the pod is gone): so does the follow
            try:
                await asyncio.wait_for(self._changed.wait(), _IDLE_SECONDS)
            except TimeoutError:
                yield b""


def _instance_to_read(status: Mapping[str, Any], pod: str, previous: bool) -> int:
    """Which instance's log the kubelet reads, or its error (upstream's checks of the
    container state before it opens a log)."""
    name = str(status.get("name", ""))
    instance = instance_of(status)
    state = status.get("state") or {}
    waiting = state.get("waiting") or {}
    backing_off = waiting.get("reason") == "CrashLoopBackOff"
    if previous:
        # The dead instance the kubelet kept: the one backing off, or the one before.
        if backing_off and last_termination(status) is not None:
            return instance
        if not (status.get("lastState") or {}).get("terminated"):
            raise bad_request(f'previous terminated container "{name}" in pod "{pod}" not found')
        return instance - 1
    if "running" in state or "terminated" in state or backing_off:
        return instance
    reason = str(waiting.get("reason") or "")
    if reason:
        raise bad_request(f'container "{name}" in pod "{pod}" is waiting to start: {reason}')
    raise bad_request(f'container "{name}" in pod "{pod}" is waiting to start - no logs yet')
