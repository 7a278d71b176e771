"""A decision trace's stored JSON document, made in one pass of the JSON encoder.

The HPA controller stores ``trace_to_dict`` of the last decision as JSON
(``podscale.controllers.hpa.history_store``), and compares what it would store through
JSON, so that tuples compare as the lists the stored document holds: the document is
``orjson.loads(orjson.dumps(trace_to_dict(trace)))``. ``trace_document`` gives the same
document without building the dict form first: orjson walks the trace itself and hands
each value it does not encode natively to ``_default``, which converts it exactly as
``trace``'s ``_plain`` does (by the same class test, ``_how``): a record to the dict of
its fields, a time to its RFC 3339 text, a duration to seconds, a mapping other than a
dict to a dict of ``str`` keys, a sequence to a list. What orjson would encode otherwise
than ``_plain`` is refused instead (``TypeError``) and answered by the general path:
a dict key that is not exactly a ``str`` (``_plain`` applies ``str()`` to it), a subclass
of ``str``, ``int`` or ``float``, a dataclass. Neighbours: ``trace`` (the records and
``trace_to_dict``), the controller's ``history_store`` (the caller).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

import orjson

from podscale.api.timestamps import format_time
from podscale.hpa.trace import (
    _DURATION,
    _FIELDS,
    _MAPPING,
    _SEQUENCE,
    _TIME,
    DecisionTrace,
    _how,
    trace_to_dict,
)
from podscale.hpa.types import Recommendation

__all__ = ["trace_document"]

# Records, times and anything not a plain builtin reach ``_default``; dataclasses too (as
# ``_plain`` reads their fields, orjson would read its own way), to be refused there.
_OPTIONS: Final = (
    orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
)


class _Refused(TypeError):
    """A value ``_default`` leaves to the general path."""


# The forms of the recommendations stabilization looked at, by the record (held, so that
# its id is not reused while kept): consecutive traces look at mostly the same records of
# the history. A record is an immutable pair of an int and a datetime, and orjson only
# reads the form handed to it, so a kept form is exactly the one a new one would be.
_FORMS: dict[int, tuple[Recommendation, dict[str, Any]]] = {}
_FORMS_LIMIT: Final = 4096


def _recommendation(record: Recommendation) -> dict[str, Any]:
    """``_plain``'s own form of a recommendation with an int count and a datetime."""
    kept = _FORMS.get(id(record))
    if kept is not None and kept[0] is record:
        return kept[1]
    form = {"replicas": record[0], "timestamp": format_time(record[1])}
    if len(_FORMS) >= _FORMS_LIMIT:
        _FORMS.clear()
    _FORMS[id(record)] = (record, form)
    return form


def _default(value: Any) -> Any:
    cls = type(value)
    if cls is datetime:
        return format_time(value)  # as ``_plain`` formats a time
    if cls is Recommendation and type(value[0]) is int and type(value[1]) is datetime:
        return _recommendation(value)
    how, fields = _how(value)
    if how == _FIELDS:
        if not isinstance(value, tuple):
            raise _Refused  # a dataclass
        return {name: getattr(value, name) for name in fields}
    if how == _TIME:
        return format_time(value)  # as ``_plain`` formats a time
    if how == _DURATION:
        return value.total_seconds()
    if how == _MAPPING:
        return {str(key): item for key, item in value.items()}
    if how == _SEQUENCE:
        return list(value)
    raise _Refused  # a scalar subclass, or a type orjson does not know


def trace_document(trace: DecisionTrace) -> dict[str, Any]:
    """``orjson.loads(orjson.dumps(trace_to_dict(trace)))``, in one pass when it can."""
    try:
        document = orjson.loads(orjson.dumps(trace, default=_default, option=_OPTIONS))
    except TypeError:  # refused (orjson's own errors are TypeErrors too): the general path
        document = orjson.loads(orjson.dumps(trace_to_dict(trace)))
    assert isinstance(document, dict)
    return document
