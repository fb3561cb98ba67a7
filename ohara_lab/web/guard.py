"""Which addresses ohara-lab may fetch from: the SSRF guard (spec §9.3-6, "arbitrary URL fetching").

A URL is refused before any traffic when its scheme is not http/https or it
carries credentials. Its host is then resolved and every connection — the first
request, each redirect hop, robots.txt — goes to an address this module has
checked: loopback, private (RFC 1918, RFC 4193), link-local, CGNAT, multicast,
reserved and unspecified addresses are refused unless `allow_private` is set,
and cloud metadata endpoints are refused always (no document lives there).

The check sits in the connection itself (`GuardedBackend`, an httpcore network
backend), so the address that was checked is the address connected to: a DNS
answer that changes between check and connect (rebinding) cannot slip through,
and TLS still verifies the certificate against the host name. Every address a
name resolves to must pass (one refused address refuses the host), and an IPv6
address carrying an IPv4 one (mapped, IPv4-compatible, 6to4, Teredo, NAT64) is
judged as that IPv4 host too. Hosts written so that parsers disagree on them
(octal or hex IPv4, backslashes, %-escapes) are refused, not interpreted.

The same connections carry the fetch's deadline (`deadline()`): DNS, connect,
TLS and every read and write end by it, so one time limit bounds the whole
request however slowly a server answers.
"""
from __future__ import annotations

import ipaddress
import re
import socket
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any
from urllib.parse import urlsplit

import httpcore

from ..errors import BlockedURL, FetchError
from . import SCHEMES

# Instance metadata and host-agent services: never a document source, whatever --allow-private says.
# AWS/GCP/Azure IMDS/OpenStack (169.254.169.254, AWS IPv6 fd00:ec2::254), Azure WireServer (168.63.129.16,
# a *public* address), AWS ECS task metadata (169.254.170.2) and EKS Pod Identity (169.254.170.23,
# fd00:ec2::23), Alibaba (100.100.100.200), Oracle Cloud (192.0.0.192).
METADATA_ADDRESSES = frozenset(map(ipaddress.ip_address, (
    "169.254.169.254", "fd00:ec2::254", "168.63.129.16", "169.254.170.2", "169.254.170.23", "fd00:ec2::23",
    "100.100.100.200", "192.0.0.192")))

# IPv6 ranges whose last 32 bits name the IPv4 host a packet reaches (checked as that host):
# NAT64 well-known and local-use prefixes (RFC 6052, RFC 8215), IPv4-translated (RFC 2765) and the
# deprecated IPv4-compatible ::a.b.c.d (RFC 4291 §2.5.5.1). IPv4-mapped, 6to4 and Teredo come from `ipaddress`.
_LAST_32_BITS = tuple(map(ipaddress.ip_network, ("64:ff9b::/96", "64:ff9b:1::/48", "::ffff:0:0:0/96", "::/96")))

# A host whose last label is a number is an IPv4 address to a browser (WHATWG URL §3.5) and to
# getaddrinfo (inet_aton reads 0177.0.0.1, 0x7f.1, 127.1 and 2130706433 as 127.0.0.1); only the
# canonical dotted quad is accepted, so the address we check is the one every parser sees.
_NUMERIC_LABEL = re.compile(r"^(0x[0-9a-f]*|[0-9]+)$")
# Characters a host name or IP literal may hold (IDN letters are alphanumeric too); anything else
# (%-escapes, zone ids, control characters) is refused rather than guessed at.
_HOST_PUNCTUATION = frozenset("-._:")

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
_deadline: ContextVar[float | None] = ContextVar("ohara_web_deadline", default=None)


