"""Two ``podscale controller-manager`` processes against ``podscale up`` playing the cluster.

``podscale up --controllers=''`` is the API server and the simulated nodes and kubelets
(https, bearer token, an audit log); two real controller-manager processes run the
workload controllers, the HPA controller, the CronHPA controller and KEDA's operator, with
short leader-election timings. The test shows, on wall time with bounded polls:

- exactly one process holds the Lease (its ``holderIdentity`` is the identity that process
  announced) and only its ``/metrics`` says ``leader_election_master_status 1``;
- through that leader an HPA scales a loaded Deployment, a CronHPA job sets a replica
  count, and a ScaledObject with a ``podscale-push`` trigger (its metric pushed to the API
  server with ``kubectl replace --raw``) activates its target and its generated HPA scales
  it on the metric KEDA's operator answers in-process (``controllermanager.metrics``);
- ``kill -9`` of the leader: the other process holds the Lease within the lease duration
  (plus two jittered retry periods and slack for a loaded machine, ``TAKEOVER_BOUND``),
  and the HPA and KEDA's loop keep scaling when the load and the metric change;
- from the audit log: every update or patch of a ``/scale`` subresource was sent (its
  ``userAgent`` names the sender's identity) by the process that held the Lease then.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from podscale.api.kinds import kind_for
from podscale.apiserver.audit.reader import read_events
from podscale.client.http import ApiError, HttpApi
from podscale.client.kubeconfig import connection_from_kubeconfig
from podscale.client.leaderelection.elector import JITTER_FACTOR
from podscale.controllers.cronhpa.kind import CRD_NAME as CRONHPA_CRD
from podscale.controllers.cronhpa.kind import CRONHPA as CRONHPA_KIND
from podscale.controllers.keda.kind import CRD_NAME as KEDA_CRD
from podscale.controllers.keda.kind import SCALED_OBJECT as SCALED_OBJECT_KIND

# The real-kubectl suite's ``podscale up`` process harness (a sibling package of tests).
from ..kubectl.conftest import (  # noqa: TID252
    ControlPlaneProcess,
    Kubectl,
    LineReader,
    find_kubectl,
    start_control_plane,
)
from .test_controller_manager_process import free_port

DEPLOYMENT = kind_for("apps/v1", "Deployment")
HPA = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")
LEASE = kind_for("coordination.k8s.io/v1", "Lease")
CRONHPA = CRONHPA_KIND
SCALED_OBJECT = SCALED_OBJECT_KIND
LEASE_NAMESPACE = "kube-system"
LEASE_NAME = "podscale-controller-manager"
LEASE_SECONDS = 4.0
RETRY_SECONDS = 1.0
# The follower acquires once it has not seen the record change for a lease duration. It
# looks once per jittered retry period (client-go's JitterUntil: 1 to 2.2 periods), so it
# may see the last renewal one period late and try one period after the lease ran out;
# the rest is slack for two cores shared by many processes.
TAKEOVER_BOUND = LEASE_SECONDS + 2 * RETRY_SECONDS * (1 + JITTER_FACTOR) + 2.0
CONTROLLERS = (
    "replicaset-controller,deployment-controller,horizontal-pod-autoscaler-controller,"
    "cronhpa-controller,keda-operator"
)
WAIT_SECONDS = 60.0
POLL_SECONDS = 0.25
METRIC = "queue_messages_ready"
PUSH_PATH = f"/apis/external.metrics.k8s.io/v1beta1/namespaces/default/{METRIC}"
IDENTITY_LINE = re.compile(r"leader election identity (\S+)")
AGENT = re.compile(r"^podscale-controller-manager/\S+ \((\S+)\)$")


def load(rate: int) -> str:
    """``rate`` requests/s at 10m CPU each: ``rate / 5`` pods at the 50% of 100m target."""
    return json.dumps(
        {
            "load": {"type": "constant", "rate": rate},
            "containers": [{"name": "web", "perRequest": {"cpu": "10m"}}],
        }
    )


def deployment(name: str, replicas: int, annotations: dict[str, str] | None = None) -> Any:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "annotations": annotations or {}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {
                    "containers": [
                        {
                            "name": "web",
                            "image": "nginx:1.25",
                            "resources": {"requests": {"cpu": "100m"}},
                        }
                    ]
                },
            },
        },
    }


def target(name: str) -> dict[str, str]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "name": name}


HPA_WEB = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "web"},
    "spec": {
        "scaleTargetRef": target("web"),
        "minReplicas": 1,
        "maxReplicas": 8,
        "metrics": [
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 50},
                },
            }
        ],
    },
}
CRONHPA_BATCH = {
    "apiVersion": "autoscaling.alibabacloud.com/v1beta1",
    "kind": "CronHorizontalPodAutoscaler",
    "metadata": {"name": "batch"},
    # go-cron with seconds: the job fires every other second, so it runs soon after apply.
    "spec": {
        "scaleTargetRef": target("batch"),
        "jobs": [{"name": "two", "schedule": "*/2 * * * * *", "targetSize": 2}],
    },
}
SCALED_WORKER = {
    "apiVersion": "keda.sh/v1alpha1",
    "kind": "ScaledObject",
    "metadata": {"name": "worker"},
    "spec": {
        "scaleTargetRef": {"name": "worker"},
        "pollingInterval": 1,
        "cooldownPeriod": 3,
        "minReplicaCount": 0,
        "maxReplicaCount": 5,
        "triggers": [{"type": "podscale-push", "metadata": {"metricName": METRIC, "value": "5"}}],
    },
}


@dataclass
class Manager:
    """One controller-manager process: its health port and leader-election identity."""

    process: subprocess.Popen[str]
    reader: LineReader
    port: int
    identity: str = ""

    def read_identity(self) -> str:
        deadline = time.monotonic() + WAIT_SECONDS
        seen: list[str] = []
        while (line := self.reader.next(deadline)) is not None:
            seen.append(line)
            found = IDENTITY_LINE.search(line)
            if found:
                self.identity = found.group(1)
                return self.identity
        pytest.fail("no leader election identity announced:\n" + "".join(seen))

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=15)


def start_manager(kubeconfig: Path) -> Manager:
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "podscale",
        "controller-manager",
        "--kubeconfig",
        str(kubeconfig),
        f"--controllers={CONTROLLERS}",
        "--horizontal-pod-autoscaler-sync-period=1s",
        f"--leader-elect-lease-duration={LEASE_SECONDS:g}s",
        "--leader-elect-renew-deadline=3s",
        f"--leader-elect-retry-period={RETRY_SECONDS:g}s",
        f"--leader-elect-resource-namespace={LEASE_NAMESPACE}",
        "--bind-address=127.0.0.1",
        f"--secure-port={port}",
        "--insecure-serving",
    ]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    return Manager(process, LineReader(process), port)


@pytest.fixture
def kubectl_path() -> str:
    binary = find_kubectl()
    if binary is None:
        pytest.skip("kubectl is not installed: the test pushes a metric with kubectl")
    return binary


@pytest.fixture
def plane(tmp_path: Path) -> Iterator[ControlPlaneProcess]:
    started = start_control_plane(
        tmp_path / "data",
        auth=True,
        workloads=True,
        extra=(
            "--controllers=",
            "--metric-resolution=1s",
            "--audit-log-path",
            str(tmp_path / "audit.log"),
            "--install-crd",
            CRONHPA_CRD,
            "--install-crd",
            KEDA_CRD,
        ),
    )
    try:
        yield started
    finally:
        started.stop(signal.SIGKILL)


@pytest.fixture
def managers(plane: ControlPlaneProcess) -> Iterator[list[Manager]]:
    started = [start_manager(plane.kubeconfig), start_manager(plane.kubeconfig)]
    try:
        yield started
    finally:
        for manager in started:
            manager.kill()


async def until(what: str, check: Any, timeout: float = WAIT_SECONDS) -> Any:
    """Poll the coroutine function ``check`` until it returns something truthy (bounded)."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = await check()
        except (ApiError, httpx.HTTPError) as err:
            last = err
        else:
            if last:
                return last
        await asyncio.sleep(POLL_SECONDS)
    pytest.fail(f"timed out waiting for {what}; last: {last!r}")


