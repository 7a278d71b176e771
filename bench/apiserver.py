"""API server throughput and latency over loopback HTTP, plus the in-process transport.

The server runs in a subprocess (``--serve``, the real ``create_app`` on a durable
``SqliteStore`` through ``podscale.apiserver.http.server.start_in_thread``) so client and server
each get a core of the 2-core machines. Clients are asyncio + httpx with keep-alive
connections and several concurrent workers; the GET and PUT phases spread their workers over
``--clients`` processes, since httpx spends more CPU per request than the server does.
Measured:
  - single-object GET and PUT (each PUT commits a SQLite transaction) throughput, p50/p99;
  - the same GET and PUT on a custom resource (``Shard``, a CRD with nested objects,
    int-or-string, preserve-unknown-fields, a list-map, defaults and CEL rules, so every
    PUT is pruned, defaulted, validated against the schema and its rules), and the ratio
    of each to the Pod's (goal: the custom one within 1.5x of the built-in one);
  - LIST of 1,000 pods;
  - watch delivery latency with 100 watchers while a writer PATCHes at 200 writes/s (from
    the moment the write is sent to the moment a watcher has decoded the event);
  - ``podscale.client.inprocess.InProcessApi`` GET rate, when that module exists;
  - fairness: the latency of a small request (GET one pod, on a kept-alive connection and on
    a new connection each time) while 10 clients LIST 5,000 pods back to back, and while 200
    watches replay those 5,000 pods from resourceVersion "" again and again (goal: small
    request p99 < 100 ms). The load runs in its own client process; each LIST and replay is
    checked to carry all 5,000 pods, and the bench exits non-zero when one does not.
Server and client CPU time per phase are reported so a miss can be placed on one side.

Usage: python3 bench/apiserver.py [--seconds 5] [--workers 8] [--clients 2] [--json]
       [--synchronous NORMAL|FULL]   # SQLite: survive kill -9 (default) or power loss too
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson

from engine import machine  # bench/ is on sys.path when run as a script

JSON = dict[str, Any]
GOALS = {
    "custom_ratio": 1.5,  # a custom resource's GET/PUT at most this much slower than a Pod's
    "get": 2_000.0,
    "put": 500.0,
    "p99_ms": 50.0,
    "watch_p99_ms": 100.0,
    "inproc": 20_000.0,
    "fair_p99_ms": 100.0,
}
BIG = 5_000  # pods in the namespace the fairness phases LIST and replay
SENT = "bench.podscale.io/sent"
# Options only the server and client subprocesses use.
_INTERNAL = frozenset(
    {"serve", "client", "url", "names", "start_at", "since", "expected", "load", "concurrency"}
)


def make_pod(name: str, namespace: str) -> JSON:
    """A pod as a controller would write it: labels, requests, a few annotations."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {"app": "web", "tier": "frontend", "pod-template-hash": "5d4f8b7c9"},
            "annotations": {SENT: "0"},
        },
        "spec": {
            "containers": [
                {
                    "name": "web",
                    "image": "nginx:1.25",
                    "ports": [{"containerPort": 80, "protocol": "TCP"}],
                    "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
                }
            ],
            "nodeName": "node-1",
        },
    }


def pods_path(namespace: str, name: str | None = None) -> str:
    path = f"/api/v1/namespaces/{namespace}/pods"
    return f"{path}/{name}" if name else path


