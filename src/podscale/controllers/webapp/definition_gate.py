"""An informer source for a custom kind that may not be installed: empty until its CRD is.

An operator runs before (or without) its CustomResourceDefinition: ``podscale up`` starts
the WebApp controller whether or not ``webapps.examples.podscale.dev`` is installed, and a
scenario installs it after the plane started. A plain list-watch would fail with a 404 until
then and hold back the whole controller manager, which waits for every informer to sync.
``GatedListWatcher`` wraps the kind's ``ApiListWatcher``: a 404 lists as an empty set (the
informer syncs, and a CRD deleted later empties the cache as a relist does), and its watch
then waits until ``open`` is called (the controller calls it when its CRD informer sees the
CRD ``Established``) or ``recheck`` has passed, and asks for a relist (``Gone``). An
``open`` while a list is under way is kept (the list may have read the kind before the CRD
was served), so no event is lost to that race; ``recheck`` (5 minutes) is only a safety
net: every idle plane relisted the absent kind each 30 s before. ``established`` reads the
condition from a CRD object.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping
from datetime import timedelta
from typing import Any, Final

from podscale.api.kinds import KindInfo
from podscale.client.http import ApiError
from podscale.client.informer import Gone
from podscale.client.listwatch import ApiListWatcher, ResourceApi

__all__ = ["DEFAULT_RECHECK", "GatedListWatcher", "established"]

JSON = dict[str, Any]
DEFAULT_RECHECK: Final = timedelta(minutes=5)


def established(crd: Mapping[str, Any]) -> bool:
    """Whether the CRD's ``Established`` condition is True (its kinds are served)."""
    conditions = (crd.get("status") or {}).get("conditions") or ()
    return any(c.get("type") == "Established" and c.get("status") == "True" for c in conditions)


class GatedListWatcher:
    """``kind``'s list-watch over ``api`` that reads as empty while the kind is not served."""

    def __init__(
        self, api: ResourceApi, kind: KindInfo, *, recheck: timedelta = DEFAULT_RECHECK
    ) -> None:
        self._inner = ApiListWatcher(api, kind)
        self._recheck = recheck
        self._opened = asyncio.Event()
        self._opens = 0  # how many times ``open`` was called
        self._served = False

    @property
    def served(self) -> bool:
        """Whether the last list found the kind served."""
        return self._served

    def open(self) -> None:
        """The CRD is established: a waiting watch relists now."""
        self._opens += 1
        self._opened.set()

    async def list(self) -> tuple[list[JSON], str]:
        opens = self._opens
        try:
            listed = await self._inner.list()
        except ApiError as err:
            if err.status != 404:
                raise
            self._served = False
            if self._opens == opens:  # no CRD became established while listing
                self._opened.clear()
            return [], ""
        self._served = True
        return listed

    async def watch(self, resource_version: str) -> AsyncIterator[tuple[str, JSON]]:
        if self._served:
            try:
                async for event in self._inner.watch(resource_version):
                    yield event
                return
            except ApiError as err:
                if err.status != 404:
                    raise
            self._served = False  # the CRD went away under the watch: relist (empty)
            raise Gone()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._opened.wait(), self._recheck.total_seconds())
        raise Gone()
