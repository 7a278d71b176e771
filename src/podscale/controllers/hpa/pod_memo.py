"""``PodMemo``: the per-pod values the HPA engine derives, kept per pod object between syncs.

Each sync hands ``podscale.hpa.decide`` the target's pods as the pod informer caches them;
from one sync to the next they are mostly the very same objects (a pod changes when the
kubelet writes its status, not every sync). The engine's ``PodReader`` values of a pod,
its readiness facts (``pod_facts``) and its requests (``pod_request``), are pure functions
of the pod's content, so the memo keeps them by the object's identity and resourceVersion:

- identity, with the object itself held, so that its id is never reused by another
  object while the entry lives; the informer replaces an object on every change and never
  edits a cached one (tests/integration/controllers/test_hpa_cache_untouched.py);
- the resourceVersion besides, so that even an object edited in place under a new
  version is read afresh.

A request that fails (``MetricError``) is not kept: it fails again when asked again.
``values`` answers both for a pod with one lookup; ``all_values`` answers it for a whole
list of pods (the calculator's one-pass scan, at every sync), keeping the list of answers
with the very objects it was made of: while an HPA's pods are all the same objects, that is
one identity check per pod, and no pod object is read. That list memo relies on the
informer's contract alone (an object is replaced on every change, never edited): reading
each pod's resourceVersion as well touched every cached pod of every HPA at every sync,
and those reads, each a cache miss into a pod's metadata, cost more than the whole scan
(``tests/unit/controllers/hpa/test_pod_memo.py`` holds it equal to ``values`` of each,
including after a pod is replaced).
The memo is cleared whenever it holds ``limit`` entries (pods come and go all day).
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from typing import Any, Final

from podscale.hpa.pod_facts import pod_facts, request_or_none
from podscale.hpa.pods import pod_request
from podscale.hpa.types import PodFacts

__all__ = ["PodMemo"]

DEFAULT_LIMIT: Final = 16384
_Values = tuple[PodFacts | None, int | None]


def _version(pod: Mapping[str, Any]) -> Any:
    meta = pod.get("metadata")
    # ``type(...) is dict`` first: an ABC ``isinstance`` per pod per sync was most of a hit.
    if type(meta) is dict or isinstance(meta, Mapping):
        return meta.get("resourceVersion")
    return None


class PodMemo:
    """A ``PodReader`` remembering each pod object's values (see the module docstring)."""

    __slots__ = ("_facts", "_limit", "_lists", "_requests", "_values")

    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        self._limit = limit
        # id(pod) -> (pod, its resourceVersion, its facts)
        self._facts: dict[int, tuple[Mapping[str, Any], Any, PodFacts | None]] = {}
        # (id(pod), container, resource) -> (pod, its resourceVersion, the request)
        self._requests: dict[tuple[int, str, str], tuple[Mapping[str, Any], Any, int]] = {}
        # id(pod) -> (pod, its resourceVersion, container, resource, ``values``' answer):
        # the last pair asked of each pod (an HPA asks one at every sync).
        self._values: dict[int, tuple[Mapping[str, Any], Any, str, str, _Values]] = {}
        # (id(first pod), count, container, resource) -> (the pods, ``all_values``' answer):
        # the last list asked with that first pod (one per HPA).
        self._lists: dict[
            tuple[int, int, str, str],
            tuple[tuple[Mapping[str, Any], ...], tuple[_Values, ...]],
        ] = {}

    def __len__(self) -> int:
        return len(self._facts) + len(self._requests) + len(self._values) + len(self._lists)

    def facts(self, pod: Mapping[str, Any]) -> PodFacts | None:
        meta = pod.get("metadata")  # _version, inlined for the usual dict: per pod per sync
        version = meta.get("resourceVersion") if type(meta) is dict else _version(pod)
        kept = self._facts.get(id(pod))
        if kept is not None and kept[0] is pod and kept[1] == version:
            return kept[2]
        facts = pod_facts(pod)
        if len(self._facts) >= self._limit:
            self._facts.clear()
        self._facts[id(pod)] = (pod, version, facts)
        return facts

    def request(self, pod: Mapping[str, Any], container: str, resource: str) -> int:
        meta = pod.get("metadata")
        version = meta.get("resourceVersion") if type(meta) is dict else _version(pod)
        key = (id(pod), container, resource)
        kept = self._requests.get(key)
        if kept is not None and kept[0] is pod and kept[1] == version:
            return kept[2]
        request = pod_request(pod, container, resource)
        if len(self._requests) >= self._limit:
            self._requests.clear()
        self._requests[key] = (pod, version, request)
        return request

    def values(self, pod: Mapping[str, Any], container: str, resource: str) -> _Values:
        """``facts`` and ``request`` (None when it fails) with one lookup: kept like them,
        by the pod object and its resourceVersion, and by the container and resource."""
        meta = pod.get("metadata")
        version = meta.get("resourceVersion") if type(meta) is dict else _version(pod)
        kept = self._values.get(id(pod))
        if (
            kept is not None
            and kept[0] is pod
            and kept[1] == version
            and kept[2] == container
            and kept[3] == resource
        ):
            return kept[4]
        answer = (self.facts(pod), request_or_none(self, pod, container, resource))
        if answer[1] is not None:  # a failing request is not kept, as by ``request``
            if len(self._values) >= self._limit:
                self._values.clear()
            self._values[id(pod)] = (pod, version, container, resource, answer)
        return answer

    def all_values(
        self, pods: Sequence[Mapping[str, Any]], container: str, resource: str
    ) -> tuple[_Values, ...]:
        """``values`` of each of ``pods``: the list's answers kept while every pod is the
        same object (see the module docstring: by identity alone)."""
        if not pods:
            return ()
        key = (id(pods[0]), len(pods), container, resource)
        kept = self._lists.get(key)
        if kept is not None and all(map(operator.is_, kept[0], pods)):
            return kept[1]
        answers = tuple([self.values(pod, container, resource) for pod in pods])
        if all(answer[1] is not None for answer in answers):  # failures are not kept
            if len(self._lists) >= self._limit:
                self._lists.clear()
            # The objects themselves held: their ids are never reused while kept.
            self._lists[key] = (tuple(pods), answers)
        return answers
