"""Cyclic garbage collector settings for long simulation runs and served planes.

A simulated day or a served plane builds a large, long-lived heap (modules, the store, the
informer caches, the API's schemas) and then allocates many short-lived dicts per event.
CPython's cyclic collector runs a young collection every 700 container allocations and
rescans the older generations every few of those, so it keeps walking the long-lived heap
(27% of wall time in a 10,000-HPA plane). ``long_lived_heap`` moves everything built so far
into the permanent generation (``gc.freeze``, which ``freeze_built`` repeats once setup is
done) and raises the young generation's threshold; on exit both are undone. Reference
counting still frees acyclic garbage at once; only cycles wait longer.

Used by ``podscale.scenario.play.run_scenario`` and ``podscale.plane.serve`` (``podscale
up``); bench/hpa_controller.py measures the gain.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

__all__ = ["YOUNG_THRESHOLD", "freeze_built", "long_lived_heap"]

# Young-generation allocations between collections (CPython's default is 700).
YOUNG_THRESHOLD: Final = 50_000


def freeze_built() -> None:
    """Move every object alive now into the permanent generation (setup is done)."""
    gc.freeze()


@contextmanager
def long_lived_heap(young: int = YOUNG_THRESHOLD) -> Iterator[None]:
    """Inside: what exists is frozen and young collections are rarer; see the docstring."""
    thresholds = gc.get_threshold()
    gc.collect()  # what is garbage already should not be frozen
    gc.freeze()
    gc.set_threshold(young, *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
