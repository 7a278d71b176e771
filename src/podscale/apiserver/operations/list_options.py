"""How a LIST reads the store: resourceVersion, resourceVersionMatch, limit and continue.

Pure: ``plan_list_read`` validates the options as kube-apiserver's list handler and storage
layer do, and says which read the request asks for (the "Semantics for get and list" of the
API concepts docs); ``list_verbs.list_page`` and ``list_verbs.list_fresh_page`` carry it out
on the store. The cases:

- no resourceVersion: the most recent state; "0": any state, ours is the most recent one;
- ``Exact`` N, and the legacy N (no match) with a ``limit``: exactly the state at N;
- ``NotOlderThan`` N, and the legacy N without a limit: a state at least as new as N (the
  store must first reach N; upstream's watch cache waits up to 3 s for it);
- ``continue``: the token's own snapshot; a resourceVersion other than "0" is a 400.

Option combinations upstream's ``ValidateListOptions`` rejects are a 422 on
``ListOptions.meta.k8s.io``; an unparsable resourceVersion is the storage layer's 400.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from podscale.api.field_errors import (
    ErrorType,
    FieldError,
    forbidden,
    invalid,
    invalid_status,
)
from podscale.apiserver.errors import ApiError, bad_request

__all__ = ["FRESHNESS_TIMEOUT", "ListRead", "plan_list_read"]

# Upstream's watch cache blockTimeout: how long a read waits for a revision to arrive.
FRESHNESS_TIMEOUT: Final = 3.0
EXACT: Final = "Exact"
NOT_OLDER_THAN: Final = "NotOlderThan"
_MAX_UINT64: Final = 2**64 - 1
_DIGITS = re.compile(r"[0-9]+")


@dataclass(frozen=True, slots=True)
class ListRead:
    """``exact``: serve the snapshot at this revision (None: the current state, or the
    continue token's). ``minimum``: the revision the store must reach first (0: none)."""

    exact: int | None = None
    minimum: int = 0


def _validate(resource_version: str, match: str, continue_token: str) -> list[FieldError]:
    """Upstream's ``ValidateListOptions`` for a list (not a watch), in its order."""
    errors: list[FieldError] = []
    if not match:
        return errors
    path = "resourceVersionMatch"
    if not resource_version:
        errors.append(
            forbidden(path, "resourceVersionMatch is forbidden unless resourceVersion is provided")
        )
    if continue_token:
        errors.append(
            forbidden(path, "resourceVersionMatch is forbidden when continue is provided")
        )
    if match not in (EXACT, NOT_OLDER_THAN):
        # Upstream lists the supported values in this order (not sorted).
        errors.append(
            FieldError(
                ErrorType.NOT_SUPPORTED,
                path,
                match,
                'supported values: "Exact", "NotOlderThan", ""',
            )
        )
    if match == EXACT and resource_version == "0":
        errors.append(
            forbidden(path, 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"')
        )
    return errors


def parse_revision(text: str) -> int:
    """A resourceVersion as the storage layer parses it ("" and "0" are 0); 400 otherwise,
    worded as upstream's (its versioner's field error wrapped in ``invalid resource version``)."""
    if not text:
        return 0
    if _DIGITS.fullmatch(text) is None:
        reason = f'strconv.ParseUint: parsing "{text}": invalid syntax'
    elif int(text) > _MAX_UINT64:
        reason = f'strconv.ParseUint: parsing "{text}": value out of range'
    else:
        return int(text)
    error = invalid("resourceVersion", text, reason)
    raise bad_request(f"invalid resource version: {error}")


def plan_list_read(
    resource_version: str, match: str, *, limit: int | None, continue_token: str | None
) -> ListRead:
    """The read a LIST asks for; ``ApiError`` (422, 400) for options upstream refuses."""
    errors = _validate(resource_version, match, continue_token or "")
    if errors:
        raise ApiError(invalid_status("ListOptions", "meta.k8s.io", "", errors))
    if continue_token:
        if resource_version not in ("", "0"):
            raise bad_request("specifying resource version is not allowed when using continue")
        return ListRead()
    revision = parse_revision(resource_version)
    if revision == 0:
        return ListRead()
    if match == EXACT or (not match and limit is not None and limit > 0):
        return ListRead(exact=revision, minimum=revision)
    return ListRead(minimum=revision)
