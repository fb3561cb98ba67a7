"""A polite, resumable breadth-first crawl whose state lives in the atlas (`crawl` pages).

Breadth first from a start URL, to `crawl_depth` link hops and `crawl_max_pages`
requests, on the start host only unless told otherwise; robots.txt obeyed
(`robots.Robots`); at least `crawl_delay_s` (or the site's longer Crawl-delay,
cut to `crawl_max_delay_s` and reported) between two requests to one host;
at most `crawl_links_per_page` links read from a page and never more URLs
queued than `crawl_max_frontier` or the pages the run may still visit, so the
work and the stored rows are bounded by the settings, not by the site; URLs
canonical (`urls.canonical`), so no page is visited twice in a run and link
cycles end. A redirect is followed only to a URL the crawl could visit itself
(in scope, allowed by robots.txt); the body is kept under the final URL and the
redirecting page points to it.

Every visit is written with the links it queued in one store transaction, so a
crawl killed at any moment resumes where it stopped (same run, same frontier).
A new run of a finished crawl sends conditional GETs (ETag / Last-Modified) and
compares body hashes: an unchanged page costs a 304 and keeps its stored
Markdown; only changed pages are parsed again.
"""
from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from hashlib import sha256
from urllib.parse import urlsplit

from ..errors import BlockedURL, FetchError, ParseError
from ..parse import parse_bytes
from ..parse.detect import detect_format
from ..records import CrawlPage, Record, utc_now
from ..settings import Settings
from ..store.protocol import GraphStore
from .fetch import Fetcher, Resource
from .guard import check_reachable, deadline
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
    links_dropped: int = 0  # new in-scope links not queued: the frontier was full or the page budget spent
    delays_capped: dict[str, str] = field(default_factory=dict)  # host -> the Crawl-delay it asked, and what we used


@dataclass
class _Run:
    """One crawl run: its start URL, number, and every page it has queued or visited so far."""

    start: str
    number: int
    known: dict[str, CrawlPage]


