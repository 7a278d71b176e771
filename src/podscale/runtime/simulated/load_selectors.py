"""``LoadSelectors``: which pods' label selector routes each workload load's traffic.

``runtime.simulated.usage.SimulatedUsage`` asks ``of(load)`` for every load at every advance
and scrape (``usage_loads.assign_pods`` splits the pods by these selectors). A built-in
Deployment, ReplicaSet or StatefulSet (``usage_loads.WORKLOAD_KINDS``) is read from its
informer's lister and its ``spec.selector`` parsed again only when its resourceVersion moved;
any other kind is a custom target with a scale subresource, whose ``/scale``
``status.selector`` a ``scale_follower.FollowedSelectors`` task keeps current (``follow`` /
``unfollow``; the usage accounts the time up to a selector change with the old one through
``before_change``). A missing workload, or a missing, bad or empty selector, is None.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from podscale.api.kinds import is_built_in
from podscale.api.selectors import Selector, SelectorError, selector_from_label_selector
from podscale.client.cache import Lister
from podscale.controllers.runtime_api import ControllerApi, SharedInformers
from podscale.runtime.simulated.scale_follower import FollowedSelectors
from podscale.runtime.simulated.usage_loads import WORKLOAD_KINDS, WorkloadLoad
from podscale.store.interface import Clock

__all__ = ["LoadSelectors", "may_be_custom"]

JSON = dict[str, Any]
TargetKey = tuple[str, str, str]


class LoadSelectors:
    """Each load's selector, kept current; see the module docstring."""

    def __init__(self, api: ControllerApi, clock: Clock, before_change: Callable[[], None]):
        self._scales = FollowedSelectors(api, clock, before_change)
        self._scale_selectors = self._scales.selectors
        self._workloads: dict[str, Lister] = {}
        # Each built-in workload's selector with the resourceVersion it was parsed at.
        self._parsed_at: dict[TargetKey, tuple[str, Selector | None]] = {}

    def bind(self, informers: SharedInformers) -> None:
        """Read the built-in workloads from ``informers``' listers."""
        self._workloads = {k: informers.informer_for(i).lister for k, i in WORKLOAD_KINDS.items()}

    def follow(self, key: TargetKey, api_version: str) -> None:
        """Follow the custom target ``key``'s Scale from now on."""
        self._scales.follow(key, api_version)

    def unfollow(self, key: TargetKey) -> None:
        """Stop following ``key``'s Scale (a built-in workload's load, or a cleared one)."""
        self._scales.unfollow(key)

    def stop(self) -> None:
        """Stop following every custom target's Scale."""
        self._scales.stop()

    def of(self, load: WorkloadLoad) -> Selector | None:
        """The selector routing ``load``'s traffic now (None: no pods get it)."""
        if self._scale_selectors:
            key = (load.kind, load.namespace, load.name)
            if key in self._scale_selectors:
                return self._scale_selectors[key]
        lister = self._workloads.get(load.kind)
        workload = lister.get(load.namespace, load.name) if lister is not None else None
        if workload is None:
            return None
        # Parsed again only when the workload's resourceVersion moved (its selector is part
        # of it; every advance asks).
        key = (load.kind, load.namespace, load.name)
        version = str((workload.get("metadata") or {}).get("resourceVersion") or "")
        known = self._parsed_at.get(key)
        if version and known is not None and known[0] == version:
            return known[1]
        selector = _workload_selector(workload)
        if version:
            self._parsed_at[key] = (version, selector)
        return selector


def _workload_selector(workload: JSON) -> Selector | None:
    """A built-in workload's ``spec.selector``; None when it is missing, bad or empty."""
    try:
        selector = selector_from_label_selector((workload.get("spec") or {}).get("selector"))
    except SelectorError:
        return None
    return None if selector.empty() else selector


def may_be_custom(api_version: str, kind: str) -> bool:
    """Whether ``kind`` may be a CRD's: not a built-in kind, and in a group with a dot (a
    CustomResourceDefinition's group always has one, so core or ``apps`` cannot be it)."""
    group, _, _ = api_version.rpartition("/")
    return "." in group and not is_built_in(api_version, kind)