# -- the custom resource: a CRD as an operator would ship one ------------------------------
CUSTOM_GROUP = "bench.podscale.io"
_INT_OR_STRING: JSON = {
    "x-kubernetes-int-or-string": True,
    "anyOf": [{"type": "integer"}, {"type": "string"}],
}
_QUANTITIES: JSON = {"type": "object", "additionalProperties": _INT_OR_STRING}
SHARD_SCHEMA: JSON = {
    "type": "object",
    "required": ["spec"],
    "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"type": "object"},
        "spec": {
            "type": "object",
            "required": ["image", "maxReplicas"],
            "x-kubernetes-validations": [
                {
                    "rule": "self.replicas <= self.maxReplicas",
                    "messageExpression": "'replicas must not exceed ' + string(self.maxReplicas)",
                    "fieldPath": ".replicas",
                },
            ],
            "properties": {
                "image": {"type": "string", "minLength": 1},
                "replicas": {"type": "integer", "format": "int32", "minimum": 0, "default": 1},
                "maxReplicas": {"type": "integer", "format": "int32", "minimum": 1},
                "storageClass": {
                    "type": "string",
                    "x-kubernetes-validations": [
                        {"rule": "self == oldSelf", "message": "storageClass is immutable"}
                    ],
                },
                "port": {**_INT_OR_STRING, "default": 8080},
                "selector": {
                    "type": "object",
                    "properties": {
                        "matchLabels": {
                            "type": "object",
                            "additionalProperties": {"type": "string"},
                        }
                    },
                },
                "resources": {
                    "type": "object",
                    "properties": {"requests": _QUANTITIES, "limits": _QUANTITIES},
                },
                "rollout": {
                    "type": "object",
                    "default": {},
                    "properties": {
                        "strategy": {
                            "type": "string",
                            "enum": ["RollingUpdate", "Recreate"],
                            "default": "RollingUpdate",
                        },
                        "maxUnavailable": {**_INT_OR_STRING, "default": "25%"},
                        "pauseSeconds": {"type": "integer", "maximum": 3600},
                    },
                },
                "endpoints": {
                    "type": "array",
                    "maxItems": 16,
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {
                        "type": "object",
                        "required": ["name", "port"],
                        "properties": {
                            "name": {"type": "string", "pattern": "^[a-z][a-z0-9-]*$"},
                            "port": {"type": "integer", "minimum": 1, "maximum": 65535},
                            "protocol": {
                                "type": "string",
                                "enum": ["TCP", "UDP"],
                                "default": "TCP",
                            },
                        },
                    },
                },
                "config": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            },
        },
        "status": {
            "type": "object",
            "properties": {
                "replicas": {"type": "integer"},
                "selector": {"type": "string"},
                "conditions": {
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["type"],
                    "items": {
                        "type": "object",
                        "required": ["type", "status"],
                        "properties": {
                            "type": {"type": "string"},
                            "status": {"type": "string", "enum": ["True", "False", "Unknown"]},
                            "lastTransitionTime": {"type": "string", "format": "date-time"},
                            "message": {"type": "string"},
                        },
                    },
                },
            },
        },
    },
}
SHARD_CRD: JSON = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": f"shards.{CUSTOM_GROUP}"},
    "spec": {
        "group": CUSTOM_GROUP,
        "scope": "Namespaced",
        "names": {"plural": "shards", "singular": "shard", "kind": "Shard", "shortNames": ["sh"]},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {"openAPIV3Schema": SHARD_SCHEMA},
                "subresources": {
                    "status": {},
                    "scale": {
                        "specReplicasPath": ".spec.replicas",
                        "statusReplicasPath": ".status.replicas",
                        "labelSelectorPath": ".status.selector",
                    },
                },
                "additionalPrinterColumns": [
                    {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
                    {"name": "Image", "type": "string", "jsonPath": ".spec.image"},
                ],
            }
        ],
    },
}


def make_shard(name: str, namespace: str) -> JSON:
    """A Shard about the size of ``make_pod``'s pod, leaving three fields to the defaults
    (``spec.port``, ``spec.rollout.strategy``, ``endpoints[1].protocol``)."""
    return {
        "apiVersion": f"{CUSTOM_GROUP}/v1",
        "kind": "Shard",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {"app": "web", "tier": "frontend", "shard": "5d4f8b7c9"},
            "annotations": {SENT: "0"},
        },
        "spec": {
            "image": "registry.example/shard:1.25",
            "replicas": 3,
            "maxReplicas": 10,
            "storageClass": "fast",
            "selector": {"matchLabels": {"app": "web"}},
            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"cpu": 1}},
            "rollout": {"maxUnavailable": 1},
            "endpoints": [
                {"name": "http", "port": 80, "protocol": "TCP"},
                {"name": "metrics", "port": 9090},
            ],
            "config": {"cache": {"size": "1Gi", "ttl": 30}, "tracing": True},
        },
    }


def shards_path(namespace: str, name: str | None = None) -> str:
    path = f"/apis/{CUSTOM_GROUP}/v1/namespaces/{namespace}/shards"
    return f"{path}/{name}" if name else path


