"""Simulated nodes: v1 Node objects registered through the API and kept Ready by heartbeats.

What each node's kubelet does for its Node object: register it (capacity and allocatable
cpu, memory and pods; the ``kubernetes.io/hostname`` label; an InternalIP address; a Ready
condition), then report status every ``heartbeat`` (upstream's nodeStatusReportFrequency,
5 minutes, since with node leases the kubelet rewrites an unchanged status that rarely).
``lose`` plays a dead kubelet as the node lifecycle controller sees it: heartbeats stop and
Ready turns Unknown at once (the 40 s grace period is not waited out); ``restore`` brings the
node back.

A deleted Node is treated as upstream's kubelet treats it: the kubelet registers its Node
once per process and never again (kubernetes/kubernetes#71398 and #115761; the pull
requests that would re-register were closed unmerged), so its status updates fail with
NotFound and it keeps retrying every ``heartbeat``, logging it (once per loss here), while
its pods run on. Upstream's pod GC then deletes the pods bound to the missing node
(``podscale.controllers.podgc``) and their owners replace them on the remaining nodes. If
the Node is created again (``kubectl create``), the next heartbeat finds it and reports
status again; restarting ``podscale up`` registers it anew, as a kubelet restart does. Any
other failed status update of one node is logged and retried on the next heartbeat,
without holding up the other nodes.

The Node documents are built by the pure ``podscale.runtime.simulated.node_objects``; the pods on a
lost node are handled by ``kubelets``. Status goes through the ``status`` subresource.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Final

from podscale.api.version import KUBERNETES_VERSION
from podscale.client.http import ApiError
from podscale.controllers.runtime_api import ControllerApi
from podscale.runtime.simulated.cluster_api import NODE
from podscale.runtime.simulated.node_objects import node, set_node_ready
from podscale.store.interface import Clock

__all__ = [
    "NODE_STATUS_REPORT_FREQUENCY",
    "NodeSpec",
    "SimulatedNodes",
    "default_node_specs",
    "node_info",
]

_LOG = logging.getLogger(__name__)
JSON = dict[str, Any]
NODE_STATUS_REPORT_FREQUENCY: Final = timedelta(minutes=5)
# Namespace of the node ids derived from node names (uuid5), so a node keeps its ids
# across restarts and seeds, as a real machine does.
_NODE_ID_NAMESPACE: Final = uuid.UUID("5b0f8c2e-4d1a-5e8b-9c3f-706f64736361")
_CONFLICT_RETRIES: Final = 3


@dataclass(frozen=True, slots=True)
class NodeSpec:
    """One simulated node: its name and capacity (allocatable equals capacity)."""

    name: str
    cpu: str = "4"
    memory: str = "8Gi"
    pods: int = 110
    labels: Mapping[str, str] = field(default_factory=dict)


def default_node_specs(count: int = 3) -> tuple[NodeSpec, ...]:
    """``count`` identical nodes ``node-1`` ... ``node-<count>`` (4 CPU, 8Gi, 110 pods)."""
    return tuple(NodeSpec(f"node-{index}") for index in range(1, count + 1))


def node_info(name: str) -> JSON:
    """``status.nodeInfo`` as a kubelet reports it: every field upstream's NodeSystemInfo
    requires (generated clients such as kubernetes_asyncio refuse a Node without them), the
    ids stable per node name and the kubelet at the API server's own release."""
    machine = uuid.uuid5(_NODE_ID_NAMESPACE, f"machine/{name}")
    return {
        "machineID": machine.hex,
        "systemUUID": str(uuid.uuid5(_NODE_ID_NAMESPACE, f"system/{name}")).upper(),
        "bootID": str(uuid.uuid5(_NODE_ID_NAMESPACE, f"boot/{name}")),
        "kernelVersion": "6.1.0-podscale",
        "osImage": "podscale simulated node",
        "containerRuntimeVersion": "simulated://1.0.0",
        "kubeletVersion": KUBERNETES_VERSION,
        # Deprecated upstream (kube-proxy may not run; kubelets then report the kubelet's
        # version) but still required by the generated models.
        "kubeProxyVersion": KUBERNETES_VERSION,
        "operatingSystem": "linux",
        "architecture": "amd64",
    }


