"""A polite, resumable breadth-first crawl whose state lives in the atlas (`crawl` pages).

Breadth first from a start URL, to `crawl_depth` link hops and `crawl_max_pages`
requests, on the start host only unless told otherwise; robots.txt obeyed
(`robots.Robots`); at least `crawl_delay_s` (or the site's longer Crawl-delay)
between two requests to one host; URLs canonical (`urls.canonical`), so no page
is visited twice in a run and link cycles end.

Every visit is written with the links it queued in one store transaction, so a
crawl killed at any moment resumes where it stopped (same run, same frontier).
A new run of a finished crawl sends conditional GETs (ETag / Last-Modified) and
compares body hashes: an unchanged page costs a 304 and keeps its stored
Markdown; only changed pages are parsed again.
"""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from hashlib import sha256
from typing import Callable
from urllib.parse import urlsplit

from ..errors import BlockedURL, FetchError, ParseError
from ..parse import parse_bytes
from ..parse.detect import detect_format
from ..records import CrawlPage, Record, utc_now
from ..settings import Settings
from ..store.protocol import GraphStore
from .fetch import Fetcher, Resource
from .guard import check_reachable
from .robots import Robots
from .urls import canonical, host_of, links

VISITED = ("fetched", "unchanged", "redirected", "failed")  # states that cost a request
RUN_COUNTER = "crawl_runs"


@dataclass
class CrawlReport(Record):
    """What one `crawl` call did."""

    start: str
    run: int
    resumed: bool
    visited: int = 0  # requests made by this call (a resumed run counts only its own)
    counts: dict[str, int] = field(default_factory=dict)  # pages of the run by state, at the end


