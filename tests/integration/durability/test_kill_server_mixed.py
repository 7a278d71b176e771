"""Creates, updates, status updates and deletes over https survive ``kill -9`` of ``podscale up``.

Each writer walks ReplicaSets through a lifecycle (create, update of spec and labels, update of
``/status``, and for every third one delete), recording what the server acknowledged and, for
the one request in flight when the server died, both outcomes it may have had. The process is
SIGKILLed mid-storm; after every restart on the same data directory each object is in an
acknowledged (or that in-flight) state with the acknowledged resourceVersion, deleted ones are
gone, and the next write gets a higher resourceVersion. A pushed external metric value
acknowledged before the kill is served again after it (``push_journal``). The server runs with
authentication and TLS, as ``podscale up`` does by default, and with no controllers so objects
stay exactly as written.
"""

from __future__ import annotations

import base64
import os
import signal
import ssl
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import yaml

from .up_process import podscale_up

RS_URL = "/apis/apps/v1/namespaces/default/replicasets"
METRIC_URL = "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/{}"
ROUNDS = 3
OPS_PER_ROUND = 150


@dataclass(frozen=True)
class Snapshot:
    """What an object must look like; ``rv`` None when the write was not acknowledged."""

    replicas: int
    stage: str
    status_replicas: int  # 0 until the status write (a new ReplicaSet's default)
    rv: int | None


Expectation = list[Snapshot | None]  # any of these (None: absent) is a correct outcome


def replica_set(name: str, snap: Snapshot) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": name, "labels": {"stage": snap.stage}},
        "spec": {
            "replicas": snap.replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]},
            },
        },
    }


def matches(stored: dict[str, Any] | None, expected: Snapshot | None) -> bool:
    if stored is None or expected is None:
        return stored is None and expected is None
    rv = int(stored["metadata"]["resourceVersion"])
    return (
        stored["spec"]["replicas"] == expected.replicas
        and stored["metadata"].get("labels", {}).get("stage") == expected.stage
        and (stored.get("status") or {}).get("replicas", 0) == expected.status_replicas
        and (expected.rv is None or rv == expected.rv)
    )


@dataclass
class Server:
    process: subprocess.Popen[str]
    url: str
    token: str
    ca_file: Path

    def client(self, timeout: float = 5) -> httpx.Client:
        return httpx.Client(
            base_url=self.url,
            verify=ssl.create_default_context(cafile=str(self.ca_file)),
            headers={"Authorization": f"Bearer {self.token}"},
            timeout=timeout,
        )


@contextmanager
def control_plane(data_dir: Path) -> Iterator[Server]:
    """``podscale up`` (token, TLS, one simulated node, no controllers) on a free port."""
    with podscale_up(data_dir, "--nodes", "1") as (process, url):
        assert url.startswith("https://"), f"podscale up did not announce an https URL: {url!r}"
        config = yaml.safe_load((data_dir / "kubeconfig").read_text())
        ca_file = data_dir.parent / "ca.pem"
        ca_file.write_bytes(
            base64.b64decode(config["clusters"][0]["cluster"]["certificate-authority-data"])
        )
        yield Server(process, url, config["users"][0]["user"]["token"], ca_file)


class Model:
    """Acknowledged outcomes per object, shared by the writers (each owns its objects)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.expected: dict[str, Expectation] = {}
        self.acknowledged = 0
        self.max_rv = 0

    def attempt(self, name: str, outcome: Snapshot | None) -> Expectation:
        """Before a request: either the last state or ``outcome`` is now possible."""
        with self.lock:
            before = self.expected.get(name, [None])
            self.expected[name] = [*before, outcome]
            return before

    def acknowledge(self, name: str, outcome: Snapshot | None) -> None:
        with self.lock:
            self.expected[name] = [outcome]
            self.acknowledged += 1
            if outcome is not None and outcome.rv is not None:
                self.max_rv = max(self.max_rv, outcome.rv)


def lifecycle(client: httpx.Client, model: Model, name: str, delete: bool) -> None:
    """One object's writes; raises ``httpx.HTTPError`` when the server goes away."""
    created = Snapshot(1, "created", 0, None)
    model.attempt(name, created)
    response = client.post(RS_URL, json=replica_set(name, created))
    assert response.status_code == 201, response.text
    obj = response.json()
    rv = int(obj["metadata"]["resourceVersion"])
    model.acknowledge(name, Snapshot(1, "created", 0, rv))

    updated = Snapshot(2, "updated", 0, None)
    model.attempt(name, updated)
    body = replica_set(name, updated)
    body["metadata"]["resourceVersion"] = str(rv)
    response = client.put(f"{RS_URL}/{name}", json=body)
    assert response.status_code == 200, response.text
    obj = response.json()
    rv = int(obj["metadata"]["resourceVersion"])
    model.acknowledge(name, Snapshot(2, "updated", 0, rv))

    status = Snapshot(2, "updated", 2, None)
    model.attempt(name, status)
    obj["status"] = {"replicas": 2, "fullyLabeledReplicas": 2, "observedGeneration": 2}
    response = client.put(f"{RS_URL}/{name}/status", json=obj)
    assert response.status_code == 200, response.text
    rv = int(response.json()["metadata"]["resourceVersion"])
    model.acknowledge(name, Snapshot(2, "updated", 2, rv))

    if delete:
        model.attempt(name, None)
        response = client.delete(f"{RS_URL}/{name}")
        assert response.status_code == 200, response.text
        model.acknowledge(name, None)


