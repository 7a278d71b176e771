"""Both replicas of ``podscale controller-manager`` answer KEDA's external metrics.

``podscale up`` plays the cluster (workload controllers only, KEDA's CRD installed); two
controller-manager processes run the keda-operator under leader election, each with its
adapter port, as the manifests' two replicas behind one Service. Once the leader's operator
has reconciled a ScaledObject (its status names the external metric), the replica that does
NOT lead answers that metric on its adapter with the same value as the leader, and is
ready: the kube-aggregator may send the generated HPA's read to either. A cron trigger
needs no source outside the processes.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from podscale.api.kinds import kind_for
from podscale.client.http import ApiError, HttpApi
from podscale.client.kubeconfig import connection_from_kubeconfig
from podscale.controllers.keda.kind import SCALED_OBJECT as KEDA_SCALED_OBJECT

from ..kubectl.conftest import (  # noqa: TID252
    ControlPlaneProcess,
    LineReader,
    start_control_plane,
)
from .test_controller_manager_process import free_port

DEPLOYMENT = kind_for("apps/v1", "Deployment")
SCALED_OBJECT = KEDA_SCALED_OBJECT
WAIT_SECONDS = 60.0
EXTERNAL = "/apis/external.metrics.k8s.io/v1beta1/namespaces/default"


def deployment() -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]},
            },
        },
    }


def scaled_object() -> dict[str, Any]:
    return {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": "web"},
        "spec": {
            "scaleTargetRef": {"name": "web"},
            "minReplicaCount": 1,
            "maxReplicaCount": 10,
            "triggers": [
                {
                    "type": "cron",
                    "metadata": {
                        "timezone": "UTC",
                        "start": "0 6 * * *",
                        "end": "0 20 * * *",
                        "desiredReplicas": "7",
                    },
                }
            ],
        },
    }


@pytest.fixture
def plane(tmp_path: Path) -> Iterator[ControlPlaneProcess]:
    started = start_control_plane(
        tmp_path / "data",
        auth=True,
        workloads=True,
        extra=("--controllers=replicaset,deployment", "--install-crd=scaledobjects.keda.sh"),
    )
    try:
        yield started
    finally:
        started.stop()


class Replica:
    def __init__(self, kubeconfig: Path) -> None:
        self.port = free_port()
        self.adapter_port = free_port()
        command = [
            sys.executable,
            "-m",
            "podscale",
            "controller-manager",
            "--leader-elect=true",
            "--kubeconfig",
            str(kubeconfig),
            "--controllers=keda-operator",
            "--bind-address=127.0.0.1",
            f"--secure-port={self.port}",
            "--insecure-serving",
            f"--adapter-port={self.adapter_port}",
        ]
        self.process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.reader = LineReader(self.process)

    def get(self, path: str) -> httpx.Response:
        return httpx.get(f"http://127.0.0.1:{self.port}{path}", timeout=5)

    def leading(self) -> bool | None:
        try:
            text = self.get("/metrics").text
        except httpx.HTTPError:
            return None
        for line in text.splitlines():
            if line.startswith("leader_election_master_status{"):
                return line.split()[-1] == "1.0"
        return None

    def metric(self, name: str) -> httpx.Response:
        url = f"https://127.0.0.1:{self.adapter_port}{EXTERNAL}/{name}"
        params = {"labelSelector": "scaledobject.keda.sh/name=web"}
        return httpx.get(url, params=params, verify=False, timeout=5)

    def stop(self) -> str:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return self.reader.rest(timeout=5)


async def reconciled_metric(kubeconfig: Path) -> str:
    """Create the target and the ScaledObject; the external metric name once the leader's
    operator has written it to the status."""
    async with HttpApi(connection_from_kubeconfig(str(kubeconfig)), qps=-1) as api:
        await api.create(DEPLOYMENT, "default", deployment())
        await api.create(SCALED_OBJECT, "default", scaled_object())
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            try:
                so = await api.get(SCALED_OBJECT, "default", "web")
            except ApiError:
                so = {}
            names = (so.get("status") or {}).get("externalMetricNames") or []
            if names:
                return str(names[0])
            await asyncio.sleep(0.5)
    pytest.fail(f"the leader never reconciled the ScaledObject: {so}")


def test_the_replica_that_does_not_lead_answers_keda_metrics(plane: ControlPlaneProcess) -> None:
    replicas = [Replica(plane.kubeconfig), Replica(plane.kubeconfig)]
    try:
        metric = asyncio.run(reconciled_metric(plane.kubeconfig))
        deadline = time.monotonic() + WAIT_SECONDS
        roles = [r.leading() for r in replicas]
        while sorted(map(str, roles)) != ["False", "True"] and time.monotonic() < deadline:
            time.sleep(0.5)
            roles = [r.leading() for r in replicas]
        assert sorted(map(str, roles)) == ["False", "True"], roles
        leader, follower = replicas if roles[0] else replicas[::-1]
        answer = follower.metric(metric)
        while answer.status_code != 200 and time.monotonic() < deadline:
            time.sleep(0.5)
            answer = follower.metric(metric)
        assert answer.status_code == 200, answer.text
        items = answer.json()["items"]
        assert [item["metricName"] for item in items] == [metric]
        assert items[0]["value"] == leader.metric(metric).json()["items"][0]["value"]
        assert items[0]["value"] in ("1", "7")
        assert follower.get("/readyz").text == "ok"
    finally:
        outputs = [r.stop() for r in replicas]
    for replica, output in zip(replicas, outputs, strict=True):
        assert replica.process.returncode == 0, output
