"""robots.txt, fetched once per origin and obeyed (RFC 9309, parsed by Protego).

RFC 9309 §2.3.1: a robots.txt answered with a 4xx status means no rules (crawl
everything); one that cannot be reached (5xx, timeout, refused connection) means
crawl nothing from that origin. A file over 500 KiB (the least the RFC asks a
crawler to read) is treated as unreachable: crawl nothing. The
Crawl-delay the file names for us stretches the crawl's own per-host delay, up
to `crawl_max_delay_s` (the crawler cuts a longer one and reports it).
"""
from __future__ import annotations

from dataclasses import dataclass

from protego import Protego

from ..errors import BlockedURL, FetchError
from .fetch import Fetcher
from .urls import origin_of

ROBOTS_LIMIT = 500 * 1024


@dataclass
class Rules:
    """What one origin's robots.txt says (or the RFC's default when it says nothing)."""

    parser: Protego | None  # None: no usable file
    allow_all: bool
    note: str  # how the file was obtained, for reports

    def allows(self, url: str, agent: str) -> bool:
        if self.parser is None:
            return self.allow_all
        return bool(self.parser.can_fetch(url, agent))

    def delay(self, agent: str) -> float:
        value = self.parser.crawl_delay(agent) if self.parser is not None else None
        return float(value or 0.0)


class Robots:
    """robots.txt rules per origin, fetched through the crawl's guarded `Fetcher`."""

    def __init__(self, fetcher: Fetcher, agent: str):
        self.fetcher = fetcher
        self.agent = agent.split("/", 1)[0]  # the product token, as robots.txt groups name it
        self._rules: dict[str, Rules] = {}

    def rules(self, url: str) -> Rules:
        origin = origin_of(url)
        if origin not in self._rules:
            self._rules[origin] = self._load(origin)
        return self._rules[origin]

    def allows(self, url: str) -> bool:
        return self.rules(url).allows(url, self.agent)

    def delay(self, url: str) -> float:
        return self.rules(url).delay(self.agent)

    def known_disallows(self, url: str) -> bool:
        """True when `url`'s origin has rules loaded already and they refuse it (asks nothing of the network)."""
        rules = self._rules.get(origin_of(url))
        return rules is not None and not rules.allows(url, self.agent)

    def _load(self, origin: str) -> Rules:
        try:
            found = self.fetcher.fetch(origin + "/robots.txt", limit=ROBOTS_LIMIT)
        except BlockedURL:
            raise
        except FetchError as e:
            if e.status is not None and 400 <= e.status < 500:
                return Rules(None, True, f"no robots.txt (HTTP {e.status})")
            return Rules(None, False, f"robots.txt unreachable: {e.reason}")
        text = found.data.decode("utf-8", errors="replace")
        return Rules(Protego.parse(text), True, "robots.txt")
