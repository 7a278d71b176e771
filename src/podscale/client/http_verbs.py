"""The REST verbs of the HTTP transport: each one's method, path, query and body.

``HttpVerbs`` is a base class of ``HttpApi`` (``client.http``, which has the transport:
``request`` with its throttle and retries, discovery reads, the watch stream and
``ApiError``): ``get``, ``list``, ``create``, ``update``, ``patch``, ``delete`` and
``delete_collection`` build a resource's path (``client.paths.resource_path``), its query
(``selector_params``: label and field selectors, shared with ``HttpApi.watch``) and its body
(a ``DeleteOptions`` for the deletes), then call ``HttpApi.request``. No httpx here.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any

from podscale.api.kinds import KindInfo
from podscale.client.paths import resource_path
from podscale.store.interface import Preconditions

__all__ = ["HttpVerbs", "selector_params"]

JSON = dict[str, Any]


class HttpVerbs:
    """``HttpApi``'s REST verbs, each one ``request`` (``HttpApi.request``)."""

    if TYPE_CHECKING:

        async def request(
            self,
            method: str,
            path: str,
            *,
            params: dict[str, str] | None = None,
            body: JSON | builtins.list[Any] | None = None,
            content_type: str = "application/json",
            accept: str | None = None,
        ) -> JSON: ...

    async def get(
        self, kind: KindInfo, namespace: str | None, name: str, subresource: str | None = None
    ) -> JSON:
        return await self.request("GET", resource_path(kind, namespace, name, subresource))

    async def list(
        self,
        kind: KindInfo,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        limit: int | None = None,
        continue_token: str | None = None,
        resource_version: str | None = None,
        resource_version_match: str | None = None,
    ) -> JSON:
        """A list (one page with ``limit``); ``resource_version`` and
        ``resource_version_match`` pick the snapshot as upstream's ListOptions do."""
        params = selector_params(label_selector, field_selector)
        optional = {
            "limit": str(limit) if limit else None,
            "continue": continue_token,
            "resourceVersion": resource_version,
            "resourceVersionMatch": resource_version_match,
        }
        params.update({key: value for key, value in optional.items() if value})
        return await self.request("GET", resource_path(kind, namespace), params=params)

    async def create(
        self, kind: KindInfo, namespace: str | None, obj: JSON, *, subresource: str | None = None
    ) -> JSON:
        """POST a new object; with ``subresource`` (``binding``) POST ``obj`` to the
        subresource of the object its ``metadata.name`` names, as client-go's ``Bind``."""
        if subresource is None:
            return await self.request("POST", resource_path(kind, namespace), body=obj)
        name = str((obj.get("metadata") or {}).get("name") or "")
        path = resource_path(kind, namespace, name, subresource)
        return await self.request("POST", path, body=obj)

    async def update(
        self, kind: KindInfo, namespace: str | None, obj: JSON, subresource: str | None = None
    ) -> JSON:
        name = str(obj["metadata"]["name"])
        return await self.request(
            "PUT", resource_path(kind, namespace, name, subresource), body=obj
        )

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
        path = resource_path(kind, namespace, name, subresource)
        return await self.request("PATCH", path, body=patch, content_type=content_type)

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
        options: JSON = {"kind": "DeleteOptions", "apiVersion": "v1"}
        if propagation:
            options["propagationPolicy"] = propagation
        if grace_period_seconds is not None:
            options["gracePeriodSeconds"] = grace_period_seconds
        if preconditions is not None:
            wanted = {"uid": preconditions.uid, "resourceVersion": preconditions.resource_version}
            options["preconditions"] = {k: v for k, v in wanted.items() if v is not None}
        return await self.request("DELETE", resource_path(kind, namespace, name), body=options)

    async def delete_collection(
        self,
        kind: KindInfo,
        namespace: str | None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        propagation: str | None = None,
        grace_period_seconds: int | None = None,
    ) -> JSON:
        """DELETE on the collection: the objects the selectors match; the reply lists them."""
        options: JSON = {"kind": "DeleteOptions", "apiVersion": "v1"}
        if propagation:
            options["propagationPolicy"] = propagation
        if grace_period_seconds is not None:
            options["gracePeriodSeconds"] = grace_period_seconds
        params = selector_params(label_selector, field_selector)
        return await self.request(
            "DELETE", resource_path(kind, namespace), params=params, body=options
        )


def selector_params(label_selector: str | None, field_selector: str | None) -> dict[str, str]:
    """The query naming the selectors given (an empty or missing one is left out)."""
    params: dict[str, str] = {}
    if label_selector:
        params["labelSelector"] = label_selector
    if field_selector:
        params["fieldSelector"] = field_selector
    return params