async def master_status(manager: Manager) -> float | None:
    """``leader_election_master_status`` of ``manager``'s /metrics (None: no answer)."""
    url = f"http://127.0.0.1:{manager.port}/metrics"
    try:
        async with httpx.AsyncClient(timeout=5) as client:
            text = (await client.get(url)).text
    except httpx.HTTPError:
        return None
    for line in text.splitlines():
        if line.startswith(f'leader_election_master_status{{name="{LEASE_NAME}"}}'):
            return float(line.split()[-1])
    return None


async def holder(api: HttpApi) -> str:
    lease = await api.get(LEASE, LEASE_NAMESPACE, LEASE_NAME)
    return str((lease.get("spec") or {}).get("holderIdentity") or "")


async def replicas(api: HttpApi, name: str) -> int:
    scale = await api.get(DEPLOYMENT, "default", name, "scale")
    return int(scale["spec"].get("replicas") or 0)


async def at_least(api: HttpApi, name: str, wanted: int) -> int:
    count = await replicas(api, name)
    return count if count >= wanted else 0


async def sole_leader(api: HttpApi, managers: list[Manager], alive: list[Manager]) -> Manager:
    """The manager holding the Lease once every live one's /metrics agrees with it."""

    async def agreed() -> Manager | None:
        held = await holder(api)
        leaders = [m for m in managers if m.identity == held]
        if len(leaders) != 1 or leaders[0] not in alive:
            return None
        statuses = [await master_status(m) for m in alive]
        wanted = [1.0 if m is leaders[0] else 0.0 for m in alive]
        return leaders[0] if statuses == wanted else None

    found: Manager = await until("exactly one leader", agreed)
    return found