def install_crd(url: str, others: int = 0) -> None:
    """Create the Shard CRD (and ``others`` more like it, under other names: the server's
    cost per custom resource request must not grow with the number of CRDs), then check it
    is Established and that its schema does its work (defaults, pruning, a CEL rule), so the
    phases measure the full custom write path."""
    crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    with httpx.Client(base_url=url, timeout=60) as http:
        for index in range(others):
            other = json.loads(json.dumps(SHARD_CRD))
            other["metadata"]["name"] = f"shards{index}.{CUSTOM_GROUP}"
            other["spec"]["names"] = {"plural": f"shards{index}", "kind": f"Shard{index}"}
            expect(http.post(crds, json=other), 201)
        expect(http.post(crds, json=SHARD_CRD), 201)
        crd = expect(http.get(f"{crds}/shards.{CUSTOM_GROUP}"), 200).json()
        established = [c for c in crd["status"].get("conditions", []) if c["type"] == "Established"]
        if not established or established[0]["status"] != "True":
            raise RuntimeError(f"the Shard CRD is not established: {crd['status']}")
        probe = make_shard("probe", "get")
        probe["spec"]["unknown"] = "pruned"
        spec = expect(http.post(shards_path("get"), json=probe), 201).json()["spec"]
        defaults = (spec["port"], spec["rollout"]["strategy"], spec["endpoints"][1]["protocol"])
        if defaults != (8080, "RollingUpdate", "TCP") or "unknown" in spec:
            raise RuntimeError(f"the Shard was not defaulted and pruned: {spec}")
        wrong = make_shard("wrong", "get")
        wrong["spec"]["replicas"] = 11
        message = expect(http.post(shards_path("get"), json=wrong), 422).json()["message"]
        if "replicas must not exceed 10" not in message:
            raise RuntimeError(f"the Shard's CEL rule did not run: {message}")
        expect(http.delete(shards_path("get", "probe")), 200)


NAMESPACES = ("get", "put", "list", "watch", "big")


def create_namespaces(url: str) -> None:
    """The namespaces the phases write into (creates in a missing namespace are 404)."""
    with httpx.Client(base_url=url, timeout=60) as http:
        for name in NAMESPACES:
            namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
            expect(http.post("/api/v1/namespaces", json=namespace), 201)


# -- the server side ----------------------------------------------------------------------
def serve(data_dir: Path, synchronous: str) -> None:
    """Run the API server until stdin closes; print its port first."""
    from podscale.apiserver.http import server
    from podscale.apiserver.http.app import create_app
    from podscale.store import SqliteStore, SystemClock

    clock = SystemClock()
    store = SqliteStore(
        data_dir / "store.db", clock, synchronous="FULL" if synchronous == "FULL" else "NORMAL"
    )
    running = server.start_in_thread(create_app(store, clock=clock))
    print(running.port, flush=True)
    sys.stdin.read()
    running.stop()
    store.close()


