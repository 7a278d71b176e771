"""Following one object's Scale: its ``/scale`` subresource read again whenever it changes.

An HPA finds its target's pods through the ``status.selector`` of the target's scale
subresource and reads ``spec.replicas`` there, whatever the kind. The simulated usage
(``usage.SimulatedUsage``) finds a custom target's pods the same way, and
``podscale.replay.run`` records a custom target's replicas from it, so both follow a
``ScaleFollower``: it resolves the target's kind as the HPA controller does
(``controllers.hpa.scale_target.resolve_target``: the group of ``apiVersion`` and the kind,
over what the API serves now, custom kinds included), watches that one object (an informer
of its own with a field selector on the name: the shared informers are fixed once the
controller manager has started) and, after each event of it, reads ``/scale``
(``read_scale``) and hands the Scale to its callback, or None when there is none to read
(the object is gone, the kind is not served or serves no scale). The read follows the event
at the same instant, so a new selector or replica count is seen when it is written.
``scale_selector`` turns a Scale's ``status.selector`` into a ``Selector``;
``FollowedSelectors`` keeps the selectors of several targets current, one follower task each.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from podscale.api.selector_model import Selector
from podscale.api.selectors import SelectorError, parse_selector
from podscale.client.informer import EventHandler, Informer
from podscale.client.listwatch import ApiListWatcher
from podscale.controllers.hpa.scale_target import ScaleTargetError, read_scale, resolve_target
from podscale.controllers.runtime_api import ControllerApi
from podscale.store.interface import Clock

__all__ = ["FollowedSelectors", "ScaleFollower", "TargetKey", "scale_selector"]

JSON = dict[str, Any]
# (kind, namespace, name), as ``usage.SimulatedUsage`` keys its loads.
TargetKey = tuple[str, str, str]


def scale_selector(scale: JSON | None) -> Selector | None:
    """The pods a Scale's ``status.selector`` chooses; None when it has none (or an
    unparsable one), as an HPA then selects no pods."""
    text = ((scale or {}).get("status") or {}).get("selector")
    if not isinstance(text, str) or not text:
        return None
    try:
        selector = parse_selector(text)
    except SelectorError:
        return None
    return None if selector.empty() else selector


class ScaleFollower:
    """Calls ``on_scale`` with the Scale of ``kind`` ``namespace``/``name`` (in the group of
    ``api_version``) after every change of the object, while ``run`` runs."""

    def __init__(
        self,
        api: ControllerApi,
        clock: Clock,
        api_version: str,
        kind: str,
        namespace: str,
        name: str,
        on_scale: Callable[[JSON | None], None],
    ) -> None:
        self._api = api
        self._clock = clock
        self._ref = {"apiVersion": api_version, "kind": kind}
        self._namespace = namespace
        self._name = name
        self._on_scale = on_scale

    async def run(self) -> None:
        """Follow the object until cancelled; returns at once (after telling None) when
        its kind is not served."""
        try:
            mappings = await resolve_target(self._api, self._ref)
        except ScaleTargetError:
            self._on_scale(None)
            return
        changed = asyncio.Event()

        def mark(*_: JSON) -> None:
            changed.set()

        source = ApiListWatcher(
            self._api, mappings[0], self._namespace, field_selector=f"metadata.name={self._name}"
        )
        informer = Informer(source, self._clock)
        informer.add_handler(EventHandler(mark, mark, mark))
        watching = asyncio.create_task(informer.run(), name=f"scale-follower/{self._name}")
        try:
            while True:
                await changed.wait()
                changed.clear()
                try:
                    scale: JSON | None = (
                        await read_scale(self._api, mappings, self._namespace, self._name)
                    )[0]
                except ScaleTargetError:
                    scale = None
                self._on_scale(scale)
        finally:
            informer.stop()
            watching.cancel()
            await asyncio.wait({watching})  # its failure, if any, ends with it


class FollowedSelectors:
    """The Scale selector of each followed target (None until its Scale has one), each
    kept current by a ``ScaleFollower`` task; ``before_change`` is called before one
    changes (the usage accounts the time up to then with the old selector). Follower tasks
    start on the running event loop."""

    def __init__(self, api: ControllerApi, clock: Clock, before_change: Callable[[], None]):
        self._api = api
        self._clock = clock
        self._before_change = before_change
        # Read directly by the usage on its hot path (a dict, no method call per read).
        self.selectors: dict[TargetKey, Selector | None] = {}
        self._tasks: dict[TargetKey, tuple[str, asyncio.Task[None]]] = {}

    def follow(self, key: TargetKey, api_version: str) -> None:
        """Follow ``key``'s Scale (in the group of ``api_version``); already followed in
        that version, nothing changes."""
        running = self._tasks.get(key)
        if running is not None and running[0] == api_version:
            return
        self.unfollow(key)
        kind, namespace, name = key

        def on_scale(scale: JSON | None) -> None:
            selector = scale_selector(scale)
            if key in self.selectors and self.selectors[key] != selector:
                self._before_change()
                self.selectors[key] = selector

        follower = ScaleFollower(
            self._api, self._clock, api_version, kind, namespace, name, on_scale
        )
        task = asyncio.get_running_loop().create_task(follower.run(), name=f"scale/{kind}/{name}")
        self._tasks[key] = (api_version, task)
        self.selectors[key] = None

    def unfollow(self, key: TargetKey) -> None:
        running = self._tasks.pop(key, None)
        if running is not None:
            running[1].cancel()
        self.selectors.pop(key, None)

    def stop(self) -> None:
        """Stop every follower; the selectors stay as last seen."""
        for _, task in self._tasks.values():
            task.cancel()
        self._tasks.clear()
