"""What one client may cost `ohara serve`: uvicorn's own limits, and the deadlines it lacks (issue 28).

uvicorn bounds idle kept-alive connections (`timeout_keep_alive`), the size of a request's
line and headers (h11's `max_incomplete_event_size`) and concurrent requests
(`limit_concurrency`, 503), but not the time a client takes to send a request: a client
that connects and sends nothing, or one header byte a second, keeps its connection for
ever, and its concurrency check runs only once a request's head is in (the audit held 400
slow connections open). So:

- `HeaderDeadline`, uvicorn's h11 protocol with a deadline on each request's line and
  headers (`OHARA_API_HEADER_TIMEOUT_S`, from the connection's first byte or from its
  accept): past it, 408 and the connection is closed. A connection accepted beyond
  `OHARA_API_MAX_CONNECTIONS` is answered 503 and closed at once.
- `RequestLimits`, an ASGI middleware reading the body before the app runs: a request
  line and headers over `OHARA_API_MAX_HEADER_KB` are 431 (h11's limit applies only to a
  head still arriving, 400: a whole head read at once passes it), a body over
  `OHARA_API_MAX_BODY_KB` 413, a body slower than `OHARA_API_BODY_TIMEOUT_S` 408, each with
  `Connection: close`.

A request is then received within header timeout + body timeout, and at most
max-connections sockets are held at any moment.
"""
from __future__ import annotations

import asyncio
from typing import Any

import anyio
import h11
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..settings import Settings


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """The `uvicorn.Config` keywords that bound what clients may hold, from the `OHARA_API_*` settings."""
    protocol = type("HeaderDeadline", (HeaderDeadline,), {"header_timeout_s": settings.api_header_timeout_s})
    return {"http": protocol, "ws": "none", "timeout_keep_alive": settings.api_keep_alive_s,
            "limit_concurrency": settings.api_max_connections,
            "h11_max_incomplete_event_size": settings.api_max_header_kb * 1024}


def _plain_response(status: int, reason: str, text: str) -> bytes:
    """A whole HTTP/1.1 response written by hand: h11 cannot send one before a request head has arrived."""
    body = text.encode()
    return (f"HTTP/1.1 {status} {reason}\r\ncontent-type: text/plain; charset=utf-8\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n").encode() + body


class HeaderDeadline(H11Protocol):
    """uvicorn's h11 protocol with a deadline on each request's head and a cap on held connections."""

    header_timeout_s = 10.0
    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if self.limit_concurrency is not None and len(self.connections) > self.limit_concurrency:
            self._refuse(503, "Service Unavailable", f"more than {self.limit_concurrency} connections are open")
            return
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._head_timer is None and self.conn.their_state is h11.IDLE:
            self._arm()  # the first bytes of the next request on a kept-alive connection
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._disarm()  # the head is in (or the request failed): the body deadline is RequestLimits'

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._head_timer = self.loop.call_later(self.header_timeout_s, self._head_late)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_late(self) -> None:
        self._head_timer = None
        if self.conn.their_state is h11.IDLE:
            self._refuse(408, "Request Timeout",
                         f"request line and headers not received within {self.header_timeout_s:g} s")

    def _refuse(self, status: int, reason: str, text: str) -> None:
        if not self.transport.is_closing():
            self.transport.write(_plain_response(status, reason, text))
            self.transport.close()


class RequestLimits:
    """Refuse request heads over `max_head_bytes` (431), bodies over `max_bytes` (413), whether announced
    (Content-Length) or streamed, and bodies not received within `timeout_s` (408)."""

    def __init__(self, app: ASGIApp, max_head_bytes: int, max_bytes: int, timeout_s: float):
        self.app, self.max_head_bytes, self.max_bytes, self.timeout_s = app, max_head_bytes, max_bytes, timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if _head_bytes(scope) > self.max_head_bytes:
            detail = f"request line and headers larger than {self.max_head_bytes} bytes"
            await _close_with(431, detail, scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await _close_with(413, f"request body larger than {self.max_bytes} bytes", scope, receive, send)
            return
        try:
            with anyio.fail_after(self.timeout_s):
                body = await self._read(receive)
        except TimeoutError:
            await _close_with(408, f"request body not received within {self.timeout_s:g} s", scope, receive, send)
            return
        if body is None:  # the client went away
            return
        if len(body) > self.max_bytes:
            await _close_with(413, f"request body larger than {self.max_bytes} bytes", scope, receive, send)
            return
        await self.app(scope, _replay(body, receive), send)

    async def _read(self, receive: Receive) -> bytes | None:
        """The whole body, or as soon as it passes max_bytes what came so far; None on a disconnect."""
        body, more = b"", True
        while more and len(body) <= self.max_bytes:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            body += message.get("body", b"")
            more = message.get("more_body", False)
        return body


def _head_bytes(scope: Scope) -> int:
    """About what the request line and headers took on the wire (name, ': ', value, CRLF each)."""
    return len(scope["raw_path"]) + len(scope["query_string"]) + sum(len(k) + len(v) + 4 for k, v in scope["headers"])


async def _close_with(status: int, detail: str, scope: Scope, receive: Receive, send: Send) -> None:
    # Connection: close, or a client still sending the body it was refused for would hold the connection.
    response = JSONResponse({"detail": detail}, status_code=status, headers={"connection": "close"})
    await response(scope, receive, send)


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()  # after the body: wait for the disconnect, as the server would

    return replay
