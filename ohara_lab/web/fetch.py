"""Fetching one web resource safely: the `Fetcher`.

Every request goes through httpx with the SSRF guard in its connections
(`guard.GuardedBackend`), no proxies, no .netrc and no cookie jar (nothing that
could send a credential), a User-Agent naming ohara-lab, a time limit for the
whole exchange (DNS, connect, TLS, headers and body of every hop end by
`web_timeout_s` from the start: `guard.deadline`), and the body read under a
size cap counted as it streams (`body.read_capped`).
Redirects are followed here, at most `web_max_redirects` of them, each hop
checked again; a loop is named as one. A conditional GET (ETag /
Last-Modified) that the server answers with 304 returns `not_modified`.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.cookiejar import CookieJar, DefaultCookiePolicy
from typing import Any
from urllib.parse import urljoin

import httpcore
import httpx

from ..errors import BlockedURL, FetchError
from ..settings import Settings
from .body import MIB, read_capped
from .guard import GuardedBackend, check_url, deadline

REDIRECTS = (301, 302, 303, 307, 308)
ACCEPT = ("text/html,application/xhtml+xml,application/pdf,application/epub+zip,"
          "application/vnd.openxmlformats-officedocument.wordprocessingml.document,"
          "text/markdown,text/plain;q=0.9,*/*;q=0.5")


@dataclass
class Resource:
    """A fetched resource: the bytes and what the server said about them."""

    url: str  # after redirects
    requested: str
    status: int
    data: bytes = b""
    content_type: str | None = None  # media type only, lower case ("text/html")
    etag: str | None = None
    last_modified: str | None = None
    redirects: list[str] = field(default_factory=list)

    @property
    def not_modified(self) -> bool:
        return self.status == 304


class _GuardedTransport(httpx.HTTPTransport):
    """httpx's transport over a connection pool whose sockets pass the guard."""

    def __init__(self, allow_private: bool):
        super().__init__(trust_env=False)
        # httpx takes no network backend argument, so the pool it built is replaced
        # by the same default pool with the guarded backend.
        self._pool = httpcore.ConnectionPool(ssl_context=httpx.create_ssl_context(trust_env=False),
                                             network_backend=GuardedBackend(allow_private))


class Fetcher:
    """One HTTP client for many fetches (connections are reused); close it, or use it as a context manager."""

    def __init__(self, settings: Settings | None = None, *, allow_private: bool | None = None):
        self.settings = settings or Settings()
        self.allow_private = self.settings.web_allow_private if allow_private is None else allow_private
        self.limit = int(self.settings.web_max_mb * MIB)
        self.timeout = self.settings.web_timeout_s
        self.client = httpx.Client(
            transport=_GuardedTransport(self.allow_private), trust_env=False, follow_redirects=False,
            timeout=httpx.Timeout(self.timeout),
            cookies=CookieJar(policy=DefaultCookiePolicy(allowed_domains=[])),  # accepts no cookie, sends none
            headers={"User-Agent": self.settings.web_user_agent, "Accept": ACCEPT,
                     "Accept-Encoding": "gzip, deflate"})

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> Fetcher:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def fetch(self, url: str, *, etag: str | None = None, last_modified: str | None = None,
              limit: int | None = None, hop_refusal: Callable[[str], str | None] | None = None) -> Resource:
        """GET `url` following redirects; raise `FetchError` (or `BlockedURL`) with a one-line reason.

        `hop_refusal(target)` may veto a redirect before it is followed (a crawl's scope and robots.txt).
        """
        check_url(url)
        with deadline(self.timeout):  # DNS, connects, TLS, every read and write of every hop: one limit
            return self._follow(url, etag, last_modified, limit, hop_refusal, time.monotonic() + self.timeout)

    def _follow(self, url: str, etag: str | None, last_modified: str | None, limit: int | None,
                hop_refusal: Callable[[str], str | None] | None, ends: float) -> Resource:
        conditional = {k: v for k, v in (("If-None-Match", etag), ("If-Modified-Since", last_modified)) if v}
        seen, current = [url], url
        while True:
            response = self._send(current, conditional, url)
            try:
                if response.status_code not in REDIRECTS:
                    return self._finish(url, current, seen[1:], response, ends, limit or self.limit)
                target = self._redirect_target(url, current, response)
            finally:
                response.close()  # a redirect's body is never read (nor decompressed)
            if target in seen:
                raise FetchError(url, "redirect loop: " + " -> ".join([*seen[seen.index(target):], target]))
            if len(seen) > self.settings.web_max_redirects:
                raise FetchError(url, f"more than {self.settings.web_max_redirects} redirects (web_max_redirects)")
            try:
                check_url(target)  # a Location header is as untrusted as a link
            except BlockedURL as e:
                raise BlockedURL(url, f"redirect to {e.path}: {e.reason}") from None
            vetoed = hop_refusal(target) if hop_refusal else None
            if vetoed:
                raise FetchError(url, vetoed)
            seen.append(target)
            current, conditional = target, {}

    def _send(self, current: str, headers: dict[str, str], url: str) -> httpx.Response:
        try:
            return self.client.send(self.client.build_request("GET", current, headers=headers), stream=True)
        except BlockedURL as e:
            raise BlockedURL(url, e.reason if current == url else f"redirect to {current}: {e.reason}") from None
        except FetchError as e:  # the guard's DNS lookup ran out of time
            raise FetchError(url, e.reason if current == url else f"redirect to {current}: {e.reason}") from None
        except httpx.TimeoutException:
            raise FetchError(url, f"no complete response within {self.timeout:g} s (web_timeout_s: connect, headers "
                                  "and body together)") from None
        except httpx.RemoteProtocolError as e:
            if "location header" in str(e).lower():  # httpx parses Location itself and refuses what it cannot
                raise BlockedURL(url, f"redirect refused: {e}") from None
            raise FetchError(url, f"request failed: {type(e).__name__}: {e}") from None
        except httpx.HTTPError as e:
            raise FetchError(url, f"request failed: {type(e).__name__}: {e}") from None

    @staticmethod
    def _redirect_target(url: str, current: str, response: httpx.Response) -> str:
        location = response.headers.get("location")
        if not location:
            raise FetchError(url, f"HTTP {response.status_code} redirect without a Location header")
        return urljoin(current, location.strip()).split("#", 1)[0]

    def _finish(self, url: str, current: str, redirects: list[str], response: httpx.Response, ends: float,
                limit: int) -> Resource:
        status = response.status_code
        if status != 304 and not 200 <= status < 300:
            raise FetchError(url, f"HTTP {status} {response.reason_phrase}".rstrip(), status)
        try:
            data = b"" if status == 304 else read_capped(response, url, limit, ends)
        except httpx.TimeoutException:
            raise FetchError(url, f"body not complete within {self.timeout:g} s (web_timeout_s: connect, headers "
                                  "and body together)") from None
        except httpx.HTTPError as e:
            raise FetchError(url, f"download failed: {type(e).__name__}: {e}") from None
        media = response.headers.get("content-type", "").split(";", 1)[0].strip().lower() or None
        return Resource(url=current, requested=url, status=status, data=data, content_type=media,
                        etag=response.headers.get("etag"), last_modified=response.headers.get("last-modified"),
                        redirects=redirects)