@dataclass
class ServerProcess:
    process: subprocess.Popen[str]
    url: str

    def cpu_seconds(self) -> float:
        """User + system CPU of the server process so far (Linux /proc)."""
        with open(f"/proc/{self.process.pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def server_process(synchronous: str) -> Iterator[ServerProcess]:
    """The API server subprocess on a fresh data directory; stopped by closing its stdin."""
    with tempfile.TemporaryDirectory() as scratch:
        data = Path(scratch) / "data"
        command = [sys.executable, __file__, "--serve", str(data), "--synchronous", synchronous]
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        try:
            assert process.stdout is not None
            port = int(process.stdout.readline())
            yield ServerProcess(process, f"http://127.0.0.1:{port}")
        finally:
            assert process.stdin is not None
            process.stdin.close()
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


# -- measuring ----------------------------------------------------------------------------
@dataclass
class Result:
    title: str
    count: int
    seconds: float
    p50_ms: float
    p99_ms: float
    server_cpu: float  # cores busy on average (1.0 = one core all the time)
    client_cpu: float

    @property
    def rate(self) -> float:
        return self.count / self.seconds


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


class Phase:
    """Wall time, client CPU and server CPU over one measurement."""

    def __init__(self, server: ServerProcess) -> None:
        self._server = server
        self._wall = time.perf_counter()
        self._cpu = time.process_time()
        self._server_cpu = server.cpu_seconds()

    def result(self, title: str, latencies: list[float], count: int | None = None) -> Result:
        wall = time.perf_counter() - self._wall
        return Result(
            title=title,
            count=len(latencies) if count is None else count,
            seconds=wall,
            p50_ms=1000 * percentile(latencies, 0.50),
            p99_ms=1000 * percentile(latencies, 0.99),
            server_cpu=(self._server.cpu_seconds() - self._server_cpu) / wall,
            client_cpu=(time.process_time() - self._cpu) / wall,
        )


async def closed_loop(
    workers: int, seconds: float, request: Callable[[int], Awaitable[None]]
) -> list[float]:
    """``workers`` tasks each sending ``request(worker)`` back to back for ``seconds``."""
    latencies: list[float] = []
    stop = time.perf_counter() + seconds

    async def work(worker: int) -> None:
        while time.perf_counter() < stop:
            began = time.perf_counter()
            await request(worker)
            latencies.append(time.perf_counter() - began)

    await asyncio.gather(*(work(i) for i in range(workers)))
    return latencies


def expect(response: httpx.Response, status: int) -> httpx.Response:
    if response.status_code != status:
        raise RuntimeError(f"{response.request.method} {response.url}: {response.status_code}")
    return response


# The single-object phases: the Pod's and the custom resource's, each a GET and a PUT.
SINGLE_OBJECT_PHASES = ("get", "put", "custom_get", "custom_put")


def object_path(phase: str, name: str | None = None) -> str:
    """The phase's object (or collection) URL: pods or shards in namespace "get" or "put"."""
    namespace = phase.rsplit("_", 1)[-1]
    return (
        shards_path(namespace, name) if phase.startswith("custom") else pods_path(namespace, name)
    )


def make_object(phase: str, name: str) -> JSON:
    namespace = phase.rsplit("_", 1)[-1]
    return make_shard(name, namespace) if phase.startswith("custom") else make_pod(name, namespace)


async def single_object_phase(url: str, phase: str, names: list[str], args: Any) -> JSON:
    """One client process's share of a GET or PUT phase: a worker per name in ``names``
    (GET: all the same object; PUT: one object each), warmed up, started at ``args.start_at``.
    A GET must return the object it names; a PUT's reply must carry the annotation it sent."""
    limits = httpx.Limits(max_connections=len(names), max_keepalive_connections=None)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60) as http:
        current = [expect(await http.get(object_path(phase, n)), 200).json() for n in names]
        named = [f'"name":"{name}"'.encode() for name in names]

        async def get(worker: int) -> None:
            response = expect(await http.get(object_path(phase, names[worker])), 200)
            if named[worker] not in response.content:
                raise RuntimeError(f"GET {names[worker]}: another object came back")

        async def put(worker: int) -> None:
            obj = current[worker]
            sent = obj["metadata"]["annotations"][SENT] = repr(time.perf_counter())
            path = object_path(phase, obj["metadata"]["name"])
            response = await http.put(path, content=orjson.dumps(obj))
            current[worker] = orjson.loads(expect(response, 200).content)
            if current[worker]["metadata"]["annotations"].get(SENT) != sent:
                raise RuntimeError(f"PUT {path}: the reply lost the update")

        request = put if phase.endswith("put") else get
        await closed_loop(len(names), 0.3, request)  # open the connections, warm up
        await asyncio.sleep(max(0.0, args.start_at - time.time()))
        cpu = time.process_time()
        latencies = await closed_loop(len(names), args.seconds, request)
        return {"latencies": latencies, "cpu": time.process_time() - cpu}


