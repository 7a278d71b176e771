"""Fixtures for the store contract suite: every contract test runs on both backends."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from podscale.store.engine import VersionedStore
from podscale.store.memory import MemoryStore
from podscale.store.sqlite import SqliteStore

START = datetime(2026, 11, 22, 10, 0, tzinfo=UTC)


class FakeClock:
    """A clock tests move by hand."""

    def __init__(self, moment: datetime = START) -> None:
        self.moment = moment

    def now(self) -> datetime:
        return self.moment

    def advance(self, seconds: float) -> None:
        self.moment += timedelta(seconds=seconds)


StoreFactory = Callable[..., VersionedStore]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(params=["memory", "sqlite"])
def make_store(
    request: pytest.FixtureRequest, tmp_path: Path, clock: FakeClock
) -> Iterator[StoreFactory]:
    """Builds stores of the parametrized backend; ``uid`` values are predictable."""
    made: list[VersionedStore] = []
    counter = itertools.count(1)

    def build(**options: Any) -> VersionedStore:
        options.setdefault("new_uid", lambda: f"uid-{next(counter)}")
        store: VersionedStore
        if request.param == "memory":
            store = MemoryStore(clock, **options)
        else:
            store = SqliteStore(tmp_path / "data" / f"db{len(made)}.sqlite", clock, **options)
        made.append(store)
        return store

    yield build
    for store in made:
        store.close()


@pytest.fixture
def store(make_store: StoreFactory) -> VersionedStore:
    return make_store()


def pod(name: str, namespace: str = "default", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "nginx"}], **spec},
        "status": {"phase": "Pending"},
    }


@pytest.fixture
def make_pod() -> Callable[..., dict[str, Any]]:
    return pod
