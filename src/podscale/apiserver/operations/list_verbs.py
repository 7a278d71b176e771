"""The LIST verb without HTTP: one page of a collection, and the ``XList`` object of it.

``list_page`` reads a page (selectors from ``operations.selectors``, the resourceVersion
read planned by ``operations.list_options``); ``wait_for_list_revision`` first waits for a
revision the store has not reached, as upstream does, and ``list_fresh_page`` is the two in
order; ``list_shared_page`` serves a whole list through ``operations.shared_list``'s memo;
``list_body`` wraps a page. The HTTP shell (``http.handlers_read``) and the in-process client
(``podscale.client.inprocess``) call these; GET and the shared checks are
``operations.verbs``', WATCH ``operations.watch``'.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from podscale.api.kinds import KindInfo
from podscale.apiserver.errors import from_store_error
from podscale.apiserver.operations import list_options
from podscale.apiserver.operations.selectors import build_predicate
from podscale.apiserver.operations.shared_list import SharedItems
from podscale.apiserver.operations.types import ListPage
from podscale.apiserver.resources import storage_resource, to_served
from podscale.apiserver.state import ServerState
from podscale.store.errors import TooLargeResourceVersionError
from podscale.store.interface import StoreError

__all__ = [
    "list_body",
    "list_fresh_page",
    "list_page",
    "list_shared_page",
    "wait_for_list_revision",
]

JSON = dict[str, Any]


def list_page(
    state: ServerState,
    info: KindInfo,
    namespace: str | None,
    *,
    label_selector: str = "",
    field_selector: str = "",
    limit: int | None = None,
    continue_token: str | None = None,
    resource_version: str = "",
    resource_version_match: str = "",
) -> ListPage:
    """One page of a list (all of it without ``limit``), items served, selectors applied,
    read as ``resource_version``/``resource_version_match`` ask (``list_options``). This
    form never waits: a revision the store has not reached is the 504 at once;
    ``list_fresh_page`` first waits for it as upstream does."""
    predicate, _ = build_predicate(
        info, {"labelSelector": label_selector, "fieldSelector": field_selector}
    )
    read = list_options.plan_list_read(
        resource_version, resource_version_match, limit=limit, continue_token=continue_token
    )
    return _read_page(state, info, namespace, predicate, read, limit, continue_token)


async def wait_for_list_revision(
    state: ServerState,
    info: KindInfo,
    *,
    resource_version: str = "",
    resource_version_match: str = "",
    limit: int | None = None,
    continue_token: str | None = None,
) -> None:
    """Check a LIST's resourceVersion options and wait, up to
    ``list_options.FRESHNESS_TIMEOUT``, for a revision the store has not reached (never
    answering with older data); upstream's 504 "Too large resource version" after that."""
    read = list_options.plan_list_read(
        resource_version, resource_version_match, limit=limit, continue_token=continue_token
    )
    if read.minimum > state.store.revision:
        try:
            await state.store.wait_for_revision(
                read.minimum, timeout=list_options.FRESHNESS_TIMEOUT
            )
        except StoreError as err:
            raise from_store_error(err, storage_resource(info), "") from None


async def list_fresh_page(
    state: ServerState,
    info: KindInfo,
    namespace: str | None,
    *,
    label_selector: str = "",
    field_selector: str = "",
    limit: int | None = None,
    continue_token: str | None = None,
    resource_version: str = "",
    resource_version_match: str = "",
) -> ListPage:
    """``list_page`` for the transports, after ``wait_for_list_revision``."""
    await wait_for_list_revision(
        state,
        info,
        resource_version=resource_version,
        resource_version_match=resource_version_match,
        limit=limit,
        continue_token=continue_token,
    )
    return list_page(
        state,
        info,
        namespace,
        label_selector=label_selector,
        field_selector=field_selector,
        limit=limit,
        continue_token=continue_token,
        resource_version=resource_version,
        resource_version_match=resource_version_match,
    )


def list_shared_page(
    state: ServerState, info: KindInfo, namespace: str | None, shared: SharedItems
) -> ListPage:
    """The whole current list (no selector, limit or resourceVersion), the one
    ``list_page`` reads, its items served through ``shared`` (``operations.shared_list``):
    objects unchanged since an earlier call are the items handed out then, read-only."""
    read = list_options.plan_list_read("", "", limit=None, continue_token=None)
    memo = shared.memo(info, namespace)
    page = _read_page(state, info, namespace, None, read, None, None, served=memo)
    memo.turn()
    return page


def _read_page(
    state: ServerState,
    info: KindInfo,
    namespace: str | None,
    predicate: Callable[[JSON], bool] | None,
    read: list_options.ListRead,
    limit: int | None,
    continue_token: str | None,
    *,
    served: Callable[[bytes], JSON] | None = None,
) -> ListPage:
    """``served``, when given, makes each item from its stored bytes as served."""
    resource = storage_resource(info)
    try:
        current = state.store.revision
        if read.minimum > current:
            raise TooLargeResourceVersionError(read.minimum, current)
        result = state.store.list(
            resource,
            namespace if info.namespaced else None,
            predicate=predicate,
            limit=limit,
            continue_token=continue_token or None,
            revision=read.exact,
            decode=served,
        )
    except StoreError as err:
        raise from_store_error(err, resource, "") from None
    metadata: JSON = {"resourceVersion": str(result.revision)}
    if result.continue_token:
        metadata["continue"] = result.continue_token
        if result.remaining is not None:
            metadata["remainingItemCount"] = result.remaining
    if served is not None:
        return ListPage(result.items, metadata)
    return ListPage([to_served(item, info) for item in result.items], metadata)


def list_body(info: KindInfo, page: ListPage) -> JSON:
    """The ``XList`` object of a page (its items gain apiVersion/kind)."""
    for item in page.items:
        # Items of a typed list carry no kind/apiVersion in Go's encoding; clients accept both,
        # but keeping them lets `kubectl get -o yaml` round-trip items as given.
        item.setdefault("apiVersion", info.api_version)
        item.setdefault("kind", info.kind)
    return {
        "kind": info.list_kind,
        "apiVersion": info.api_version,
        "metadata": page.metadata,
        "items": page.items,
    }
