"""`ohara serve` against real slow clients on loopback: raw sockets that connect and wait, trickle
their headers or their body, or send too much head (issue 28, point 9).

Before: no deadline on a request's line, headers or body; the audit held 400 slow
connections open, and this module's clients were all still connected when their loops
ran out. Each loop below is bounded by a number of rounds; the assertions are on what
each client got back (a status line and the server closing), never on elapsed time.
"""
from __future__ import annotations

import select
import socket
import time
from collections.abc import Callable, Iterator

import pytest

pytest.importorskip("httpx", reason="`ohara serve` needs the 'serve' extra")
pytest.importorskip("fastapi", reason="`ohara serve` needs the 'serve' extra")

from .servers import ENV, Served  # noqa: E402

MAX_CONNECTIONS = 8
LIMITS = {"OHARA_API_MAX_CONNECTIONS": str(MAX_CONNECTIONS), "OHARA_API_HEADER_TIMEOUT_S": "2",
          "OHARA_API_BODY_TIMEOUT_S": "2", "OHARA_API_MAX_HEADER_KB": "4", "OHARA_API_KEEP_ALIVE_S": "1"}
ROUNDS, TICK = 200, 0.1  # each client loop: at most 200 rounds of 0.1 s, ten times the 2 s deadlines


@pytest.fixture(scope="module")
def limited(served_atlas) -> Iterator[Served]:
    served = Served(served_atlas, env={**ENV, **LIMITS})
    yield served
    served.stop()


class Slow:
    """One raw TCP client of the server; `outcome` is the status line it got back, once the server closed."""

    def __init__(self, port: int, first: bytes = b""):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.received = b""
        self.outcome: str | None = None
        if first:
            self.sock.sendall(first)

    def poll(self, feed: bytes = b"") -> None:
        """Send `feed` (unless closed), then read what is there; `outcome` is set once the server closed."""
        if self.outcome is not None:
            return
        try:
            if feed:
                self.sock.sendall(feed)
            while select.select([self.sock], [], [], 0)[0]:
                data = self.sock.recv(65536)
                if not data:
                    self._closed()
                    return
                self.received += data
        except (ConnectionResetError, BrokenPipeError):
            self._closed()

    def _closed(self) -> None:
        self.outcome = self.received.split(b"\r\n", 1)[0].decode() or "closed without a reply"
        self.sock.close()

    def close(self) -> None:
        self.sock.close()


def run(clients: list[Slow], feed: Callable[[int], bytes] = lambda _: b"") -> list[str | None]:
    """Poll every client once a tick, sending `feed(round)`, until the server closed them all or ROUNDS ran out."""
    for i in range(ROUNDS):
        for c in clients:
            c.poll(feed(i))
        if all(c.outcome is not None for c in clients):
            break
        time.sleep(TICK)
    for c in clients:
        c.close()
    return [c.outcome for c in clients]


def _served(limited: Served) -> int:
    return limited.client.get("/stats").status_code


def test_idle_connections_past_the_cap_get_503_and_the_rest_408_at_the_header_deadline(limited):
    clients = [Slow(limited.port) for _ in range(20)]  # connect, send nothing
    outcomes = run(clients)
    refused = outcomes.count("HTTP/1.1 503 Service Unavailable")
    late = outcomes.count("HTTP/1.1 408 Request Timeout")
    assert refused + late == 20, outcomes
    assert refused >= 20 - MAX_CONNECTIONS and late <= MAX_CONNECTIONS, outcomes
    assert _served(limited) == 200  # the server still serves once they are gone


def test_headers_trickled_a_line_a_tick_are_cut_off_with_408(limited):
    clients = [Slow(limited.port, b"GET /stats HTTP/1.1\r\nHost: 127.0.0.1\r\n") for _ in range(6)]
    outcomes = run(clients, lambda i: b"X-Trickle-%d: a\r\n" % i)
    assert outcomes == ["HTTP/1.1 408 Request Timeout"] * 6
    assert _served(limited) == 200


def test_a_body_trickled_a_byte_a_tick_is_cut_off_with_408(limited):
    head = (b"POST /query HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n"
            b"content-length: 1000\r\n\r\n{")
    clients = [Slow(limited.port, head) for _ in range(3)]
    outcomes = run(clients, lambda _: b" ")
    assert outcomes == ["HTTP/1.1 408 Request Timeout"] * 3
    assert all(b'"detail":"request body not received within 2 s"' in c.received for c in clients)
    assert _served(limited) == 200


def test_a_head_over_the_limit_is_refused_whole_or_in_pieces(limited):
    big = b"GET /stats HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 8000 + b"\r\n\r\n"
    whole = Slow(limited.port, big)  # arrives in one read: past h11's limit for an incomplete head
    pieces = Slow(limited.port, big[:1000])
    outcomes = run([whole, pieces], lambda i: big[1000 * (i + 1): 1000 * (i + 2)])
    assert outcomes[0] == "HTTP/1.1 431 Request Header Fields Too Large", outcomes
    assert outcomes[1] in ("HTTP/1.1 400 Bad Request", "HTTP/1.1 431 Request Header Fields Too Large"), outcomes
    assert _served(limited) == 200


def test_a_kept_alive_connection_serves_requests_until_it_idles(limited):
    keep = Slow(limited.port)
    request = b"GET /stats HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    [outcome] = run([keep], lambda i: request if i < 2 else b"")  # two requests on one connection, then silence
    assert outcome == "HTTP/1.1 200 OK" and keep.received.count(b"HTTP/1.1 200 OK") == 2  # closed once idle
