"""Records the API calls controllers make, as RBAC sees them: (verb, group, resource,
subresource).

``RecordingApi`` wraps a ``ControllerApi`` (one per controller, so each call is charged to
the controller that made it); ``RecordingInformers`` charges the informers a controller
asks for (list and watch of the kind); ``Attributed`` hands a controller the recording
informers when the manager binds it; ``RecordingTransport`` records the HTTP requests of
the metrics client, resolving a path as kube-apiserver's RequestInfo does (a GET with a
name is ``get``, without one ``list``).
"""

from __future__ import annotations

import builtins
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from podscale.api.kinds import KindInfo
from podscale.client.discovery import ServedKinds
from podscale.client.informer import Informer, ListWatcher
from podscale.client.workqueue import WorkQueue
from podscale.controllers.manager import Controller
from podscale.controllers.runtime_api import ControllerApi, SharedInformers
from podscale.store.interface import Preconditions

JSON = dict[str, Any]


@dataclass(frozen=True, order=True)
class Call:
    verb: str
    group: str
    resource: str
    subresource: str = ""

    def __str__(self) -> str:
        resource = f"{self.resource}/{self.subresource}" if self.subresource else self.resource
        return f"{self.verb} {self.group or 'core'}/{resource}"


DISCOVERY = Call("get", "(discovery)", "")


class Recorder:
    def __init__(self) -> None:
        self.calls: set[Call] = set()

    def note(self, verb: str, kind: KindInfo, subresource: str | None = None) -> None:
        self.calls.add(Call(verb, kind.group, kind.plural, subresource or ""))


class RecordingApi:
    """A ``ControllerApi`` (and ``KindDiscovery``) over ``inner`` that records each call."""

    def __init__(self, inner: Any, recorder: Recorder) -> None:
        self._inner = inner
        self._recorder = recorder

    async def get(
        self, kind: KindInfo, namespace: str | None, name: str, subresource: str | None = None
    ) -> JSON:
        self._recorder.note("get", kind, subresource)
        return await self._inner.get(kind, namespace, name, subresource)  # type: ignore[no-any-return]

    async def list(
        self,
        kind: KindInfo,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> JSON:
        self._recorder.note("list", kind)
        return await self._inner.list(  # type: ignore[no-any-return]
            kind, namespace, label_selector=label_selector, field_selector=field_selector
        )

    def watch(
        self,
        kind: KindInfo,
        namespace: str | None = None,
        *,
        resource_version: str = "",
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> AsyncIterator[tuple[str, JSON]]:
        self._recorder.note("watch", kind)
        return self._inner.watch(  # type: ignore[no-any-return]
            kind,
            namespace,
            resource_version=resource_version,
            label_selector=label_selector,
            field_selector=field_selector,
        )

    async def create(
        self, kind: KindInfo, namespace: str | None, obj: JSON, *, subresource: str | None = None
    ) -> JSON:
        self._recorder.note("create", kind, subresource)
        return await self._inner.create(kind, namespace, obj, subresource=subresource)  # type: ignore[no-any-return]

    async def update(
        self, kind: KindInfo, namespace: str | None, obj: JSON, subresource: str | None = None
    ) -> JSON:
        self._recorder.note("update", kind, subresource)
        return await self._inner.update(kind, namespace, obj, subresource)  # type: ignore[no-any-return]

    async def patch(
        self,
        kind: KindInfo,
        namespace: str | None,
        name: str,
        patch: JSON | builtins.list[Any],
        *,
        content_type: str = "application/merge-patch+json",
        subresource: str | None = None,
    ) -> JSON:
        self._recorder.note("patch", kind, subresource)
        return await self._inner.patch(  # type: ignore[no-any-return]
            kind, namespace, name, patch, content_type=content_type, subresource=subresource
        )

    async def delete(
        self,
        kind: KindInfo,
        namespace: str | None,
        name: str,
        *,
        propagation: str | None = None,
        preconditions: Preconditions | None = None,
        grace_period_seconds: int | None = None,
    ) -> JSON:
        self._recorder.note("delete", kind)
        return await self._inner.delete(  # type: ignore[no-any-return]
            kind,
            namespace,
            name,
            propagation=propagation,
            preconditions=preconditions,
            grace_period_seconds=grace_period_seconds,
        )

    async def rest_mappings(self, group: str, kind: str) -> builtins.list[KindInfo]:
        self._recorder.calls.add(DISCOVERY)
        return await self._inner.rest_mappings(group, kind)  # type: ignore[no-any-return]

    async def served_kinds(self) -> ServedKinds:
        self._recorder.calls.add(DISCOVERY)
        return await self._inner.served_kinds()  # type: ignore[no-any-return]


class RecordingInformers:
    """``SharedInformers`` as one controller sees it: each informer it asks for is a list
    and a watch of that kind under its name."""

    def __init__(self, inner: SharedInformers, recorder: Recorder) -> None:
        self._inner = inner
        self._recorder = recorder

    def informer_for(self, kind: KindInfo, source: ListWatcher | None = None) -> Informer:
        self._recorder.note("list", kind)
        self._recorder.note("watch", kind)
        return self._inner.informer_for(kind, source)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class Attributed:
    """``controller`` with its informers charged to ``recorder``."""

    def __init__(self, controller: Controller, recorder: Recorder) -> None:
        self.inner = controller
        self._recorder = recorder
        for kind in controller.informer_kinds:
            recorder.note("list", kind)
            recorder.note("watch", kind)

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def workers_flag(self) -> str:
        return self.inner.workers_flag

    @property
    def informer_kinds(self) -> Sequence[KindInfo]:
        return self.inner.informer_kinds

    def bind(self, informers: SharedInformers, queue: WorkQueue[str]) -> None:
        recording: Any = RecordingInformers(informers, self._recorder)
        self.inner.bind(recording, queue)

    async def reconcile(self, key: str) -> None:
        await self.inner.reconcile(key)


def request_call(method: str, path: str) -> Call:
    """kube-apiserver's RequestInfo of a resource request, as the RBAC attributes."""
    parts = [part for part in path.split("/") if part]
    if parts[:1] == ["api"]:
        group, rest = "", parts[2:]
    else:
        group, rest = parts[1], parts[3:]
    if rest[:1] == ["namespaces"] and len(rest) > 2:
        rest = rest[2:]
    resource = rest[0]
    name = rest[1] if len(rest) > 1 else ""
    subresource = rest[2] if len(rest) > 2 else ""
    verb = {"GET": "get" if name else "list", "POST": "create", "PUT": "update"}.get(
        method, method.lower()
    )
    return Call(verb, group, resource, subresource)


class RecordingTransport(httpx.AsyncBaseTransport):
    def __init__(self, inner: httpx.AsyncBaseTransport, recorder: Recorder) -> None:
        self._inner = inner
        self._recorder = recorder

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self._recorder.calls.add(request_call(request.method, request.url.path))
        return await self._inner.handle_async_request(request)


def as_controller_api(api: RecordingApi) -> ControllerApi:
    wrapped: Any = api
    return wrapped  # type: ignore[no-any-return]
