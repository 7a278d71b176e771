"""The simulated kubelets: one agent that runs the pods bound to every simulated node.

A ``Controller`` (``podscale.controllers.manager``) over the pod and node informers, keyed by pod.
``reconcile`` takes one step of the pure state machine ``podscale.runtime.simulated.kubelet_state``
(``advance_pod``) at the clock's ``now`` with the pod's ``StartupProfile`` (``profiles``), writes
the status through the ``status`` subresource when it changed, records the kubelet's events
(``pod_events``), and arms a timer in the work queue for ``next_event_at``: on virtual time the
queue's delayed items fire at exactly that instant, so Pending -> Running -> Ready happen at the
configured virtual times with nothing polling. All kubelet memory is in the pod status, so a restart
of this agent loses nothing.

It also plays the node lifecycle controller for its nodes: when a node is not Ready (see
``nodes.SimulatedNodes.lose``) its pods are frozen and marked not ready, and after
``eviction_timeout`` (upstream's default toleration of the not-ready/unreachable taints,
300 s; None never evicts) they are deleted with a ``TaintManagerEviction`` event (at once,
with grace 0: the simulation has no pod GC to force-delete pods a lost kubelet keeps
Terminating). A pod with ``deletionTimestamp`` (a graceful delete by the API server, or kept
by finalizers) stops being ready, its containers exit after the profile's termination delay,
never after the deadline ``deletionTimestamp``, and the kubelet then deletes it with
``gracePeriodSeconds: 0`` and a uid precondition, as upstream's status manager does.
Fault injection: ``crash`` (a pod's running containers, or one of them, exit).

Each status the kubelet writes (or finds) also feeds the containers' logs, ``logs``
(``container_logs.ContainerLogs``, the ``pods/log`` source), kept in this agent's memory
as a node keeps them; a deleted pod's logs go with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, Final

import podscale.runtime.simulated.kubelet_state as kubelet
from podscale.api.kinds import KindInfo
from podscale.client.cache import Lister, object_key
from podscale.client.http import ApiError
from podscale.client.informer import EventHandler
from podscale.client.workqueue import WorkQueue
from podscale.controllers.runtime_api import ControllerApi, SharedInformers
from podscale.controllers.runtime_events import EventRecorder
from podscale.runtime.simulated.cluster_api import (
    NODE,
    POD,
    meta,
    node_name_of,
    pod_namespace,
)
from podscale.runtime.simulated.container_logs import ContainerLogs
from podscale.runtime.simulated.kubelet_state import DEFAULT_PROFILE, StartupProfile
from podscale.runtime.simulated.node_objects import set_node_ready
from podscale.runtime.simulated.nodes import SimulatedNodes
from podscale.runtime.simulated.pod_events import container_events, node_not_ready_event
from podscale.runtime.simulated.pod_status import parse_time
from podscale.runtime.simulated.profiles import profile_for
from podscale.runtime.simulated.scheduling import is_node_ready
from podscale.store.interface import Clock, Preconditions

__all__ = ["DEFAULT_EVICTION_TIMEOUT", "SimulatedKubelets"]

JSON = dict[str, Any]
DEFAULT_EVICTION_TIMEOUT: Final = timedelta(seconds=300)
_CONFLICT_RETRIES: Final = 3


def _not_ready_since(node: JSON, now: datetime) -> datetime:
    for condition in (node.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready" and condition.get("lastTransitionTime"):
            return parse_time(str(condition["lastTransitionTime"]))
    return now


class SimulatedKubelets:
    """Runs the pods of the simulated ``nodes``; see the module docstring."""

    name: Final = "kubelet"
    workers_flag: Final = "concurrent_kubelet_syncs"
    informer_kinds: Final[Sequence[KindInfo]] = (POD, NODE)

    def __init__(
        self,
        api: ControllerApi,
        clock: Clock,
        nodes: SimulatedNodes,
        *,
        profile: StartupProfile = DEFAULT_PROFILE,
        eviction_timeout: timedelta | None = DEFAULT_EVICTION_TIMEOUT,
    ) -> None:
        self._api = api
        self._clock = clock
        self._nodes = nodes
        self._names = nodes.names
        self._profile = profile
        self._eviction_timeout = eviction_timeout
        self._kubelet = EventRecorder(api, clock, "kubelet")
        self._node_controller = EventRecorder(api, clock, "node-controller")
        self._taint_eviction = EventRecorder(api, clock, "taint-eviction-controller")
        self.logs = ContainerLogs(clock, self._names)
        self._pods_on: dict[str, set[str]] = {}
        self._timers: dict[str, datetime] = {}
        self._ip_ordinals: dict[str, int] = {}
        self._queue: WorkQueue[str] | None = None
        self._pods: Lister | None = None
        self._node_lister: Lister | None = None

    # -- wiring -----------------------------------------------------------------------

    def bind(self, informers: SharedInformers, queue: WorkQueue[str]) -> None:
        self._queue = queue
        pod_informer = informers.informer_for(POD)
        node_informer = informers.informer_for(NODE)
        self._pods = pod_informer.lister
        self._node_lister = node_informer.lister
        pod_informer.add_handler(EventHandler(self._add_pod, self._update_pod, self._delete_pod))
        node_informer.add_handler(EventHandler(self._add_node, self._update_node))

    def _bound(self) -> tuple[WorkQueue[str], Lister, Lister]:
        if self._queue is None or self._pods is None or self._node_lister is None:
            raise RuntimeError("SimulatedKubelets used before bind()")
        return self._queue, self._pods, self._node_lister

    def _add_pod(self, pod: JSON) -> None:
        node_name = node_name_of(pod)
        if node_name in self._names:
            key = object_key(pod)
            self._pods_on.setdefault(node_name, set()).add(key)
            self._bound()[0].add(key)

    def _update_pod(self, old: JSON, new: JSON) -> None:
        if meta(old).get("resourceVersion") != meta(new).get("resourceVersion"):
            self._add_pod(new)

    def _delete_pod(self, pod: JSON) -> None:
        key = object_key(pod)
        self._pods_on.get(node_name_of(pod), set()).discard(key)
        self._timers.pop(key, None)
        self.logs.forget(str(meta(pod).get("uid", "")))

    def _add_node(self, node: JSON) -> None:
        self._wake_node(str(meta(node).get("name", "")))

    def _update_node(self, old: JSON, new: JSON) -> None:
        if is_node_ready(old) != is_node_ready(new):
            self._wake_node(str(meta(new).get("name", "")))

    def _wake_node(self, node_name: str) -> None:
        queue = self._bound()[0]
        for key in sorted(self._pods_on.get(node_name, ())):
            queue.add(key)

    def _arm(self, key: str, at: datetime) -> None:
        """Reconcile ``key`` at ``at``, unless an earlier timer is already armed."""
        now = self._clock.now()
        armed = self._timers.get(key)
        if armed is not None and now < armed <= at:
            return
        self._timers[key] = at
        self._bound()[0].add_after(key, at - now)

    # -- the kubelet's sync -----------------------------------------------------------

    async def reconcile(self, key: str) -> None:
        _, pods, node_lister = self._bound()
        namespace, _, name = key.rpartition("/")
        pod = pods.get(namespace, name)
        if pod is None or node_name_of(pod) not in self._names:
            return
        node_name = node_name_of(pod)
        node = node_lister.get("", node_name)
        if node is None:
            return  # not registered yet: the node's add event wakes its pods
        now = self._clock.now()
        if self._timers.get(key, now) <= now:
            self._timers.pop(key, None)
        ready = is_node_ready(node) and not self._nodes.is_lost(node_name)
        if not ready:
            node = set_node_ready(node, False, now) if is_node_ready(node) else node
            if await self._evict_if_due(key, pod, node, now):
                return
        if ready and kubelet.should_remove(pod):
            await self._remove(pod)  # a lost node's kubelet cannot finish its pods
            return
        profile = profile_for(pod, self._profile)
        status = kubelet.advance_pod(pod, node=node, now=now, profile=profile)
        current = pod
        if status is not None:
            if ready:
                self._add_addresses(pod, status)
            written = await self._write_status(pod, status)
            if written is None:
                return  # gone or changed meanwhile: its next informer event wakes it
            current = written
            await self._record_step(pod, written, ready=ready)
        if ready:
            self.logs.observe(current, now)
        if ready and kubelet.should_remove(current):
            await self._remove(current)
            return
        if ready:
            due = kubelet.next_event_at(current, profile, now)
            if due is not None:
                self._arm(key, due)

    async def _evict_if_due(self, key: str, pod: JSON, node: JSON, now: datetime) -> bool:
        if self._eviction_timeout is None or meta(pod).get("deletionTimestamp"):
            return False
        due = _not_ready_since(node, now) + self._eviction_timeout
        if now < due:
            self._arm(key, due)
            return False
        message = f"Marking for deletion Pod {pod_namespace(pod)}/{meta(pod).get('name', '')}"
        await self._taint_eviction.record(pod, "Normal", "TaintManagerEviction", message)
        await self._remove(pod)
        return True

    def _add_addresses(self, pod: JSON, status: JSON) -> None:
        """hostIP/podIP as the runtime reports them, once: the node's InternalIP, and the
        next address of the node's pod CIDR 10.244.<node index>.0/24 (wrapping around)."""
        if "podIP" in status:
            return
        node_name = node_name_of(pod)
        index = self._nodes.index_of(node_name)
        ordinal = self._ip_ordinals.get(node_name, 0)
        self._ip_ordinals[node_name] = ordinal + 1
        host_ip = f"10.0.0.{index + 1}"
        pod_ip = f"10.244.{index % 256}.{ordinal % 253 + 2}"
        status["hostIP"] = host_ip
        status["hostIPs"] = [{"ip": host_ip}]
        status["podIP"] = pod_ip
        status["podIPs"] = [{"ip": pod_ip}]

    async def _write_status(self, pod: JSON, status: JSON) -> JSON | None:
        body = {**pod, "status": status}  # shallow: the API copies what it is given
        try:
            return await self._api.update(POD, pod_namespace(pod), body, "status")
        except ApiError as err:
            if err.status in (404, 409):
                return None
            raise

    async def _record_step(self, pod: JSON, written: JSON, *, ready: bool) -> None:
        old, new = pod.get("status") or {}, written.get("status") or {}
        if not ready:
            event = node_not_ready_event(old, new)
            if event is not None:
                await self._node_controller.record(
                    written, event.event_type, event.reason, event.message
                )
            return
        for step in container_events(written, old, new):
            await self._kubelet.record(written, step.event_type, step.reason, step.message)

    async def _remove(self, pod: JSON) -> None:
        """Delete the pod for good (the kubelet's grace-0 delete once its containers stopped);
        the uid precondition spares a new pod that took the name meanwhile."""
        uid = meta(pod).get("uid")
        try:
            await self._api.delete(
                POD,
                pod_namespace(pod),
                str(meta(pod).get("name", "")),
                preconditions=Preconditions(uid=str(uid)) if uid else None,
                grace_period_seconds=0,
            )
        except ApiError as err:
            if err.status not in (404, 409):
                raise

    # -- fault injection ----------------------------------------------------------------

    async def crash(
        self,
        namespace: str,
        name: str,
        *,
        container: str | None = None,
        reason: str = "Error",
        exit_code: int = 1,
    ) -> JSON:
        """The pod's running containers (or only ``container``) exit with ``exit_code``;
        the kubelet restarts them with back-off. Returns the written pod."""
        for attempt in range(_CONFLICT_RETRIES):
            pod = await self._api.get(POD, namespace, name)
            status = kubelet.crash(pod, self._clock.now(), reason, exit_code, container)
            body = {**pod, "status": status}
            try:
                written = await self._api.update(POD, namespace, body, "status")
            except ApiError as err:
                if err.status != 409 or attempt == _CONFLICT_RETRIES - 1:
                    raise
                continue
            self.logs.observe(written, self._clock.now())
            return written
        raise AssertionError("unreachable")