def check_url(url: str) -> None:
    """Refuse what no fetch may ask for, before resolving anything (one-line `BlockedURL` naming why).

    Scheme other than http(s) (file:, data:, ...), credentials, backslashes, whitespace or control
    characters, no host, an unparseable port or IPv6 literal, and hosts that are not a plain name, a
    canonical dotted-quad IPv4 or a bracketed IPv6 literal.
    """
    if not isinstance(url, str):
        raise BlockedURL(str(url), "a URL must be text")
    shown = _printable(url)
    try:
        parts = urlsplit(url)
        host, _ = parts.hostname, parts.port
    except ValueError as e:
        raise BlockedURL(shown, f"malformed URL: {e}") from None
    if parts.scheme.lower() not in SCHEMES:
        raise BlockedURL(shown.split(",", 1)[0] if parts.scheme.lower() == "data" else shown,
                         f"only http and https URLs are fetched, not {parts.scheme or 'a bare path'!r}")
    credentials = parts.username is not None or parts.password is not None
    if credentials:
        shown = _redacted(url)  # never echo a password, whatever else is wrong with the URL
    if "\\" in url:  # browsers read a backslash as "/", urllib does not: two parsers, two hosts
        raise BlockedURL(shown, "URL holds a backslash (ambiguous: parsers disagree on its host)")
    if any(ord(ch) < 33 or ord(ch) == 127 for ch in url):
        raise BlockedURL(shown, "URL holds whitespace or a control character")
    if credentials:
        raise BlockedURL(shown, "URLs with credentials are refused (ohara-lab never sends credentials)")
    if not host:
        raise BlockedURL(shown, "URL has no host")
    why = host_refusal(host)
    if why:
        raise BlockedURL(shown, why)


def host_refusal(host: str) -> str | None:
    """Why `host` (as urlsplit gives it: lower case, IPv6 without brackets) is refused as malformed, or None."""
    if ":" in host:  # an IPv6 literal (urlsplit only lets one through inside brackets)
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            return f"malformed IPv6 address {host!r}"
        return None
    if any(not (ch.isalnum() or ch in _HOST_PUNCTUATION) for ch in host):
        return f"host {host!r} holds characters a host name cannot"
    labels = host.rstrip(".").split(".")
    if _NUMERIC_LABEL.match(labels[-1]):
        try:
            ipaddress.IPv4Address(host.rstrip("."))
        except ValueError:
            return (f"host {host!r} is a numeric address in a non-standard form (octal, hex, or not four "
                    "decimal parts): refused as ambiguous; write the dotted quad")
    return None


def check_reachable(url: str, allow_private: bool) -> Address:
    """`check_url`, then resolve the host and refuse it unless every address may be contacted (no traffic)."""
    check_url(url)
    parts = urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
        return permitted_address(parts.hostname or "", port, allow_private)
    except BlockedURL as e:
        raise BlockedURL(url, e.reason) from None
    except ValueError as e:  # a port that is not a number
        raise BlockedURL(url, f"malformed URL: {e}") from None


