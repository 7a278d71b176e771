"""The object an update replaces, read with the stored bytes it was decoded from.

``verbs.get_object`` reads an object as served; an update then hands the new state to the
store, which decodes the stored object once more (for the optimistic-concurrency check, the
kept metadata and the no-op test). ``read_current`` gives the caller, with the served
object, the store hint ``Store.update(..., current=)`` takes instead of that second decode:
the stored bytes and the served object, when serving left it the very object those bytes
decode to (the same bytes again); never for a custom kind, whose admission reads the old
object through its own conversion. ``subresources.update_status`` uses it: a status write
reads ``old`` and never changes it (the status strategy copies what it keeps from it).
Whether serving changed the object is told without encoding it again where it can be
(``_status_size``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import orjson

from podscale.api.kinds import KindInfo
from podscale.apiserver.customresources.definitions import CustomKind
from podscale.apiserver.errors import from_store_error
from podscale.apiserver.resources import storage_resource, to_served
from podscale.apiserver.state import ServerState
from podscale.store.interface import StoreError

__all__ = ["Current", "read_current"]

JSON = dict[str, Any]


class Current(NamedTuple):
    """The object as served, and the store's hint for replacing it (None: none holds)."""

    old: JSON
    hint: tuple[bytes, JSON] | None


def read_current(state: ServerState, info: KindInfo, namespace: str | None, name: str) -> Current:
    """``verbs.get_object``'s object, with the hint when serving did not change it."""
    resource = storage_resource(info)
    try:
        data = state.store.get_encoded(resource, namespace or "", name)
    except StoreError as err:
        raise from_store_error(err, resource, name) from None
    decoded = orjson.loads(data)
    size = _status_size(decoded)
    old = to_served(decoded, info)
    if isinstance(info, CustomKind):
        return Current(old, None)
    if old is decoded and _status_size(old) == size:
        return Current(old, (data, old))
    if orjson.dumps(old) != data:
        return Current(old, None)
    return Current(old, (data, old))


def _status_size(obj: JSON) -> int:
    """How many keys ``obj``'s status has (-1: it has none, or not an object).

    ``to_served`` of a built-in kind either makes a new object (a conversion: the HPA's
    other versions, events.k8s.io Events) or, in place, makes a missing or malformed status
    an empty one and adds status keys upstream always serializes, never changing a value
    that is there: the same object with a status of as many keys as before is unchanged,
    which spares encoding it to compare."""
    status = obj.get("status")
    return len(status) if type(status) is dict else -1