def run_single_object_phase(server: ServerProcess, phase: str, args: Any) -> Result:
    """A GET or PUT phase over ``args.clients`` client processes (one client process
    cannot drive the server hard enough: httpx costs more CPU per request than the server)."""
    per_process = max(1, args.workers // args.clients)
    names = [f"web-{i}" for i in range(per_process * args.clients)]
    if phase.endswith("get"):
        names = ["web"] * len(names)
    with httpx.Client(base_url=server.url, timeout=60) as http:
        for name in sorted(set(names)):
            expect(http.post(object_path(phase), json=make_object(phase, name)), 201)
    start_at = time.time() + 3.0
    children = []
    for index in range(args.clients):
        share = names[index * per_process : (index + 1) * per_process]
        command = [
            *(sys.executable, __file__, "--client", phase, "--url", server.url),
            *("--names", ",".join(share), "--seconds", str(args.seconds)),
            *("--start-at", repr(start_at)),
        ]
        children.append(subprocess.Popen(command, stdout=subprocess.PIPE, text=True))
    time.sleep(max(0.0, start_at - time.time()))
    phase_clock = Phase(server)
    outputs = []
    for child in children:
        out = child.communicate(timeout=120)[0]
        if child.returncode != 0:
            raise RuntimeError(f"a {phase} client failed (exit {child.returncode})")
        outputs.append(json.loads(out))
    result = phase_clock.result("", [], count=0)
    latencies = [latency for output in outputs for latency in output["latencies"]]
    what = "one custom resource (Shard)" if phase.startswith("custom") else "one pod"
    verb = f"PUT {what} each, SQLite {args.synchronous}" if phase.endswith("put") else f"GET {what}"
    return Result(
        title=f"{verb} ({len(names)} workers in {args.clients} client processes)",
        count=len(latencies),
        seconds=args.seconds,
        p50_ms=1000 * percentile(latencies, 0.50),
        p99_ms=1000 * percentile(latencies, 0.99),
        server_cpu=result.server_cpu * result.seconds / args.seconds,
        client_cpu=sum(output["cpu"] for output in outputs) / args.seconds,
    )


async def bench_list(server: ServerProcess, args: Any) -> Result:
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as http:
        return await list_phase(http, server, args)


async def list_phase(http: httpx.AsyncClient, server: ServerProcess, args: Any) -> Result:
    created = 0

    async def create(worker: int) -> None:
        nonlocal created
        while created < 1_000:
            name = f"web-{created:04d}"
            created += 1
            expect(await http.post(pods_path("list"), json=make_pod(name, "list")), 201)

    await asyncio.gather(*(create(i) for i in range(args.workers)))

    async def list_pods(_: int) -> None:
        body = orjson.loads(expect(await http.get(pods_path("list")), 200).content)
        if len(body["items"]) != 1_000:
            raise RuntimeError("the list lost pods")

    phase = Phase(server)
    latencies = await closed_loop(2, args.seconds, list_pods)
    return phase.result("LIST 1,000 pods (2 workers)", latencies)


async def watch_clients(url: str, since: str, watchers: int, expected: int) -> JSON:
    """One client process's watchers: report ready, then read until each has ``expected``
    events (or 60 s passed); latency is now minus the send time the writer stamped."""
    latencies: list[float] = []
    received = [0] * watchers
    ready = asyncio.Semaphore(0)
    limits = httpx.Limits(max_connections=watchers, max_keepalive_connections=None)
    http = httpx.AsyncClient(base_url=url, limits=limits, timeout=None)

    async def watcher(index: int) -> None:
        params = {"watch": "true", "resourceVersion": since}
        async with http.stream("GET", pods_path("watch"), params=params) as stream:
            ready.release()
            buffer = b""
            # Raw chunks split by hand: httpx's aiter_lines costs more than the server's send.
            async for chunk in stream.aiter_raw():
                *lines, buffer = (buffer + chunk).split(b"\n")
                now = time.perf_counter()
                for line in lines:
                    event = orjson.loads(line)
                    latencies.append(now - float(event["object"]["metadata"]["annotations"][SENT]))
                    received[index] += 1
                if received[index] >= expected:
                    return

    tasks = [asyncio.create_task(watcher(i)) for i in range(watchers)]
    for _ in range(watchers):
        await asyncio.wait_for(ready.acquire(), 30)
    print("ready", flush=True)
    cpu = time.process_time()
    _, pending = await asyncio.wait(tasks, timeout=60)
    for task in pending:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await http.aclose()
    return {"latencies": latencies, "cpu": time.process_time() - cpu, "least": min(received)}


async def write_at_rate(url: str, rate: float, total: int) -> None:
    """PATCH 10 pods round-robin on an open-loop schedule of ``rate`` writes/s."""
    in_flight = asyncio.Semaphore(32)
    headers = {"Content-Type": "application/merge-patch+json"}
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:

        async def write(sequence: int) -> None:
            async with in_flight:
                patch = {"metadata": {"annotations": {SENT: repr(time.perf_counter())}}}
                path = pods_path("watch", f"web-{sequence % 10}")
                response = await http.patch(path, content=orjson.dumps(patch), headers=headers)
                expect(response, 200)

        writes = []
        began = time.perf_counter()
        for sequence in range(total):
            # Writes go out on schedule whether or not earlier ones finished.
            await asyncio.sleep(max(0.0, began + sequence / rate - time.perf_counter()))
            writes.append(asyncio.create_task(write(sequence)))
        await asyncio.gather(*writes)


def run_watch_phase(server: ServerProcess, args: Any) -> Result:
    """``args.watchers`` watches spread over ``args.clients`` processes; one writer here."""
    with httpx.Client(base_url=server.url, timeout=60) as http:
        for i in range(10):
            expect(http.post(pods_path("watch"), json=make_pod(f"web-{i}", "watch")), 201)
        since = http.get(pods_path("watch")).json()["metadata"]["resourceVersion"]
    total = int(args.rate * args.seconds)
    children = []
    for index in range(args.clients):
        share = args.watchers // args.clients + (index < args.watchers % args.clients)
        command = [
            *(sys.executable, __file__, "--client", "watch", "--url", server.url),
            *("--since", since, "--watchers", str(share), "--expected", str(total)),
        ]
        children.append(subprocess.Popen(command, stdout=subprocess.PIPE, text=True))
    for child in children:
        assert child.stdout is not None
        if child.stdout.readline().strip() != "ready":
            raise RuntimeError("a watch client did not start")
    phase = Phase(server)
    asyncio.run(write_at_rate(server.url, args.rate, total))
    outputs = [json.loads(child.communicate(timeout=120)[0]) for child in children]
    if min(output["least"] for output in outputs) < total:
        raise RuntimeError("a watcher missed events")
    latencies = [latency for output in outputs for latency in output["latencies"]]
    result = phase.result(
        f"watch delivery, {args.watchers} watchers in {args.clients} client processes, "
        f"{args.rate:.0f} writes/s (rate: events delivered)",
        latencies,
    )
    children_cpu = sum(output["cpu"] for output in outputs) / result.seconds
    return Result(**{**asdict(result), "client_cpu": result.client_cpu + children_cpu})


# -- fairness: small requests while large LISTs and watch replays run -----------------------
async def fill_big_namespace(url: str, workers: int) -> None:
    """``BIG`` pods in namespace "big", created by ``workers`` concurrent writers."""
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        expect(await http.post(pods_path("big"), json=make_pod("probe", "big")), 201)
        names = iter(range(BIG - 1))

        async def create(_: int) -> None:
            for index in names:
                pod = make_pod(f"web-{index:05d}", "big")
                expect(await http.post(pods_path("big"), json=pod), 201)

        await asyncio.gather(*(create(i) for i in range(workers)))


async def load_clients(url: str, load: str, concurrency: int) -> JSON:
    """The background load of a fairness phase, until stdin closes: ``concurrency`` clients
    each LISTing the big namespace back to back, or each watching it from resourceVersion ""
    (a full replay) until the replay is complete, then starting over. Counts completed
    operations and those that did not carry every pod."""
    done = 0
    wrong = 0
    stop = asyncio.Event()
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=None)
    http = httpx.AsyncClient(base_url=url, limits=limits, timeout=120)

    async def lister() -> None:
        nonlocal done, wrong
        while not stop.is_set():
            body = expect(await http.get(pods_path("big")), 200).content
            # Counting names is enough to know every pod came back, without decoding 2.5 MB.
            done += 1
            wrong += body.count(b'"name":"web-') != BIG - 1

    async def replayer() -> None:
        nonlocal done, wrong
        while not stop.is_set():
            lines = 0
            async with http.stream("GET", pods_path("big"), params={"watch": "true"}) as stream:
                async for chunk in stream.aiter_raw():
                    lines += chunk.count(b"\n")
                    if lines >= BIG or stop.is_set():
                        break
            done += 1
            wrong += lines < BIG and not stop.is_set()

    worker = lister if load == "list" else replayer
    tasks = [asyncio.create_task(worker()) for _ in range(concurrency)]
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    stop.set()
    _, pending = await asyncio.wait(tasks, timeout=60)
    for task in pending:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await http.aclose()
    return {"done": done, "wrong": wrong}


