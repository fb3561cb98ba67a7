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
and TLS still verifies the certificate against the host name.
"""
from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

import httpcore

from ..errors import BlockedURL
from . import SCHEMES

# Instance metadata services (AWS/GCP/Azure/OpenStack, AWS IPv6, Alibaba): never a document source.
METADATA_ADDRESSES = frozenset(map(ipaddress.ip_address, ("169.254.169.254", "fd00:ec2::254", "100.100.100.200")))

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def check_url(url: str) -> None:
    """Refuse what no fetch may ask for, before resolving anything: scheme, credentials, missing host."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in SCHEMES:
        raise BlockedURL(url, f"only http and https URLs are fetched, not {parts.scheme or 'a bare path'!r}")
    if parts.username is not None or parts.password is not None:
        raise BlockedURL(_redacted(url), "URLs with credentials are refused (ohara-lab never sends credentials)")
    try:
        host, _ = parts.hostname, parts.port
    except ValueError as e:
        raise BlockedURL(url, f"malformed URL: {e}") from None
    if not host:
        raise BlockedURL(url, "URL has no host")


def check_reachable(url: str, allow_private: bool) -> Address:
    """`check_url`, then resolve the host and refuse it unless one address may be contacted (no traffic)."""
    check_url(url)
    parts = urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
        return permitted_address(parts.hostname or "", port, allow_private)
    except BlockedURL as e:
        raise BlockedURL(url, e.reason) from None
    except ValueError as e:  # a port that is not a number
        raise BlockedURL(url, f"malformed URL: {e}") from None


def refusal(address: Address, allow_private: bool) -> str | None:
    """Why `address` may not be contacted, or None when it may."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped  # ::ffff:127.0.0.1 is 127.0.0.1
    if address in METADATA_ADDRESSES:
        return f"{address} is a cloud metadata address"
    if address.is_unspecified or address.is_multicast:
        return f"{address} is not a host address"
    if address.is_global:
        return None
    if allow_private:
        return None
    kind = ("loopback" if address.is_loopback else "link-local" if address.is_link_local
            else "private" if address.is_private else "non-public")
    return f"{address} is a {kind} address (use --allow-private / OHARA_WEB_ALLOW_PRIVATE for intranets and tests)"


def resolve(host: str, port: int) -> list[Address]:
    """Every address `host` resolves to (IP literals resolve to themselves)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as e:
        raise BlockedURL(host, f"cannot resolve host: {e}") from None
    return list(dict.fromkeys(ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos))


def permitted_address(host: str, port: int, allow_private: bool) -> Address:
    """The first address of `host` that may be contacted; refuse (naming why) when none may."""
    addresses = resolve(host, port)
    reasons = []
    for address in addresses:
        why = refusal(address, allow_private)
        if why is None:
            return address
        reasons.append(why)
    raise BlockedURL(host, "refused: " + "; ".join(reasons) if reasons else "host has no address")


class GuardedBackend(httpcore.SyncBackend):
    """httpcore's socket backend, connecting only to addresses `permitted_address` accepts."""

    def __init__(self, allow_private: bool = False):
        self.allow_private = allow_private

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        address = permitted_address(host, port, self.allow_private)
        return super().connect_tcp(str(address), port, timeout=timeout, local_address=local_address,
                                   socket_options=socket_options)

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        raise BlockedURL(path, "unix sockets are never fetched from")


def _redacted(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return parts._replace(netloc=f"***@{host}{port}").geturl()