def push(kubectl: Kubectl, value: int) -> None:
    """PUT the queue length as the external metric's only series (podscale's push)."""
    body = {
        "kind": "ExternalMetricValueList",
        "apiVersion": "external.metrics.k8s.io/v1beta1",
        "metadata": {},
        "items": [{"metricName": METRIC, "metricLabels": {}, "value": str(value)}],
    }
    name = kubectl.write("push.json", json.dumps(body))
    kubectl.ok("replace", "--raw", PUSH_PATH, "-f", name)


def micro_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@dataclass(frozen=True)
class Timeline:
    """The first leader, when it took the Lease, and when the second one took it."""

    first: str
    first_acquired: datetime
    second: str
    second_acquired: datetime


def scale_writes(audit: Path) -> list[tuple[str, datetime, str]]:
    """(verb, received, userAgent) of every update/patch of a /scale subresource."""
    writes = []
    for event in read_events(audit):
        ref = event.get("objectRef") or {}
        if (
            event.get("stage") == "ResponseComplete"
            and ref.get("subresource") == "scale"
            and event.get("verb") in ("update", "patch")
        ):
            when = micro_time(event["requestReceivedTimestamp"])
            writes.append((f"{event['verb']} {ref.get('name')}", when, event.get("userAgent", "")))
    return writes


def check_audit(audit: Path, timeline: Timeline) -> dict[str, int]:
    """Every /scale write came from the Lease holder of its moment; writes per identity."""
    counts = {timeline.first: 0, timeline.second: 0}
    for what, when, agent in scale_writes(audit):
        matched = AGENT.match(agent)
        assert matched, f"{what} at {when} from a stranger: {agent!r}"
        sender = matched.group(1)
        assert sender in counts, f"{what} at {when} from an unknown identity {sender}"
        if sender == timeline.first:
            assert timeline.first_acquired <= when < timeline.second_acquired, (
                f"{what} at {when} by {sender}, which did not hold the Lease then"
            )
        else:
            assert when >= timeline.second_acquired, (
                f"{what} at {when} by {sender} before it took the Lease"
            )
        counts[sender] += 1
    return counts