def _with_host_details(obj: JSON, index: int) -> JSON:
    """Addresses and ``nodeInfo`` as a kubelet reports them (``kubectl get nodes -o wide``)."""
    name = str(obj["metadata"]["name"])
    obj["status"]["addresses"] = [
        {"type": "InternalIP", "address": f"10.0.0.{index + 1}"},
        {"type": "Hostname", "address": name},
    ]
    obj["status"]["nodeInfo"] = node_info(name)
    return obj


class SimulatedNodes:
    """Registers the nodes of ``specs`` and keeps their status fresh until cancelled."""

    def __init__(
        self,
        api: ControllerApi,
        clock: Clock,
        specs: Sequence[NodeSpec],
        *,
        heartbeat: timedelta = NODE_STATUS_REPORT_FREQUENCY,
    ) -> None:
        names = [spec.name for spec in specs]
        if len(set(names)) != len(names):
            raise ValueError("simulated node names must be unique")
        if heartbeat <= timedelta(0):
            raise ValueError("heartbeat must be positive")
        self._api = api
        self._clock = clock
        self._specs = tuple(specs)
        self._names = frozenset(names)  # the specs never change after construction
        self._heartbeat = heartbeat
        self._lost: set[str] = set()
        self._registered = asyncio.Event()
        self._registered_names: set[str] = set()  # registration happens once per node
        self._missing: set[str] = set()  # registered, then deleted from the API

    @property
    def names(self) -> frozenset[str]:
        return self._names

    def index_of(self, name: str) -> int:
        """The node's position in the specs (it numbers the node's and its pods' IPs)."""
        for index, spec in enumerate(self._specs):
            if spec.name == name:
                return index
        raise KeyError(name)

    def is_lost(self, name: str) -> bool:
        return name in self._lost

    def is_missing(self, name: str) -> bool:
        """The node's Node object was deleted after registration (see the module doc)."""
        return name in self._missing

    async def wait_registered(self) -> None:
        await self._registered.wait()

    async def run(self) -> None:
        """Register every node, then report status every ``heartbeat`` (until cancelled).
        Run again after a failure (under a supervisor), it registers only the nodes that
        were not registered yet, as kubelets that kept running would."""
        for index, spec in enumerate(self._specs):
            if spec.name not in self._registered_names:
                await self._register(index, spec)
                self._registered_names.add(spec.name)
        self._registered.set()
        while True:
            await asyncio.sleep(self._heartbeat.total_seconds())
            for spec in self._specs:
                if spec.name not in self._lost:
                    await self._heartbeat_once(spec.name)

    async def _heartbeat_once(self, name: str) -> None:
        try:
            await self._report(name, ready=True)
        except ApiError as err:
            if err.status != 404:
                # upstream: "Unable to update node status"; retried on the next heartbeat
                _LOG.warning("unable to update node status of %s: %s", name, err)
                return
            if name not in self._missing:
                self._missing.add(name)
                _LOG.warning(
                    "node %s not found: its simulated kubelet keeps running but does not "
                    "register again (as upstream's kubelet); pod GC removes its pods",
                    name,
                )
            return
        if name in self._missing:
            self._missing.discard(name)
            _LOG.info("node %s exists again: status updates resume", name)

    async def lose(self, name: str) -> None:
        """The node's kubelet stops reporting: Ready becomes Unknown, heartbeats stop."""
        self.index_of(name)
        self._lost.add(name)
        await self._report(name, ready=False)

    async def restore(self, name: str) -> None:
        """The node's kubelet is back: Ready True again and heartbeats resume."""
        self.index_of(name)
        self._lost.discard(name)
        await self._report(name, ready=True)

    async def _register(self, index: int, spec: NodeSpec) -> None:
        built = node(
            spec.name,
            spec.cpu,
            spec.memory,
            spec.pods,
            labels=dict(spec.labels),
            now=self._clock.now(),
        )
        try:
            await self._api.create(NODE, None, _with_host_details(built, index))
        except ApiError as err:
            if err.status != 409:
                raise
            # Already registered (a restart over a kept store): report Ready again.
            await self._report(spec.name, ready=True)

    async def _report(self, name: str, *, ready: bool) -> None:
        """Write the Ready condition with a fresh heartbeat; a conflict re-reads and retries."""
        for attempt in range(_CONFLICT_RETRIES):
            current = await self._api.get(NODE, None, name)
            body = set_node_ready(current, ready, self._clock.now())
            try:
                await self._api.update(NODE, None, body, "status")
                return
            except ApiError as err:
                if err.status != 409 or attempt == _CONFLICT_RETRIES - 1:
                    raise