class Crawler:
    """Crawls into `store` with the web settings of `settings` (see the module docstring)."""

    def __init__(self, store: GraphStore, settings: Settings, *, fetcher: Fetcher | None = None,
                 on_page: Callable[[CrawlPage], None] | None = None):
        self.store, self.settings, self.on_page = store, settings, on_page
        self.fetcher = fetcher or Fetcher(settings)
        self.robots = Robots(self.fetcher, settings.web_user_agent)
        self._last_request: dict[str, float] = {}
        self._capped: dict[str, str] = {}
        self._dropped = 0

    def crawl(self, start_url: str) -> CrawlReport:
        with deadline(self.fetcher.timeout):  # the start host's DNS lookup is bounded like a fetch's
            check_reachable(start_url, self.fetcher.allow_private)
        start = canonical(start_url)
        number, resumed = self._run_for(start)
        run = _Run(start, number, {p.url: p for p in self.store.crawl_pages(run=number)})
        if start not in run.known:
            self._persist(self._requeue(run, [start], depth=0, via=None))
        frontier = deque(p for p in run.known.values() if p.state == "queued")
        report = CrawlReport(start=start, run=number, resumed=resumed)
        done = sum(1 for p in run.known.values() if p.state in VISITED)
        budget = self.settings.crawl_max_pages
        while frontier and done < budget:
            page = frontier.popleft()
            if page.state != "queued":  # reached meanwhile as a redirect's target
                continue
            # No more URLs are held than can still be visited after this page, nor than the frontier's
            # bound: links past that would only be stored and never fetched (a 100,000-link page queued
            # 99,998 rows for --max-pages 3). Stale entries (reached by a redirect) count, erring small.
            room = max(0, min(self.settings.crawl_max_frontier, budget - done - 1) - len(frontier))
            changed = self._visit(run, page, room)
            self._persist(changed)
            frontier.extend(p for p in changed if p.state == "queued")
            if page.state in VISITED:
                done += 1
                report.visited += 1
            if self.on_page is not None:
                self.on_page(page)
        self.store.set_meta(_run_key(start), {"run": number, "finished": True, "finished_at": utc_now()})
        report.counts = _counts(self.store.crawl_pages(run=number))
        report.links_dropped, report.delays_capped = self._dropped, dict(self._capped)
        return report

    # ------------------------------------------------------------------ runs
    def _run_for(self, start: str) -> tuple[int, bool]:
        """The unfinished run of this start URL (resume), else a new one."""
        state = self.store.get_meta(_run_key(start)) or {}
        if state.get("run") and not state.get("finished"):
            return int(state["run"]), True
        number = int(self.store.get_meta(RUN_COUNTER, 0) or 0) + 1
        self.store.set_meta(RUN_COUNTER, number)
        self.store.set_meta(_run_key(start), {"run": number, "finished": False, "started_at": utc_now()})
        return number, False

    # ------------------------------------------------------------------ one page
    def _visit(self, run: _Run, page: CrawlPage, room: int) -> list[CrawlPage]:
        """Fetch one queued page; return it and every page it changed or queued (at most `room` new ones)."""
        refusal = self._refusal(page.url)
        if refusal:
            page.state, page.error = refusal
            return [page]
        res = self._fetch(run, page)
        if res is None:
            return [page]
        target = self._landing(run, page, res)
        changed = [page] if target is page else [page, target]
        self._record(target, res)
        if target.state in ("fetched", "unchanged") and self._may_follow(page.depth):
            fresh = [u for u in target.links if u not in run.known and self._in_scope(u, run.start)]
            # Links robots.txt already refuses are recorded, not queued: they cost no request, so they
            # must not take the places of pages the budget can visit.
            refused = [u for u in fresh if self.robots.known_disallows(u)]
            wanted = [u for u in fresh if u not in refused_set] if (refused_set := set(refused)) else fresh
            self._dropped += max(0, len(wanted) - room)
            changed += self._requeue(run, wanted[:room], depth=page.depth + 1, via=target.url)
            for held in self._requeue(run, refused, depth=page.depth + 1, via=target.url):
                held.state, held.error = "disallowed", "disallowed by robots.txt"
                changed.append(held)
        return changed

    def _refusal(self, url: str) -> tuple[str, str] | None:
        """(state, reason) when robots.txt or the guard keeps us from asking for `url`."""
        try:
            allowed = self.robots.allows(url)
        except BlockedURL as e:  # a link to a host the guard refuses (any-host crawls)
            return "failed", e.reason
        finally:  # the first contact with a host fetched its robots.txt: that request counts for the delay
            self._last_request.setdefault(host_of(url), time.monotonic())
        return None if allowed else ("disallowed", "disallowed by robots.txt")

    def _fetch(self, run: _Run, page: CrawlPage) -> Resource | None:
        """The page's response (conditional when we hold its content), or None with the page marked failed."""
        self._wait(page.url)
        held = page.markdown is not None
        try:
            return self.fetcher.fetch(page.url, etag=page.etag if held else None,
                                      last_modified=page.last_modified if held else None,
                                      hop_refusal=lambda target: self._hop_refusal(run, target))
        except FetchError as e:
            page.state, page.status, page.error, page.fetched_at = "failed", e.status, e.reason, utc_now()
            return None
        finally:
            self._last_request[host_of(page.url)] = time.monotonic()

    def _hop_refusal(self, run: _Run, target: str) -> str | None:
        """Why a redirect to `target` is not followed: off-site for this crawl, or robots.txt says no."""
        target = canonical(target)
        if not self._in_scope(target, run.start):
            return f"redirected off-site to {target}"
        refused = self._refusal(target)
        return f"redirected to {target}: {refused[1]}" if refused else None

    def _landing(self, run: _Run, page: CrawlPage, res: Resource) -> CrawlPage:
        """The page that holds the response: `page`, or after redirects the final URL's page."""
        final = canonical(res.url)
        if final == page.url:
            return page
        page.fetched_at, page.status = utc_now(), res.status
        page.state, page.links, page.error = "redirected", [final], None
        target = run.known.get(final) or self._existing(final) or CrawlPage(final, host_of(final))
        target.depth, target.via, target.run = page.depth, target.via or page.url, run.number
        run.known[final] = target
        return target

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
            parsed = parse_bytes(page.url, res.data, fmt, self.settings)
        except ParseError as e:
            page.state, page.error, page.markdown, page.links = "failed", e.reason, None, []
            page.content_hash = digest
            return
        page.state, page.content_hash, page.changed_at = "fetched", digest, page.fetched_at
        page.title, page.markdown = parsed.title, parsed.markdown
        page.links = links(res.data, res.url, self.settings.crawl_links_per_page) if fmt.name == "webpage" else []

    # ------------------------------------------------------------------ helpers
    def _requeue(self, run: _Run, urls: list[str], *, depth: int, via: str | None) -> list[CrawlPage]:
        """Queue `urls` in this run, keeping what earlier runs stored about them (ETag, hash, Markdown)."""
        stored = {p.url: p for p in self.store.crawl_pages(urls=urls)} if urls else {}
        out = []
        for url in urls:
            page = stored.get(url) or CrawlPage(url, host_of(url))
            page.state, page.depth, page.via, page.run = "queued", depth, via, run.number
            run.known[url] = page
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
        """Sleep until this host may be asked again (our delay, or robots.txt's when longer, up to its cap)."""
        host = host_of(url)
        asked, cap = self.robots.delay(url), self.settings.crawl_max_delay_s
        if not math.isfinite(asked) or asked > cap:  # "Crawl-delay: 1000000000" would hold the crawl for 31 years
            self._capped.setdefault(host, f"robots.txt asks Crawl-delay {asked:g} s; waited {cap:g} s "
                                          "(OHARA_CRAWL_MAX_DELAY_S)")
            asked = cap
        delay = max(self.settings.crawl_delay_s, asked)
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