async def probe(url: str, seconds: float, fresh_connections: bool) -> list[float]:
    """GET one small pod back to back for ``seconds``; a new connection each time when
    ``fresh_connections`` (``Connection: close``: the accept and the first read then also
    wait for the server's loop)."""
    latencies: list[float] = []
    stop = time.perf_counter() + seconds
    headers = {"Connection": "close"} if fresh_connections else {}
    async with httpx.AsyncClient(base_url=url, timeout=60, headers=headers) as http:
        while time.perf_counter() < stop:
            began = time.perf_counter()
            expect(await http.get(pods_path("big", "probe")), 200)
            latencies.append(time.perf_counter() - began)
    return latencies


def run_fairness_phase(server: ServerProcess, load: str, concurrency: int, args: Any) -> Result:
    """Probe latency while a client process keeps ``concurrency`` LISTs or replays going."""
    command = [
        *(sys.executable, __file__, "--client", "load", "--url", server.url),
        *("--load", load, "--concurrency", str(concurrency)),
    ]
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    if child.stdout.readline().strip() != "ready":
        raise RuntimeError("the load client did not start")
    time.sleep(1.0)  # let the load reach its steady state
    phase = Phase(server)
    kept = asyncio.run(probe(server.url, args.seconds / 2, fresh_connections=False))
    fresh = asyncio.run(probe(server.url, args.seconds / 2, fresh_connections=True))
    result = phase.result("", kept + fresh)
    output = json.loads(child.communicate(input="", timeout=120)[0])
    if output["wrong"]:
        raise RuntimeError(f"{output['wrong']} of {output['done']} {load}s missed pods")
    if not output["done"]:
        raise RuntimeError(f"no {load} completed during the phase")
    what = "LISTs" if load == "list" else "watch replays"
    title = (
        f"GET one pod (kept-alive p99 {1000 * percentile(kept, 0.99):.1f} ms, new connection "
        f"p99 {1000 * percentile(fresh, 0.99):.1f} ms) during {concurrency} concurrent {what} "
        f"of {BIG:,} pods ({output['done']} completed)"
    )
    return Result(**{**asdict(result), "title": title})


