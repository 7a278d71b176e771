"""Deep copies of decoded JSON values: the one copy the layers above share.

Controllers copy what their informers cache before changing it, admission copies a request
body before defaulting it, the patcher copies the documents it merges, the in-process client
copies what crosses its boundary. An orjson round trip copies a typical object about 7x
faster than ``copy.deepcopy`` (a Deployment: 4.5 us against 33 us on the 2-core machines of
docs/performance.md) and 2.5x faster than a recursive copy. Values orjson refuses (integers
beyond 64 bits, non-string keys, nesting deeper than 255 levels, datetimes) are copied by an
iterative walk instead, so no input can overflow the stack.

The contract is JSON: tuples come back as lists, and NaN or infinities (which no JSON
document carries) would come back as null.
"""

from __future__ import annotations

from typing import Any, TypeVar

import orjson

__all__ = ["copy_json"]

T = TypeVar("T")


def copy_json(value: T) -> T:
    """A deep copy of ``value``, a decoded JSON value (dicts, lists, scalars)."""
    if not isinstance(value, dict | list):
        return value
    try:
        copied: Any = orjson.loads(orjson.dumps(value, option=orjson.OPT_PASSTHROUGH_DATETIME))
    except TypeError:  # orjson.JSONEncodeError included
        walked: T = _walk(value)
        return walked
    result: T = copied
    return result


def _walk(value: Any) -> Any:
    """Iterative deep copy of dicts and lists (other values are shared, as immutables)."""
    root: Any = {} if isinstance(value, dict) else []
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:
        source, dest = stack.pop()
        pairs = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in pairs:
            child = item
            if isinstance(item, dict | list):
                child = {} if isinstance(item, dict) else []
                stack.append((item, child))
            if isinstance(dest, dict):
                dest[key] = child
            else:
                dest.append(child)
    return root
