"""One resource of an API client, as an informer's ``ListWatcher``.

Both transports (``http.HttpApi`` and ``inprocess.InProcessApi``) offer the same ``list``
and ``watch`` calls, so one adapter serves both: ``ApiListWatcher`` fixes the kind, the
namespace and the selectors, and hands ``podscale.client.informer.Informer`` exactly the
two calls it needs.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol

from podscale.api.kinds import KindInfo

__all__ = ["ApiListWatcher", "ResourceApi"]

JSON = dict[str, Any]


class ResourceApi(Protocol):
    """The part of a client the list-watcher uses (both transports implement it)."""

    async def list(
        self,
        kind: KindInfo,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> JSON: ...

    def watch(
        self,
        kind: KindInfo,
        namespace: str | None = None,
        *,
        resource_version: str = "",
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> AsyncIterator[tuple[str, JSON]]: ...


class ApiListWatcher:
    """One resource (optionally one namespace and selectors) for an ``Informer``."""

    def __init__(
        self,
        api: ResourceApi,
        kind: KindInfo,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> None:
        self._api = api
        self._kind = kind
        self._namespace = namespace
        self._labels = label_selector
        self._fields = field_selector

    async def list(self) -> tuple[list[JSON], str]:
        result = await self._api.list(
            self._kind, self._namespace, label_selector=self._labels, field_selector=self._fields
        )
        items = result.get("items") or []
        return list(items), str((result.get("metadata") or {}).get("resourceVersion") or "")

    def watch(self, resource_version: str) -> AsyncIterator[tuple[str, JSON]]:
        return self._api.watch(
            self._kind,
            self._namespace,
            resource_version=resource_version,
            label_selector=self._labels,
            field_selector=self._fields,
        )
