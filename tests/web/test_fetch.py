"""Fetching one resource from a real local server: caps, limits, redirects, conditional GET, what is sent."""
from __future__ import annotations

import pytest

from ohara_lab.errors import FetchError
from ohara_lab.settings import Settings
from ohara_lab.web.fetch import Fetcher


@pytest.fixture
def fetcher():
    with Fetcher(Settings(web_allow_private=True, web_timeout_s=10, web_max_mb=5)) as f:
        yield f


def test_a_page_is_fetched_with_its_type_validators_and_our_user_agent(site, fetcher):
    res = fetcher.fetch(site.url + "/a.html")
    assert res.status == 200 and res.content_type == "text/html" and b"Alpha page" in res.data
    assert res.etag and res.url == site.url + "/a.html"
    sent = site.hits[-1].headers
    assert sent["user-agent"].startswith("ohara-lab/") and "authorization" not in sent
    assert "br" not in sent["accept-encoding"] and "zstd" not in sent["accept-encoding"]


def test_cookies_are_neither_kept_nor_sent(site, fetcher):
    fetcher.fetch(site.url + "/cookie")
    fetcher.fetch(site.url + "/a.html")
    assert "cookie" not in site.hits[-1].headers


def test_a_redirect_chain_is_followed(site, fetcher):
    res = fetcher.fetch(site.url + "/r1")
    assert res.url == site.url + "/c.html" and res.redirects == [site.url + p for p in ("/r2", "/r3", "/c.html")]
    assert b"Gamma page" in res.data


def test_more_than_five_redirects_are_refused(site, fetcher):
    site.redirects.update({f"/h{i}": f"/h{i + 1}" for i in range(6)})
    site.redirects["/h6"] = "/a.html"
    assert len(fetcher.fetch(site.url + "/h2").redirects) == 5  # h2 -> h3 -> h4 -> h5 -> h6 -> a.html
    with pytest.raises(FetchError, match="more than 5 redirects"):
        fetcher.fetch(site.url + "/h1")  # six


def test_a_redirect_loop_is_named(site, fetcher):
    with pytest.raises(FetchError) as e:
        fetcher.fetch(site.url + "/loop-a")
    assert e.value.reason == f"redirect loop: {site.url}/loop-a -> {site.url}/loop-b -> {site.url}/loop-a"


@pytest.mark.timeout(120)  # reading all 50 MB (or inflating the bomb whole) would take longer on a shared machine
@pytest.mark.parametrize("path", ["/big", "/big-declared", "/bomb"])
def test_a_50_mb_body_is_refused_by_the_cap(site, fetcher, path):
    with pytest.raises(FetchError, match="larger than the 5 MiB limit"):
        fetcher.fetch(site.url + path)


def test_a_streamed_body_is_cut_off_at_the_cap_not_read_to_its_end(site, fetcher):
    # Counted by the server, not timed: the client hangs up after 5 MiB, so the server's writes stop
    # once the loopback socket's buffers (a few MiB) are full; a client that read on would take all 50.
    with pytest.raises(FetchError, match="larger than the 5 MiB limit"):
        fetcher.fetch(site.url + "/big")
    assert site.big_done.wait(60), "the server is still sending /big"
    assert 5 <= site.big_chunks_sent < 30, site.big_chunks_sent


def test_a_slow_page_times_out(site):
    # The page is valid and comes 3 s late: a fetcher that waited past its 0.5 s timeout would return
    # it, so the timeout error itself shows it gave up in time.
    site.slow_seconds = 3
    with Fetcher(Settings(web_allow_private=True, web_timeout_s=0.5)) as fetcher, \
            pytest.raises(FetchError, match="within 0.5 s"):
        fetcher.fetch(site.url + "/slow")


# The trickling servers never finish: each byte comes long before any per-read timeout, so only a
# deadline over the whole request ends the fetch. Without one the test hangs, and pytest-timeout
# fails it (a failure guard, not a measurement: nothing here asserts how long anything took).
@pytest.mark.timeout(60)
@pytest.mark.parametrize("path, stage", [("/trickle-headers", "no complete response"),
                                         ("/trickle-body", "body not complete")])
def test_a_server_that_trickles_forever_is_cut_off_by_the_whole_request_deadline(site, path, stage):
    with Fetcher(Settings(web_allow_private=True, web_timeout_s=0.5)) as fetcher, pytest.raises(FetchError) as e:
        fetcher.fetch(site.url + path)
    assert e.value.reason.startswith(stage) and "web_timeout_s" in e.value.reason and "\n" not in str(e.value)
    assert site.requested(path) == 1


@pytest.mark.timeout(60)
def test_the_deadline_covers_every_redirect_hop(site):
    site.redirects.update({"/hop1": "/hop2", "/hop2": "/trickle-body"})
    with Fetcher(Settings(web_allow_private=True, web_timeout_s=0.5)) as fetcher:
        with pytest.raises(FetchError, match="body not complete"):
            fetcher.fetch(site.url + "/hop1")
        assert b"Alpha" in fetcher.fetch(site.url + "/a.html").data  # the next fetch has its own deadline


@pytest.mark.timeout(60)
def test_a_trickled_body_is_capped_by_bytes_while_it_streams(site):
    site.trickle_every = 0  # as fast as the socket takes it: the byte cap, not the deadline, must stop it
    limit = Settings(web_allow_private=True, web_timeout_s=50, web_max_mb=0.0625)
    with Fetcher(limit) as fetcher, pytest.raises(FetchError, match="larger than the 0.0625 MiB limit"):
        fetcher.fetch(site.url + "/trickle-body")


def test_http_errors_carry_their_status(site, fetcher):
    with pytest.raises(FetchError) as e:
        fetcher.fetch(site.url + "/missing")
    assert e.value.status == 404 and e.value.reason == "HTTP 404 Not Found"


def test_a_conditional_get_of_an_unchanged_page_is_a_304(site, fetcher):
    first = fetcher.fetch(site.url + "/b.html")
    again = fetcher.fetch(site.url + "/b.html", etag=first.etag)
    assert again.not_modified and again.data == b""
    assert site.hits[-1].headers["if-none-match"] == first.etag
