"""The byte-valued maps of Secrets and ConfigMaps as upstream's decoder reads them.

``Secret.data`` and ``ConfigMap.binaryData`` are Go ``[]byte`` maps: on the wire each value is
standard, padded base64, and a value that is not is refused by the decoder (a 400 before any
validation) with Go's ``illegal base64 data at input byte N``. ``Secret.stringData`` is
write-only: upstream's v1 -> internal conversion merges it into ``data`` (its keys win) and
drops it, so no stored or served Secret ever has it. ``normalize_data_maps`` does both on a
copy and re-encodes every value canonically, as a decode/encode round trip through Go would.

The API server's admission (``podscale.apiserver.registry.admission``) calls it before defaulting;
``podscale.api.validation.core_config`` then checks keys and sizes on the decoded byte counts
(``decoded_size``). Pure: no I/O. Error texts never carry a value, only its position, so a
secret cannot leak through an error message or a log line.
"""

from __future__ import annotations

import base64
import binascii
import copy
from collections.abc import Mapping
from typing import Any, Final

__all__ = ["DataError", "decode_base64", "decoded_size", "normalize_data_maps"]

JSON = dict[str, Any]

_ALPHABET: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
# (apiVersion, kind) -> the fields holding base64 byte maps.
_BYTE_MAPS: Final[Mapping[tuple[str, str], tuple[str, ...]]] = {
    ("v1", "Secret"): ("data",),
    ("v1", "ConfigMap"): ("binaryData",),
}


class DataError(ValueError):
    """A byte map the decoder refuses; ``str()`` is upstream's decoder message."""


def decode_base64(text: str) -> bytes:
    """``text`` decoded like Go's ``base64.StdEncoding`` (padding required; CR/LF skipped).

    Raises ``DataError("illegal base64 data at input byte N")``: N is the offset of the
    first character outside the alphabet, or of the quantum the input ends in the middle of.
    """
    compact = text.replace("\r", "").replace("\n", "")
    stripped = compact.rstrip("=")
    padding = len(compact) - len(stripped)
    for index, char in enumerate(stripped):
        if char not in _ALPHABET:
            raise DataError(f"illegal base64 data at input byte {index}")
    if len(compact) % 4 or padding > 2 or (padding and len(stripped) % 4 == 0):
        raise DataError(f"illegal base64 data at input byte {len(stripped) - len(stripped) % 4}")
    try:
        return base64.b64decode(compact, validate=True)
    except binascii.Error:  # pragma: no cover - the checks above cover every malformed shape
        raise DataError(f"illegal base64 data at input byte {len(stripped)}") from None


def decoded_size(value: Any) -> int:
    """Bytes a base64 value stands for (0 for anything that is not a string)."""
    if not isinstance(value, str):
        return 0
    compact = value.replace("\r", "").replace("\n", "")
    stripped = compact.rstrip("=")
    return len(stripped) * 3 // 4


def normalize_data_maps(obj: JSON) -> JSON:
    """``obj`` with its byte maps decoded and canonically re-encoded, and a Secret's
    ``stringData`` merged into ``data``; other kinds come back unchanged (same object).

    Raises ``DataError`` for a value that is not base64, ``TypeError`` for a map of the wrong
    shape (admission reports both as a 400).
    """
    key = (str(obj.get("apiVersion", "")), str(obj.get("kind", "")))
    fields = _BYTE_MAPS.get(key)
    if fields is None:
        return obj
    result = copy.copy(obj)
    for name in fields:
        values = result.get(name)
        if values is None:
            continue
        if not isinstance(values, dict):
            raise TypeError(f"{name} must be a map")
        result[name] = {k: _canonical(v) for k, v in values.items()}
    if key == ("v1", "Secret") and "stringData" in result:
        strings = result.pop("stringData")
        if strings is not None and not isinstance(strings, dict):
            raise TypeError("stringData must be a map")
        if strings:
            merged = dict(result.get("data") or {})
            for k, v in strings.items():
                if not isinstance(v, str):
                    raise TypeError("stringData values must be strings")
                merged[k] = base64.b64encode(v.encode("utf-8")).decode("ascii")
            result["data"] = merged
    return result


def _canonical(value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TypeError("byte values must be base64 strings")
    return base64.b64encode(decode_base64(value)).decode("ascii")