def run_fairness(server: ServerProcess, args: Any) -> dict[str, Result | None]:
    asyncio.run(fill_big_namespace(server.url, args.workers))
    return {
        "fair_list": run_fairness_phase(server, "list", 10, args),
        "fair_replay": run_fairness_phase(server, "replay", 200, args),
    }


async def bench_inprocess(args: Any) -> Result | None:
    try:
        from podscale.api.kinds import kind_for
        from podscale.client.inprocess import InProcessApi
        from podscale.store import SqliteStore, SystemClock
    except ImportError:
        return None
    pod = kind_for("v1", "Pod")
    with tempfile.TemporaryDirectory() as scratch:
        clock = SystemClock()
        store = SqliteStore(Path(scratch) / "data" / "store.db", clock)
        try:
            api = InProcessApi.for_store(store, clock)
            namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "get"}}
            await api.create(kind_for("v1", "Namespace"), None, namespace)
            await api.create(pod, "get", make_pod("web", "get"))
            latencies: list[float] = []
            wall = time.perf_counter()
            cpu = time.process_time()
            stop = wall + args.seconds
            while time.perf_counter() < stop:
                for _ in range(100):
                    began = time.perf_counter()
                    await api.get(pod, "get", "web")
                    latencies.append(time.perf_counter() - began)
            seconds = time.perf_counter() - wall
            return Result(
                title="in-process GET one pod (InProcessApi, 1 task)",
                count=len(latencies),
                seconds=seconds,
                p50_ms=1000 * percentile(latencies, 0.5),
                p99_ms=1000 * percentile(latencies, 0.99),
                server_cpu=0.0,
                client_cpu=(time.process_time() - cpu) / seconds,
            )
        finally:
            store.close()


def run_all(server: ServerProcess, args: Any) -> dict[str, Result | None]:
    results: dict[str, Result | None] = {
        phase: run_single_object_phase(server, phase, args) for phase in SINGLE_OBJECT_PHASES
    }
    results["list"] = asyncio.run(bench_list(server, args))
    results["watch"] = run_watch_phase(server, args)
    results["inproc"] = asyncio.run(bench_inprocess(args))
    results.update(run_fairness(server, args))
    return results


# -- reporting ----------------------------------------------------------------------------
def _ms(value: float) -> str:
    return f"{value:.3f}" if value < 1 else f"{value:.1f}"


def server_us_per_op(result: Result) -> float:
    return 1e6 * result.server_cpu / result.rate if result.server_cpu else 0.0


def custom_ratios(custom: Result, builtin: Result) -> list[str]:
    """How much slower the custom resource's operation is than the pod's: by rate and by
    server CPU per request (the client processes share the cores, so rate alone blurs it)."""
    cpu = server_us_per_op(custom) / max(server_us_per_op(builtin), 1e-9)
    return [f"{builtin.rate / max(custom.rate, 1e-9):.2f}x pod's time", f"{cpu:.2f}x pod's CPU"]