def embedded_ipv4(address: Address) -> ipaddress.IPv4Address | None:
    """The IPv4 host an IPv6 address reaches (mapped, 6to4, Teredo client, NAT64, translated, compatible)."""
    if isinstance(address, ipaddress.IPv4Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if int(address) > 1 and any(address in net for net in _LAST_32_BITS):  # :: and ::1 are themselves
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def refusal(address: Address, allow_private: bool) -> str | None:
    """Why `address` may not be contacted, or None when it may.

    An IPv6 address that carries an IPv4 one is judged as both (the IPv4 host is what it reaches):
    ::ffff:127.0.0.1, ::127.0.0.1, 64:ff9b::7f00:1 and 2002:7f00:1:: are all loopback.
    """
    inner = embedded_ipv4(address)
    shown = f"{address} (IPv4 {inner} inside IPv6)" if inner is not None else str(address)
    candidates = [a for a in (inner, address) if a is not None]
    for a in candidates:
        if a in METADATA_ADDRESSES:
            return f"{shown} is a cloud metadata address (never fetched, even with --allow-private)"
        if a.is_unspecified or a.is_multicast:
            return f"{shown} is not a host address"
    if allow_private:
        return None
    for a in candidates:
        if not a.is_global:
            kind = ("loopback" if a.is_loopback else "link-local" if a.is_link_local
                    else "private" if a.is_private else "non-public")
            return (f"{shown} is a {kind} address "
                    "(use --allow-private / OHARA_WEB_ALLOW_PRIVATE for intranets and tests)")
    return None


def remaining() -> float | None:
    """Seconds left before the current fetch's deadline (None outside a fetch)."""
    deadline = _deadline.get()
    return None if deadline is None else deadline - time.monotonic()


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Every connection, DNS lookup, read and write inside the block ends by `seconds` from now."""
    token = _deadline.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


def _bounded(timeout: float | None, error: type[Exception]) -> float | None:
    """`timeout` shortened to what is left of the deadline; `error` when nothing is left."""
    left = remaining()
    if left is None:
        return timeout
    if left <= 0:
        raise error("the request's deadline passed (web_timeout_s)")
    return left if timeout is None else min(timeout, left)


def resolve(host: str, port: int) -> list[Address]:
    """Every address `host` resolves to (IP literals resolve to themselves), within the fetch's deadline.

    getaddrinfo cannot be interrupted, so it runs in a daemon thread that is abandoned at the deadline.
    """
    left = remaining()
    slow = FetchError(host, "DNS lookup not complete within the request's time limit (web_timeout_s)")
    if left is not None and left <= 0:
        raise slow
    found: list[Any] = []

    def lookup() -> None:
        try:
            found.append(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
        except (OSError, UnicodeError) as e:
            found.append(e)

    if left is None:
        lookup()
    else:
        worker = threading.Thread(target=lookup, name="ohara-dns", daemon=True)
        worker.start()
        worker.join(left)
        if not found:  # a FetchError, not httpcore's: it must read the same inside httpx and outside (crawl start)
            raise slow
    if isinstance(found[0], BaseException):
        raise BlockedURL(host, f"cannot resolve host: {found[0]}")
    return list(dict.fromkeys(ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in found[0]))


def permitted_address(host: str, port: int, allow_private: bool) -> Address:
    """An address of `host` to connect to, when every address it resolves to may be contacted.

    One refused address refuses the host: a name that answers both a public and a private address is
    either misconfigured or a rebinding attempt, and neither is a document source.
    """
    why = host_refusal(host.strip("[]").lower())
    if why:
        raise BlockedURL(host, why)
    addresses = resolve(host, port)
    reasons = [r for r in (refusal(a, allow_private) for a in addresses) if r]
    if reasons:
        raise BlockedURL(host, "refused: " + "; ".join(dict.fromkeys(reasons)))
    if not addresses:
        raise BlockedURL(host, "host has no address")
    return addresses[0]


class _DeadlineStream(httpcore.NetworkStream):
    """A socket stream whose every read, write and TLS handshake ends by the fetch's deadline.

    httpx's timeouts bound each operation, so a server sending one byte a second (headers or body)
    would hold a fetch forever; shortening each operation to what is left of one deadline bounds the whole.
    """

    def __init__(self, inner: httpcore.NetworkStream):
        self.inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self.inner.read(max_bytes, _bounded(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.inner.write(buffer, _bounded(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self.inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        return _DeadlineStream(self.inner.start_tls(ssl_context, server_hostname,
                                                    _bounded(timeout, httpcore.ConnectTimeout)))

    def get_extra_info(self, info: str) -> Any:
        return self.inner.get_extra_info(info)


class GuardedBackend(httpcore.SyncBackend):
    """httpcore's socket backend, connecting only to addresses `permitted_address` accepts."""

    def __init__(self, allow_private: bool = False):
        self.allow_private = allow_private

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        address = permitted_address(host, port, self.allow_private)
        stream = super().connect_tcp(str(address), port, timeout=_bounded(timeout, httpcore.ConnectTimeout),
                                     local_address=local_address, socket_options=socket_options)
        return _DeadlineStream(stream)

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        raise BlockedURL(path, "unix sockets are never fetched from")


def _printable(url: str, limit: int = 200) -> str:
    """`url` as one line of bounded length: control characters escaped (a URL may hold a newline)."""
    text = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in url[: limit + 1])
    return text if len(url) <= limit else text[:limit] + "…"


def _redacted(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return _printable(parts._replace(netloc=f"***@{host}{port}").geturl())
