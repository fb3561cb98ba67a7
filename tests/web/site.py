"""A small website on 127.0.0.1 for the web tests: a real `http.server`, with a log of every request.

Pages answer with an ETag (and honour If-None-Match with 304), so conditional
re-crawls can be observed; special paths cover what a crawler meets in the
wild: redirect chains and loops, a 50 MB body (streamed, or declared up front),
a gzip bomb, a page that answers too slowly, binary bytes behind an .html name,
a robots.txt that disallows one folder, and servers that never finish: one
trickles its headers a byte at a time, one its body (both until the client
hangs up or the site stops).
"""
from __future__ import annotations

import gzip
import hashlib
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(200)
BIG = 50 * 1024 * 1024


def html(title: str, body: str, links: list[str] = ()) -> bytes:
    nav = " ".join(f'<a href="{href}">{href}</a>' for href in links)
    return (f"<!doctype html><html><head><title>{title}</title></head><body>"
            f"<nav>{nav}</nav><main>{body}</main><footer>Site footer boilerplate</footer></body></html>").encode()


def paragraph(topic: str) -> str:
    return (f"<p>{topic} is described on this page in enough words for an extractor to keep it. "
            f"Ada Lovelace wrote about {topic} in London, and Charles Babbage answered her letters.</p>")


@dataclass
class Hit:
    path: str
    headers: dict[str, str]
    at: float


