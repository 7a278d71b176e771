"""Read deadlines on uvicorn's HTTP/1.1 protocol: a slow client cannot pin a connection.

uvicorn bounds only the silence between two requests (``timeout_keep_alive``); a client that
trickles its headers, or declares a body and sends it a byte at a time, would hold a
connection and a handler for as long as it likes. ``DeadlineH11Protocol`` adds what Go's
``http.Server`` and kube-apiserver's request timeout give upstream:

- ``HEADER_TIMEOUT`` (10 s): from a new connection, or from the first byte of the next
  request on a kept-alive one, until its headers are complete. Past it the connection is
  closed without an answer, as Go does at ``ReadHeaderTimeout``.
- ``BODY_IDLE_TIMEOUT`` (30 s): the longest silence while a body is still due, and
  ``BODY_TIMEOUT`` (60 s): the whole body, however it trickles (the 3 MiB limit of
  ``limits`` at 60 s is 50 KiB/s). Past either, the client gets 408 with a ``Status``
  (reason ``Timeout``) and the connection is closed; the handler's read sees a disconnect
  (``limits.read_body`` turns it into an answer nobody receives, so nothing is logged).

A request whose headers and body have arrived has no deadline here: watches and slow
handlers are not cut. ``server`` and ``podscale.plane.serve`` pass this class as uvicorn's
``http`` protocol. Times are the event loop's monotonic clock (I/O, not simulated time).
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

import h11
import orjson
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["BODY_IDLE_TIMEOUT", "BODY_TIMEOUT", "HEADER_TIMEOUT", "DeadlineH11Protocol"]

HEADER_TIMEOUT: Final = 10.0
BODY_IDLE_TIMEOUT: Final = 30.0
BODY_TIMEOUT: Final = 60.0


def _timeout_body(message: str) -> bytes:
    return orjson.dumps(
        {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": message,
            "reason": "Timeout",
            "code": 408,
        }
    )


class DeadlineH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with the header and body deadlines of the module docstring.

    The deadlines are class attributes so a test can shorten them on a subclass."""

    header_timeout: float = HEADER_TIMEOUT
    body_idle_timeout: float = BODY_IDLE_TIMEOUT
    body_timeout: float = BODY_TIMEOUT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timer: asyncio.TimerHandle | None = None
        self._body_idle_timer: asyncio.TimerHandle | None = None
        self._body_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._header_timer = self.loop.call_later(self.header_timeout, self._headers_late)

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_all()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._rearm()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._cancel_all()  # the upgraded protocol owns the connection from here
        super().handle_websocket_upgrade(event)

    def _rearm(self) -> None:
        """Set the timers for what the client still owes after this chunk."""
        if self.transport.is_closing():
            self._cancel_all()
            return
        state = self.conn.their_state
        if state is h11.IDLE:
            # Part of the next request's head is buffered: it has HEADER_TIMEOUT from now.
            # With nothing buffered uvicorn's keep-alive timer watches the idle connection.
            if self._header_timer is None and self.conn.trailing_data[0]:
                self._header_timer = self.loop.call_later(self.header_timeout, self._headers_late)
        elif state is h11.SEND_BODY:
            self._cancel("_header_timer")
            self._cancel("_body_idle_timer")
            self._body_idle_timer = self.loop.call_later(
                self.body_idle_timeout,
                self._body_late,
                f"no request body data arrived for {self.body_idle_timeout:g}s",
            )
            if self._body_timer is None:
                self._body_timer = self.loop.call_later(
                    self.body_timeout,
                    self._body_late,
                    f"the request body did not arrive within {self.body_timeout:g}s",
                )
        else:
            self._cancel_all()  # the request is in (or the connection is done with)

    def _cancel(self, name: str) -> None:
        timer: asyncio.TimerHandle | None = getattr(self, name)
        if timer is not None:
            timer.cancel()
            setattr(self, name, None)

    def _cancel_all(self) -> None:
        for name in ("_header_timer", "_body_idle_timer", "_body_timer"):
            self._cancel(name)

    def _headers_late(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.transport.close()

    def _body_late(self, message: str) -> None:
        self._cancel_all()
        if self.transport.is_closing():
            return
        cycle = self.cycle
        if cycle is not None and not cycle.response_started:
            # The handler must not write after us: mark its cycle gone and wake its read.
            cycle.disconnected = True
            cycle.message_event.set()
            body = _timeout_body(message)
            try:
                for event in (
                    h11.Response(
                        status_code=408,
                        reason=b"Request Timeout",
                        headers=[
                            (b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close"),
                        ],
                    ),
                    h11.Data(data=body),
                    h11.EndOfMessage(),
                ):
                    self.transport.write(self.conn.send(event) or b"")
            except h11.LocalProtocolError:
                pass  # h11 would not frame it now: closing is answer enough
        self.transport.close()
