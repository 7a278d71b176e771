"""Store contract: read-modify-write with retry on Conflict loses no update (both backends)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from podscale.store.engine import VersionedStore
from podscale.store.interface import AlreadyExistsError, ConflictError

Pod = Callable[..., dict[str, Any]]


def test_many_threads_incrementing_lose_nothing(store: VersionedStore) -> None:
    store.create("configmaps", {"metadata": {"name": "n", "namespace": "d"}, "data": {"n": "0"}})
    threads, increments = 8, 40
    conflicts = [0] * threads

    def increment(worker: int) -> None:
        for _ in range(increments):
            while True:
                current = store.get("configmaps", "d", "n")
                current["data"]["n"] = str(int(current["data"]["n"]) + 1)
                try:
                    store.update("configmaps", current)
                except ConflictError:
                    conflicts[worker] += 1
                    continue
                break

    workers = [threading.Thread(target=increment, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    final = store.get("configmaps", "d", "n")
    assert final["data"]["n"] == str(threads * increments)
    assert final["metadata"]["resourceVersion"] == str(1 + threads * increments)
    assert store.revision == 1 + threads * increments


def test_concurrent_creates_of_one_name_admit_exactly_one(
    store: VersionedStore, make_pod: Pod
) -> None:
    winners: list[int] = []
    barrier = threading.Barrier(6)

    def create(worker: int) -> None:
        barrier.wait()
        try:
            store.create("pods", make_pod("same"))
        except AlreadyExistsError:
            return
        winners.append(worker)

    workers = [threading.Thread(target=create, args=(n,)) for n in range(6)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len(winners) == 1
    assert store.revision == 1