@dataclass
class Site:
    """Pages by path: (content type, body). Start with `start()`, stop with `stop()` (the fixture does both)."""

    pages: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    redirects: dict[str, str] = field(default_factory=dict)
    hits: list[Hit] = field(default_factory=list)
    slow_seconds: float = 3.0
    hold: str | None = None  # a page whose answer waits for `release` (to kill a crawl midway, at a known page)
    held: threading.Event = field(default_factory=threading.Event)  # the request for `hold` has arrived
    release: threading.Event = field(default_factory=threading.Event)  # lets the held answer go (stop() sets it)
    trickle_every: float = 0.02  # seconds between two bytes of /trickle-headers and /trickle-body
    stopping: threading.Event = field(default_factory=threading.Event)
    big_chunks_sent: int = 0  # 1 MiB chunks of /big the client took before it hung up
    big_done: threading.Event = field(default_factory=threading.Event)  # /big's handler has returned

    def start(self) -> "Site":
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                site.hits.append(Hit(self.path, {k.lower(): v for k, v in self.headers.items()}, time.monotonic()))
                site.answer(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        self.stopping.set()  # ends the trickles still writing
        self.release.set()  # and a held answer
        self.server.shutdown()
        self.server.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def requested(self, path: str) -> int:
        return sum(1 for h in self.hits if h.path == path)

    def paths(self) -> list[str]:
        return [h.path for h in self.hits]

    # ------------------------------------------------------------------ answers
    def answer(self, h: BaseHTTPRequestHandler) -> None:
        path = h.path
        if path in self.redirects:
            return self._send(h, 302, b"", "text/plain", {"Location": self.redirects[path]})
        special = {"/big": self._big, "/big-declared": self._big_declared, "/bomb": self._bomb, "/slow": self._slow,
                   "/cookie": self._cookie, "/trickle-headers": self._trickle_headers,
                   "/trickle-body": self._trickle_body}.get(path)
        if special:
            return special(h)
        if path not in self.pages:
            return self._send(h, 404, b"not found", "text/plain")
        if path == self.hold:
            self.held.set()
            self.release.wait()
        ctype, body = self.pages[path]
        etag = '"' + hashlib.sha1(body).hexdigest() + '"'
        if h.headers.get("If-None-Match") == etag:
            return self._send(h, 304, b"", None, {"ETag": etag})
        try:
            self._send(h, 200, body, ctype, {"ETag": etag})
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client was killed while its answer was held

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, status: int, body: bytes, ctype: str | None,
              headers: dict[str, str] | None = None) -> None:
        h.send_response(status)
        if ctype:
            h.send_header("Content-Type", ctype)
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        if status != 304:
            h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        if body:
            h.wfile.write(body)

    def _big(self, h: BaseHTTPRequestHandler) -> None:
        """50 MB without a Content-Length: only counting while streaming can stop it."""
        h.send_response(200)
        h.send_header("Content-Type", "text/html")
        h.end_headers()
        chunk = b"<p>" + b"x" * (1024 * 1024 - 7) + b"</p>\n"
        try:
            for _ in range(BIG // len(chunk)):
                h.wfile.write(chunk)
                self.big_chunks_sent += 1
            h.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading: what the test wants
        finally:
            self.big_done.set()

    def _big_declared(self, h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/html")
        h.send_header("Content-Length", str(BIG))
        h.end_headers()
        try:
            h.wfile.write(b"<p>" + b"x" * 1024)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _bomb(self, h: BaseHTTPRequestHandler) -> None:
        body = gzip.compress(b"<p>" + b"a" * BIG, compresslevel=9)
        self._send(h, 200, body, "text/html", {"Content-Encoding": "gzip"})

    def _slow(self, h: BaseHTTPRequestHandler) -> None:
        time.sleep(self.slow_seconds)
        try:
            self._send(h, 200, html("Slow", paragraph("Patience")), "text/html")
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _trickle(self, h: BaseHTTPRequestHandler, head: bytes, byte: bytes) -> None:
        """Send `head`, then `byte` every `trickle_every` seconds, forever (until hung up on or stopped)."""
        try:
            h.wfile.write(head)
            while not self.stopping.wait(self.trickle_every):
                h.wfile.write(byte)
        except OSError:  # BrokenPipe / ConnectionReset: the client gave up, as it should
            pass
        h.close_connection = True

    def _trickle_headers(self, h: BaseHTTPRequestHandler) -> None:
        """A status line and a header line that never ends: each byte arrives well within any read timeout."""
        self._trickle(h, b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Trickle: ", b"a")

    def _trickle_body(self, h: BaseHTTPRequestHandler) -> None:
        """Complete headers (no length), then a body that never ends, one byte at a time."""
        self._trickle(h, b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n\r\n<p>", b"x")

    def _cookie(self, h: BaseHTTPRequestHandler) -> None:
        self._send(h, 200, html("Cookie", paragraph("Cookies")), "text/html", {"Set-Cookie": "session=s3cret; Path=/"})


def many_links_site(n: int = 100_000) -> Site:
    """A home page holding `n` distinct links (the audit's frontier probe), none of which exists."""
    s = Site()
    s.pages = {"/robots.txt": ("text/plain", b"User-agent: *\nDisallow: /private/\n"),
               "/": ("text/html", html("Many links", "<h1>Many links</h1>" + paragraph("Link farms"),
                                       [f"/p{i}" for i in range(n)]))}
    return s


def small_site() -> Site:
    """Nested pages, a robots.txt that disallows /private/, a redirect chain and loop, binary behind .html."""
    s = Site()
    s.pages = {
        "/robots.txt": ("text/plain", b"User-agent: *\nDisallow: /private/\n"),
        "/": ("text/html", html("Home", "<h1>Welcome home</h1>" + paragraph("Analytical engines"),
                                ["/a.html", "/a.html#part", "/b.html", "/private/secret.html", "/r1", "/loop-a",
                                 "/image.html", "http://other.invalid/x"])),
        "/a.html": ("text/html", html("Alpha", "<h1>Alpha page</h1>" + paragraph("Difference engines")
                                      + "<h2>Alpha details</h2>" + paragraph("Punched cards"),
                                      ["/", "/b.html", "/a/deep.html"])),
        "/b.html": ("text/html", html("Beta", "<h1>Beta page</h1>" + paragraph("Bernoulli numbers")
                                      + "<table><tr><th>Year</th><th>Event</th></tr><tr><td>1843</td><td>Notes</td></tr></table>",
                                      ["/a.html?view=print"])),
        "/a.html?view=print": ("text/html", html("Alpha print", "<h1>Alpha printable</h1>" + paragraph("Print layouts"))),
        "/a/deep.html": ("text/html", html("Deep", "<h1>Deep page</h1>" + paragraph("Jacquard looms"),
                                           ["/a/deeper.html"])),
        "/a/deeper.html": ("text/html", html("Deeper", "<h1>Too deep</h1>" + paragraph("Unreached things"))),
        "/private/secret.html": ("text/html", html("Secret", "<h1>Secret page</h1>" + paragraph("Hidden ledgers"))),
        "/c.html": ("text/html", html("Gamma", "<h1>Gamma page</h1>" + paragraph("Redirected destinations"))),
        "/image.html": ("text/html", PNG),
    }
    s.redirects = {"/r1": "/r2", "/r2": "/r3", "/r3": "/c.html", "/loop-a": "/loop-b", "/loop-b": "/loop-a"}
    return s
