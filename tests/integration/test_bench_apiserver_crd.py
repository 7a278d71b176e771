"""The API server benchmark's custom resource stays valid: its CRD is accepted (with copies
under other names, as ``--crds`` installs them), a Shard is pruned and defaulted, the CEL
rule refuses a bad one, and the objects the GET and PUT phases write are admitted as they
are sent back."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import httpx
import pytest

from podscale.apiserver.http import server
from podscale.apiserver.http.app import create_app
from podscale.store import MemoryStore, SystemClock

BENCH = Path(__file__).parents[2] / "bench" / "apiserver.py"


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCH.parent))  # apiserver.py imports engine.machine
    spec = importlib.util.spec_from_file_location("bench_apiserver", BENCH)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_apiserver", module)  # for its dataclasses
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def url() -> Iterator[str]:
    clock = SystemClock()
    running = server.start_in_thread(create_app(MemoryStore(clock), clock=clock))
    try:
        yield f"http://127.0.0.1:{running.port}"
    finally:
        running.stop()


def test_the_bench_crd_and_shards_are_admitted(bench: ModuleType, url: str) -> None:
    bench.create_namespaces(url)
    bench.install_crd(url, others=2)  # raises when a check of the CRD's work fails
    with httpx.Client(base_url=url, timeout=30) as http:
        for phase in ("custom_get", "custom_put"):
            created = bench.expect(
                http.post(bench.object_path(phase), json=bench.make_object(phase, "web")), 201
            ).json()
            created["metadata"]["annotations"][bench.SENT] = "1.5"
            path = bench.object_path(phase, "web")
            updated = bench.expect(http.put(path, json=created), 200).json()
            assert updated["metadata"]["annotations"][bench.SENT] == "1.5"
            assert updated["metadata"]["generation"] == 1  # metadata alone changed
        crds = http.get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions").json()
        assert len(crds["items"]) == 3
