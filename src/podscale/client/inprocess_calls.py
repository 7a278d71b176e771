"""How the in-process transport calls an API server operation: errors and write options.

``InProcessApi`` (``client.inprocess``) runs each operation through ``call`` (or
``call_async`` for one that may wait): the server's ``Status`` comes out as ``ApiError``,
anything unexpected as the server's generic 500, as the HTTP server would answer them.
``write_options`` builds the ``admission.WriteOptions`` of a write by a field manager.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Final, TypeVar

from podscale.apiserver import errors as server_errors
from podscale.apiserver.registry import admission
from podscale.client.http import ApiError

__all__ = ["DEFAULT_OPTIONS", "call", "call_async", "write_options"]

T = TypeVar("T")
_LOG = logging.getLogger("podscale.client.inprocess")
# The server's default is Warn, but warnings only become HTTP headers, which this transport
# (like ``HttpApi``) does not return: Ignore gives the same objects and errors, faster.
DEFAULT_OPTIONS = admission.WriteOptions(dry_run=False, field_validation="Ignore")


def call(operation: Callable[[], T]) -> T:
    """Run an operation as the HTTP server would: its ``Status`` as ``ApiError``, anything
    unexpected as the server's generic 500 (the original exception chained for debugging)."""
    try:
        return operation()
    except server_errors.ApiError as err:
        raise ApiError(err.code, err.status) from None
    except Exception as err:
        _LOG.exception("unexpected error in an in-process API call")
        failure = server_errors.internal_error()
        raise ApiError(failure.code, failure.status) from err


async def call_async(operation: Awaitable[T]) -> T:
    """``call`` for an operation that may wait (a list for a revision not yet reached)."""
    try:
        return await operation
    except server_errors.ApiError as err:
        raise ApiError(err.code, err.status) from None
    except Exception as err:
        _LOG.exception("unexpected error in an in-process API call")
        failure = server_errors.internal_error()
        raise ApiError(failure.code, failure.status) from err


_PLAIN_OPTIONS: dict[tuple[str, bool | None], admission.WriteOptions] = {}
_PLAIN_OPTIONS_LIMIT: Final = 256


def write_options(
    dry_run: bool, field_validation: str | None, field_manager: str, force: bool | None = None
) -> admission.WriteOptions:
    if not dry_run and field_validation is None:
        # The options of a plain write by a manager: frozen, so made once per manager.
        key = (field_manager, force)
        known = _PLAIN_OPTIONS.get(key)
        if known is None:
            if len(_PLAIN_OPTIONS) > _PLAIN_OPTIONS_LIMIT:
                _PLAIN_OPTIONS.clear()
            known = _PLAIN_OPTIONS[key] = replace(
                DEFAULT_OPTIONS,
                field_manager=field_manager,
                force=None if force is None else ("true" if force else "false"),
            )
        return known
    mode = field_validation or DEFAULT_OPTIONS.field_validation
    options = call(lambda: admission.parse_write_options(["All"] if dry_run else [], mode))
    return replace(
        options,
        field_manager=field_manager,
        force=None if force is None else ("true" if force else "false"),
    )
