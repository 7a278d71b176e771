"""The in-memory backend: ``engine.VersionedStore`` with nothing behind it.

For simulation and tests: same semantics as ``sqlite`` (shared engine, ``objects``,
``listing``, ``watchhub``, ``records``), nothing survives the process.
"""

from __future__ import annotations

from collections.abc import Callable

from podscale.store.committed import LoadedState, new_uid
from podscale.store.engine import VersionedStore
from podscale.store.interface import Clock
from podscale.store.records import EventRecord

__all__ = ["MemoryStore"]


class _NoPersistence:
    def load(self) -> LoadedState:
        return LoadedState()

    def commit(self, record: EventRecord) -> None:
        return None

    def close(self) -> None:
        return None


class MemoryStore(VersionedStore):
    """``interface.Store`` in memory. ``history`` is how many events watches can resume
    from; ``watch_buffer`` how many undelivered events a watch may hold before it is ended."""

    def __init__(
        self,
        clock: Clock,
        *,
        history: int = 10_000,
        watch_buffer: int = 10_000,
        new_uid: Callable[[], str] = new_uid,
    ) -> None:
        super().__init__(
            _NoPersistence(), clock, history=history, watch_buffer=watch_buffer, new_uid=new_uid
        )