def storm(server: Server, prefix: str, model: Model, stop: threading.Event) -> None:
    with server.client() as client:
        for index in range(100_000):
            if stop.is_set():
                return
            try:
                lifecycle(client, model, f"{prefix}-{index}", delete=index % 3 == 0)
            except httpx.HTTPError:
                return  # the server is gone: the model holds both outcomes of that write


def verify(server: Server, model: Model) -> None:
    with server.client(timeout=10) as client:
        items = client.get(RS_URL).json()["items"]
        stored = {item["metadata"]["name"]: item for item in items}
        wrong = {
            name: (stored.get(name), expectation)
            for name, expectation in model.expected.items()
            if not any(matches(stored.get(name), e) for e in expectation)
        }
        assert wrong == {}, f"not in an acknowledged state: {list(wrong.items())[:3]}"
        assert set(stored) <= set(model.expected)  # nothing that was never written
        probe = Snapshot(1, "probe", 0, None)
        response = client.post(RS_URL, json=replica_set(f"probe-{len(model.expected)}", probe))
        assert response.status_code == 201
        assert int(response.json()["metadata"]["resourceVersion"]) > model.max_rv
        client.delete(f"{RS_URL}/probe-{len(model.expected)}")


def push_metric(server: Server, metric: str, value: str) -> None:
    body = {
        "kind": "ExternalMetricValueList",
        "apiVersion": "external.metrics.k8s.io/v1beta1",
        "items": [{"metricName": metric, "value": value}],
    }
    with server.client() as client:
        response = client.put(METRIC_URL.format(metric), json=body)
        assert response.status_code == 200, response.text


def metric_values(server: Server, metric: str) -> list[str]:
    with server.client() as client:
        response = client.get(METRIC_URL.format(metric))
        assert response.status_code == 200, response.text
        return [item["value"] for item in response.json()["items"]]


def test_acknowledged_creates_updates_and_deletes_survive_kill_9(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    model = Model()
    pushed: dict[str, str] = {}
    for round_ in range(ROUNDS):
        with control_plane(data_dir) as server:
            if round_:
                verify(server, model)
                for metric, value in pushed.items():
                    assert metric_values(server, metric) == [value]
            metric = f"durable-{round_}"
            push_metric(server, metric, f"{round_ + 1}500m")
            pushed[metric] = f"{round_ + 1}500m"
            stop = threading.Event()
            writers = [
                threading.Thread(target=storm, args=(server, f"r{round_}w{w}", model, stop))
                for w in range(3)
            ]
            for writer in writers:
                writer.start()
            target = model.acknowledged + OPS_PER_ROUND
            for _ in range(4000):  # bounded wait for a good part of the storm
                if model.acknowledged >= target:
                    break
                threading.Event().wait(0.005)
            os.kill(server.process.pid, signal.SIGKILL)
            server.process.wait(timeout=30)
            stop.set()
            for writer in writers:
                writer.join(timeout=30)
            assert model.acknowledged >= OPS_PER_ROUND * (round_ + 1) // 2
    deleted = [name for name, e in model.expected.items() if e == [None]]
    updated = [n for n, e in model.expected.items() if e[-1] is not None and e[-1].status_replicas]
    assert deleted, "the storm deleted nothing"
    assert updated, "the storm wrote no status"
    with control_plane(data_dir) as server:
        verify(server, model)
        for metric, value in pushed.items():
            assert metric_values(server, metric) == [value]
