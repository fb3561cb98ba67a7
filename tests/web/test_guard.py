"""The SSRF guard: what is refused, refused before any traffic; what is allowed, allowed only when asked."""
from __future__ import annotations

import ipaddress
import socket

import pytest

from ohara_lab.errors import BlockedURL
from ohara_lab.settings import Settings
from ohara_lab.web.fetch import Fetcher
from ohara_lab.web.guard import check_reachable, check_url, refusal


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.org/x", "gopher://h/", "javascript:alert(1)",
                                 "/etc/passwd", "http://", "http://h:notaport/"])
def test_only_http_urls_with_a_host_are_fetched(url):
    with pytest.raises(BlockedURL):
        check_url(url)


def test_credentials_in_a_url_are_refused_and_never_echoed():
    with pytest.raises(BlockedURL) as e:
        check_url("http://alice:s3cret@example.org/")
    assert "s3cret" not in str(e.value) and "credentials" in e.value.reason


@pytest.mark.parametrize("address, kind", [
    ("127.0.0.1", "loopback"), ("::1", "loopback"), ("10.1.2.3", "private"), ("192.168.0.10", "private"),
    ("172.16.5.4", "private"), ("169.254.10.1", "link-local"), ("fe80::1", "link-local"), ("fd12::1", "private"),
    ("100.64.0.1", "non-public"), ("::ffff:127.0.0.1", "loopback")])
def test_non_public_addresses_are_refused_unless_allowed(address, kind):
    why = refusal(ipaddress.ip_address(address), allow_private=False)
    assert why is not None and kind in why
    assert refusal(ipaddress.ip_address(address), allow_private=True) is None


@pytest.mark.parametrize("address", ["169.254.169.254", "fd00:ec2::254", "0.0.0.0", "224.0.0.1"])
def test_metadata_and_non_host_addresses_are_refused_even_when_private_is_allowed(address):
    assert refusal(ipaddress.ip_address(address), allow_private=True) is not None


def test_public_addresses_pass():
    assert refusal(ipaddress.ip_address("93.184.216.34"), allow_private=False) is None


@pytest.mark.parametrize("url", ["http://10.0.0.1/", "http://169.254.169.254/latest/meta-data/", "http://[fd00::1]/"])
def test_private_urls_are_refused_by_resolution_alone(url, monkeypatch):
    # Every TCP connect is recorded (and refused, so a failing run does not wait on 10.0.0.1): none may happen.
    attempts = []

    def connect(address, *args, **kwargs):
        attempts.append(address)
        raise ConnectionRefusedError(f"test: no connection to {address}")

    monkeypatch.setattr(socket, "create_connection", connect)
    with pytest.raises(BlockedURL):
        check_reachable(url, allow_private=False)
    with Fetcher(Settings(web_timeout_s=30)) as fetcher, pytest.raises(BlockedURL):
        fetcher.fetch(url)
    assert attempts == []  # refused, not a connect attempt left to time out


def test_loopback_site_is_never_contacted_without_allow_private(site):
    for url in (site.url + "/", site.url.replace("127.0.0.1", "localhost") + "/a.html"):
        with Fetcher(Settings()) as fetcher, pytest.raises(BlockedURL) as e:
            fetcher.fetch(url)
        assert "loopback" in e.value.reason and "--allow-private" in e.value.reason
    assert site.hits == []


def test_a_redirect_to_a_metadata_address_is_refused_without_contacting_it(site):
    site.redirects["/go"] = "http://169.254.169.254/latest/meta-data/"
    with Fetcher(Settings(web_allow_private=True, web_timeout_s=30)) as fetcher, pytest.raises(BlockedURL) as e:
        fetcher.fetch(site.url + "/go")
    assert "metadata" in e.value.reason and "redirect" in e.value.reason
    assert site.paths() == ["/go"]