def table(results: dict[str, Result | None]) -> list[str]:
    lines = [
        "| measurement | rate /s | p50 ms | p99 ms | goal | result / goal "
        "| server CPU | server µs/op | client CPU |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    goals = {
        "get": (f"{GOALS['get']:,.0f}/s, p99 < {GOALS['p99_ms']:.0f} ms", GOALS["get"]),
        "put": (f"{GOALS['put']:,.0f}/s, p99 < {GOALS['p99_ms']:.0f} ms", GOALS["put"]),
        "custom_get": (f"within {GOALS['custom_ratio']}x of the pod's", None),
        "custom_put": (f"within {GOALS['custom_ratio']}x of the pod's", None),
        "list": ("-", None),
        "watch": (f"p99 < {GOALS['watch_p99_ms']:.0f} ms", None),
        "inproc": (f"{GOALS['inproc']:,.0f}/s", GOALS["inproc"]),
        "fair_list": (f"p99 < {GOALS['fair_p99_ms']:.0f} ms", None),
        "fair_replay": (f"p99 < {GOALS['fair_p99_ms']:.0f} ms", None),
    }
    for key, result in results.items():
        if result is None:
            lines.append(f"| {key}: not available | | | | | | | | |")
            continue
        text, rate_goal = goals[key]
        ratios = []
        if rate_goal is not None:
            ratios.append(f"{result.rate / rate_goal:.2f}x rate")
        if key in ("get", "put"):
            ratios.append(f"{GOALS['p99_ms'] / max(result.p99_ms, 1e-9):.2f}x p99")
        builtin = results.get(key.removeprefix("custom_"))
        if key.startswith("custom_") and builtin is not None:
            ratios.extend(custom_ratios(result, builtin))
        if key == "watch":
            ratios.append(f"{GOALS['watch_p99_ms'] / max(result.p99_ms, 1e-9):.2f}x p99")
        if key.startswith("fair_"):
            ratios.append(f"{GOALS['fair_p99_ms'] / max(result.p99_ms, 1e-9):.2f}x p99")
        server_us = server_us_per_op(result)
        lines.append(
            f"| {result.title} | {result.rate:,.0f} | {_ms(result.p50_ms)} | {_ms(result.p99_ms)} "
            f"| {text} | {', '.join(ratios) or '-'} | {result.server_cpu:.2f} "
            f"| {server_us:,.0f} | {result.client_cpu:.2f} |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="length of each phase")
    parser.add_argument("--workers", type=int, default=8, help="concurrent request workers")
    parser.add_argument("--watchers", type=int, default=100)
    parser.add_argument("--rate", type=float, default=200.0, help="writes/s in the watch phase")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--synchronous", choices=["NORMAL", "FULL"], default="NORMAL")
    parser.add_argument(
        "--crds", type=int, default=1, help="CRDs installed (the Shard CRD and copies of it)"
    )
    parser.add_argument(
        "--clients", type=int, default=2, help="client processes for the GET and PUT phases"
    )
    # Internal: the server subprocess, and the client subprocesses of the GET/PUT phases.
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    parser.add_argument(
        "--client", choices=[*SINGLE_OBJECT_PHASES, "watch", "load"], help=argparse.SUPPRESS
    )
    parser.add_argument("--load", choices=["list", "replay"], help=argparse.SUPPRESS)
    parser.add_argument("--concurrency", type=int, help=argparse.SUPPRESS)
    parser.add_argument(
        "--only",
        choices=["fairness", "single"],
        help="run only the fairness phases (small requests during large LISTs and watch "
        "replays), or only the single-object GET and PUT phases (pod and custom resource)",
    )
    parser.add_argument("--since", help=argparse.SUPPRESS)
    parser.add_argument("--expected", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--names", help=argparse.SUPPRESS)
    parser.add_argument("--start-at", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        serve(args.serve, args.synchronous)
        return
    if args.client == "watch":
        output = asyncio.run(watch_clients(args.url, args.since, args.watchers, args.expected))
        print(json.dumps(output))
        return
    if args.client == "load":
        print(json.dumps(asyncio.run(load_clients(args.url, args.load, args.concurrency))))
        return
    if args.client is not None:
        names = args.names.split(",")
        output = asyncio.run(single_object_phase(args.url, args.client, names, args))
        print(json.dumps(output))
        return
    with server_process(args.synchronous) as server:
        create_namespaces(server.url)
        install_crd(server.url, args.crds - 1)
        if args.only == "fairness":
            results = run_fairness(server, args)
        elif args.only == "single":
            results = {p: run_single_object_phase(server, p, args) for p in SINGLE_OBJECT_PHASES}
        else:
            results = run_all(server, args)
    if args.json:
        raw = {
            key: None if r is None else {**asdict(r), "rate": r.rate} for key, r in results.items()
        }
        print(
            json.dumps(
                {
                    "machine": machine(),
                    "args": {k: v for k, v in vars(args).items() if k not in _INTERNAL},
                    "results": raw,
                },
                indent=2,
            )
        )
        return
    print("machine:", ", ".join(f"{k}={v}" for k, v in machine().items()))
    print(f"server: SQLite (synchronous={args.synchronous}), {args.crds} CRD(s) installed")
    print("server/client CPU: cores busy on average during the phase (1.00 = one full core)")
    print("\n".join(table(results)))


if __name__ == "__main__":
    main()
