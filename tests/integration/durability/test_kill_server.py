"""Every acknowledged write survives ``kill -9`` of a real ``podscale up`` mid-write-storm.

Writers create ReplicaSets over HTTP as fast as the server answers; the server process is
killed with SIGKILL while they run. After a restart on the same data directory, every
create that got a 201 is there with the resourceVersion it was acknowledged with, and the
next write gets a resourceVersion above all of them (revisions never go backwards).
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from contextlib import AbstractContextManager
from pathlib import Path

import httpx

from .up_process import podscale_up

RS_URL = "/apis/apps/v1/namespaces/default/replicasets"


def replica_set(name: str) -> dict[str, object]:
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": name},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]},
            },
        },
    }


def control_plane(data_dir: Path) -> AbstractContextManager[tuple[subprocess.Popen[str], str]]:
    """``podscale up --no-auth`` on a free loopback port; yields the process and its URL."""
    return podscale_up(data_dir, "--no-auth", "--no-simulate")


def storm(url: str, prefix: str, acknowledged: dict[str, int], stop: threading.Event) -> None:
    """Create objects until stopped or the server dies; record each 201's resourceVersion."""
    with httpx.Client(base_url=url, timeout=5) as client:
        for index in range(100_000):
            if stop.is_set():
                return
            name = f"{prefix}-{index}"
            try:
                response = client.post(RS_URL, json=replica_set(name))
            except httpx.HTTPError:
                return  # the server is gone: anything unacknowledged may be lost
            if response.status_code == 201:
                acknowledged[name] = int(response.json()["metadata"]["resourceVersion"])


def test_acknowledged_writes_survive_kill_9(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    acknowledged: dict[str, int] = {}
    for round_ in range(3):
        with control_plane(data_dir) as (process, url):
            stop = threading.Event()
            writers = [
                threading.Thread(target=storm, args=(url, f"r{round_}w{w}", acknowledged, stop))
                for w in range(3)
            ]
            for writer in writers:
                writer.start()
            # Let the storm run until a good number of writes were acknowledged (bounded).
            target = len(acknowledged) + 60
            for _ in range(2000):
                if len(acknowledged) >= target:
                    break
                threading.Event().wait(0.005)
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
            stop.set()
            for writer in writers:
                writer.join(timeout=30)
        assert len(acknowledged) >= 60 * (round_ + 1) * 0.5
    with control_plane(data_dir) as (_, url), httpx.Client(base_url=url, timeout=10) as client:
        listed = client.get(RS_URL).json()
        stored = {
            item["metadata"]["name"]: int(item["metadata"]["resourceVersion"])
            for item in listed["items"]
        }
        missing = sorted(set(acknowledged) - set(stored))
        assert missing == [], f"acknowledged but lost: {missing[:10]}"
        assert all(stored[name] == rv for name, rv in acknowledged.items())
        created = client.post(RS_URL, json=replica_set("after-restarts"))
        assert created.status_code == 201
        assert int(created.json()["metadata"]["resourceVersion"]) > max(acknowledged.values())