class Crawler:
    """Crawls into `store` with the web settings of `settings` (see the module docstring)."""

    def __init__(self, store: GraphStore, settings: Settings, *, fetcher: Fetcher | None = None,
                 on_page: Callable[[CrawlPage], None] | None = None):
        self.store, self.settings, self.on_page = store, settings, on_page
        self.fetcher = fetcher or Fetcher(settings)
        self.robots = Robots(self.fetcher, settings.web_user_agent)
        self._last_request: dict[str, float] = {}

    def crawl(self, start_url: str) -> CrawlReport:
        check_reachable(start_url, self.fetcher.allow_private)
        start = canonical(start_url)
        run, resumed = self._run_for(start)
        known = {p.url: p for p in self.store.crawl_pages(run=run)}
        if start not in known:
            self._persist(self._requeue([start], depth=0, via=None, run=run, known=known))
        frontier = deque(p for p in known.values() if p.state == "queued")
        report = CrawlReport(start=start, run=run, resumed=resumed)
        done = sum(1 for p in known.values() if p.state in VISITED)
        while frontier and done < self.settings.crawl_max_pages:
            page = frontier.popleft()
            if page.state != "queued":  # reached meanwhile as a redirect's target
                continue
            changed = self._visit(page, start, run, known)
            self._persist(changed)
            frontier.extend(p for p in changed if p.state == "queued")
            if page.state in VISITED:
                done += 1
                report.visited += 1
            if self.on_page is not None:
                self.on_page(page)
        self.store.set_meta(_run_key(start), {"run": run, "finished": True, "finished_at": utc_now()})
        report.counts = _counts(self.store.crawl_pages(run=run))
        return report

    # ------------------------------------------------------------------ runs
    def _run_for(self, start: str) -> tuple[int, bool]:
        """The unfinished run of this start URL (resume), else a new one."""
        state = self.store.get_meta(_run_key(start)) or {}
        if state.get("run") and not state.get("finished"):
            return int(state["run"]), True
        run = int(self.store.get_meta(RUN_COUNTER, 0) or 0) + 1
        self.store.set_meta(RUN_COUNTER, run)
        self.store.set_meta(_run_key(start), {"run": run, "finished": False, "started_at": utc_now()})
        return run, False

    # ------------------------------------------------------------------ one page
    def _visit(self, page: CrawlPage, start: str, run: int, known: dict[str, CrawlPage]) -> list[CrawlPage]:
        """Fetch one queued page; return it and every page it changed or queued."""
        try:
            allowed = self.robots.allows(page.url)
        except BlockedURL as e:  # a link to a host the guard refuses (any-host crawls)
            page.state, page.error = "failed", e.reason
            return [page]
        if not allowed:
            page.state, page.error = "disallowed", "disallowed by robots.txt"
            return [page]
        self._wait(page.url)
        stored = page if page.markdown is not None else None
        try:
            res = self.fetcher.fetch(page.url, etag=stored and stored.etag,
                                     last_modified=stored and stored.last_modified)
        except FetchError as e:
            page.state, page.status, page.error, page.fetched_at = "failed", e.status, e.reason, utc_now()
            return [page]
        finally:
            self._last_request[host_of(page.url)] = time.monotonic()
        target, changed = page, [page]
        final = canonical(res.url)
        if final != page.url:
            if not self._in_scope(final, start):
                page.state, page.error, page.fetched_at = "failed", f"redirected off-site to {final}", utc_now()
                return [page]
            page.state, page.links, page.status, page.error = "redirected", [final], res.status, None
            page.fetched_at = utc_now()
            target = known.get(final) or self._existing(final) or CrawlPage(final, host_of(final))
            target.depth, target.via, target.run = page.depth, target.via or page.url, run
            known[final] = target
            changed.append(target)
        self._record(target, res)
        if target.state in ("fetched", "unchanged") and self._may_follow(page.depth):
            fresh = [u for u in target.links if u not in known and self._in_scope(u, start)]
            changed += self._requeue(fresh, depth=page.depth + 1, via=target.url, run=run, known=known)
        return changed

    def _record(self, page: CrawlPage, res: Resource) -> None:
        """Store what the fetch found: unchanged (304 or same hash) keeps the old Markdown and links."""
        page.status, page.fetched_at, page.error = res.status, utc_now(), None
        if res.not_modified:
            page.state = "unchanged"
            return
        digest = sha256(res.data).hexdigest()
        page.etag, page.last_modified, page.content_type = res.etag, res.last_modified, res.content_type
        if digest == page.content_hash and page.markdown is not None:
            page.state = "unchanged"
            return
        try:
            fmt = detect_format(page.url, res.data, res.content_type)
            parsed = parse_bytes(page.url, res.data, fmt)
        except ParseError as e:
            page.state, page.error, page.markdown, page.links = "failed", e.reason, None, []
            page.content_hash = digest
            return
        page.state, page.content_hash, page.changed_at = "fetched", digest, page.fetched_at
        page.title, page.markdown = parsed.title, parsed.markdown
        page.links = links(res.data, res.url) if fmt.name == "webpage" else []

    # ------------------------------------------------------------------ helpers
    def _requeue(self, urls: list[str], *, depth: int, via: str | None, run: int,
                 known: dict[str, CrawlPage]) -> list[CrawlPage]:
        """Queue `urls` in this run, keeping what earlier runs stored about them (ETag, hash, Markdown)."""
        stored = {p.url: p for p in self.store.crawl_pages(urls=urls)} if urls else {}
        out = []
        for url in urls:
            page = stored.get(url) or CrawlPage(url, host_of(url))
            page.state, page.depth, page.via, page.run = "queued", depth, via, run
            known[url] = page
            out.append(page)
        return out

    def _existing(self, url: str) -> CrawlPage | None:
        found = self.store.crawl_pages(urls=[url])
        return found[0] if found else None

    def _in_scope(self, url: str, start: str) -> bool:
        return not self.settings.crawl_same_host or _netloc(url) == _netloc(start)

    def _may_follow(self, depth: int) -> bool:
        return self.settings.crawl_depth < 0 or depth < self.settings.crawl_depth

    def _wait(self, url: str) -> None:
        """Sleep until this host may be asked again (our delay, or robots.txt's when longer)."""
        host = host_of(url)
        delay = max(self.settings.crawl_delay_s, self.robots.delay(url))
        last = self._last_request.get(host)
        if last is not None:
            time.sleep(max(0.0, last + delay - time.monotonic()))

    def _persist(self, pages: list[CrawlPage]) -> None:
        if pages:
            self.store.put_crawl_pages(pages)


def _netloc(url: str) -> str:
    return urlsplit(url).netloc


def _run_key(start: str) -> str:
    return "crawl:" + start


def _counts(pages: list[CrawlPage]) -> dict[str, int]:
    out: dict[str, int] = {}
    for p in pages:
        out[p.state] = out.get(p.state, 0) + 1
    return dict(sorted(out.items()))