async def scenario(
    plane: ControlPlaneProcess, managers: list[Manager], kubectl: Kubectl, audit: Path
) -> tuple[Timeline, float]:
    async with HttpApi(connection_from_kubeconfig(str(plane.kubeconfig))) as api:
        leader = await sole_leader(api, managers, managers)
        lease = await api.get(LEASE, LEASE_NAMESPACE, LEASE_NAME)
        first_acquired = micro_time(lease["spec"]["acquireTime"])
        assert lease["spec"]["leaseDurationSeconds"] == int(LEASE_SECONDS)

        push(kubectl, 0)
        await api.create(
            DEPLOYMENT, "default", deployment("web", 1, {"load.podscale.dev/v1alpha1": load(20)})
        )
        await api.create(HPA, "default", HPA_WEB)
        await api.create(DEPLOYMENT, "default", deployment("batch", 1))
        await api.create(CRONHPA, "default", CRONHPA_BATCH)
        await api.create(DEPLOYMENT, "default", deployment("worker", 0))
        await api.create(SCALED_OBJECT, "default", SCALED_WORKER)

        await until("the HPA to scale web to 3+", lambda: at_least(api, "web", 3))
        await until("the CronHPA to set batch to 2", lambda: at_least(api, "batch", 2))

        async def keda_ready() -> bool:
            so = await api.get(SCALED_OBJECT, "default", "worker")
            conditions = (so.get("status") or {}).get("conditions") or []
            return any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)

        await until("the ScaledObject to be Ready", keda_ready)
        # 12 queued at 5 per replica: KEDA activates 0 -> 1, its HPA goes 1 -> 3.
        push(kubectl, 12)
        await until("KEDA to scale worker to 3", lambda: at_least(api, "worker", 3))

        follower = next(m for m in managers if m is not leader)
        killed = time.monotonic()
        leader.kill()

        async def taken() -> bool:
            return await holder(api) == follower.identity

        await until("the follower to take the Lease", taken, timeout=TAKEOVER_BOUND + 10)
        takeover = time.monotonic() - killed
        assert await sole_leader(api, managers, [follower]) is follower
        lease = await api.get(LEASE, LEASE_NAMESPACE, LEASE_NAME)
        second_acquired = micro_time(lease["spec"]["acquireTime"])

        # The new leader's HPA follows the load up: 40/s is eight pods' worth.
        await api.patch(
            DEPLOYMENT,
            "default",
            "web",
            {"metadata": {"annotations": {"load.podscale.dev/v1alpha1": load(40)}}},
        )
        await until("the HPA to scale web to 6+", lambda: at_least(api, "web", 6))
        # And KEDA's loop, now in the new leader, follows the metric: 20 queued -> 4.
        push(kubectl, 20)
        await until("KEDA to scale worker to 4", lambda: at_least(api, "worker", 4))
    timeline = Timeline(leader.identity, first_acquired, follower.identity, second_acquired)
    return timeline, takeover


def test_two_controller_managers_elect_one_and_hand_over_on_kill(
    plane: ControlPlaneProcess,
    managers: list[Manager],
    kubectl_path: str,
    tmp_path: Path,
) -> None:
    identities = {manager.read_identity() for manager in managers}
    assert len(identities) == 2
    home = tmp_path / "home"
    home.mkdir()
    kubectl = Kubectl(kubectl_path, plane.kubeconfig, home, tmp_path)
    audit = tmp_path / "audit.log"
    timeline, takeover = asyncio.run(scenario(plane, managers, kubectl, audit))
    print(f"takeover after kill -9: {takeover:.2f}s (bound {TAKEOVER_BOUND:.1f}s)")
    assert takeover <= TAKEOVER_BOUND
    counts = check_audit(audit, timeline)
    print(f"/scale writes per identity: {counts}")
    assert counts[timeline.first] > 0, counts
    assert counts[timeline.second] > 0, counts
