"""The protobuf wire format, read: tags, varints, length-delimited payloads, skipping.

The lowest layer of podscale's protobuf request decoding. ``protobuf.decode`` walks a message
schema with a ``WireReader``; ``protobuf`` unwraps the Kubernetes envelope. No protobuf
library: the handful of wire types Kubernetes' gogo-generated code emits is small.

Contract: every malformed input raises ``ProtobufError`` (never ``IndexError`` or another
exception), with the messages of gogo's generated ``Unmarshal``/``skipGenerated`` code
(``unexpected EOF``, ``proto: integer overflow``, ...) because upstream answers a request it
cannot decode with a 400 carrying exactly that text. Integer semantics follow Go: a varint is
an unsigned 64-bit value, silently truncated to 32 bits for ``int32`` fields.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "BYTES",
    "END_GROUP",
    "FIXED32",
    "FIXED64",
    "START_GROUP",
    "VARINT",
    "ProtobufError",
    "WireReader",
    "to_int32",
    "to_int64",
]

VARINT: Final = 0
FIXED64: Final = 1
BYTES: Final = 2
START_GROUP: Final = 3
END_GROUP: Final = 4
FIXED32: Final = 5

UNEXPECTED_EOF: Final = "unexpected EOF"
INTEGER_OVERFLOW: Final = "proto: integer overflow"
NEGATIVE_LENGTH: Final = "proto: negative length found during unmarshaling"
UNEXPECTED_END_OF_GROUP: Final = "proto: unexpected end of group"

_MASK64: Final = (1 << 64) - 1
# Go converts a uint64 length to int: from 2**63 on it is negative.
_MAX_LENGTH: Final = (1 << 63) - 1
# Nested groups are legal but never sent by Kubernetes; a bound keeps hostile input cheap.
_MAX_GROUP_DEPTH: Final = 100


class ProtobufError(ValueError):
    """A request body podscale cannot decode; ``str(err)`` is the Status message.

    ``unsupported`` is True when the body is well-formed but names a kind podscale does not
    decode from protobuf (a 415 rather than a 400 for the caller).
    """

    def __init__(self, message: str, *, unsupported: bool = False) -> None:
        super().__init__(message)
        self.unsupported = unsupported


def to_int32(value: int) -> int:
    """Go's ``int32(v)`` of a decoded varint: keep the low 32 bits, two's complement."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def to_int64(value: int) -> int:
    """Go's ``int64(v)`` of a decoded varint."""
    value &= _MASK64
    return value - (1 << 64) if value & (1 << 63) else value


class WireReader:
    """A cursor over one message's bytes; each read advances it or raises ``ProtobufError``."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self.position = 0

    def at_end(self) -> bool:
        return self.position >= len(self._data)

    def read_varint(self) -> int:
        """An unsigned varint of at most ten bytes, as gogo reads it (higher bits dropped)."""
        data = self._data
        result = 0
        shift = 0
        while True:
            if shift >= 64:
                raise ProtobufError(INTEGER_OVERFLOW)
            if self.position >= len(data):
                raise ProtobufError(UNEXPECTED_EOF)
            byte = data[self.position]
            self.position += 1
            result |= (byte & 0x7F) << shift
            if byte < 0x80:
                return result & _MASK64
            shift += 7

    def read_tag(self, message: str) -> tuple[int, int]:
        """The next field's (number, wire type); ``message`` names the type for errors."""
        wire = self.read_varint()
        number = to_int32(wire >> 3)
        wire_type = wire & 0x7
        if wire_type == END_GROUP:
            raise ProtobufError(f"proto: {message}: wiretype end group for non-group")
        if number <= 0:
            # Upstream prints the whole tag varint where it says "wire type".
            raise ProtobufError(f"proto: {message}: illegal tag {number} (wire type {wire})")
        return number, wire_type

    def read_bytes(self) -> bytes:
        """A length-delimited payload."""
        length = self.read_varint()
        if length > _MAX_LENGTH:
            raise ProtobufError(NEGATIVE_LENGTH)
        end = self.position + length
        if end > len(self._data):
            raise ProtobufError(UNEXPECTED_EOF)
        payload = self._data[self.position : end]
        self.position = end
        return payload

    def skip(self, wire_type: int) -> None:
        """Skip the value of a field whose tag was just read (an unknown field)."""
        if wire_type == START_GROUP:
            self._skip_group()
        else:
            self._skip_value(wire_type)

    def _skip_value(self, wire_type: int) -> None:
        if wire_type == VARINT:
            self.read_varint()
        elif wire_type == FIXED64:
            self._advance(8)
        elif wire_type == BYTES:
            self.read_bytes()
        elif wire_type == FIXED32:
            self._advance(4)
        elif wire_type != END_GROUP:
            raise ProtobufError(f"proto: illegal wireType {wire_type}")

    def _skip_group(self) -> None:
        # Iterative, so nesting depth never reaches Python's recursion limit.
        depth = 1
        while depth:
            wire_type = self.read_varint() & 0x7
            if wire_type == START_GROUP:
                depth += 1
                if depth > _MAX_GROUP_DEPTH:
                    raise ProtobufError(UNEXPECTED_END_OF_GROUP)
            elif wire_type == END_GROUP:
                depth -= 1
            else:
                self._skip_value(wire_type)

    def _advance(self, count: int) -> None:
        if self.position + count > len(self._data):
            raise ProtobufError(UNEXPECTED_EOF)
        self.position += count
