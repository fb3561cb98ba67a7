"""The SSRF guard: what is refused, refused before any traffic; what is allowed, allowed only when asked."""
from __future__ import annotations

import ipaddress
import subprocess
import sys

import pytest

from ohara_lab.errors import BlockedURL
from ohara_lab.settings import Settings
from ohara_lab.web.fetch import Fetcher
from ohara_lab.web.guard import check_reachable, check_url, refusal
from tests.support import offline_env


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


@pytest.mark.timeout(20)  # a connect attempt would be left to its 30 s time limit: the guard fails the test
@pytest.mark.parametrize("url", ["http://10.0.0.1/", "http://169.254.169.254/latest/meta-data/", "http://[fd00::1]/"])
def test_private_urls_are_refused_by_resolution_alone(url):
    with pytest.raises(BlockedURL):
        check_reachable(url, allow_private=False)
    with Fetcher(Settings(web_timeout_s=30)) as fetcher, pytest.raises(BlockedURL):
        fetcher.fetch(url)


@pytest.mark.timeout(60)  # a hop that connected to a metadata address would wait for its connect timeout
@pytest.mark.parametrize("location, says", [
    ("http://[::ffff:a9fe:a9fe]/latest/meta-data/", "169.254.169.254 inside IPv6) is a cloud metadata address"),
    ("http://[64:ff9b::a9fe:a9fe]/latest/meta-data/", "169.254.169.254 inside IPv6) is a cloud metadata address"),
    ("http://168.63.129.16/machine", "168.63.129.16 is a cloud metadata address"),
    ("http://0x7f.1:{port}/a.html", "0x7f.1"),
    ("http://0177.0.0.1:{port}/a.html", "0177.0.0.1"),
    ("file:///etc/passwd", "only http and https URLs are fetched, not 'file'")])
def test_every_redirect_hop_is_checked_like_a_new_url(site, location, says):
    site.redirects["/go"] = location.replace("{port}", str(site.server.server_address[1]))
    with Fetcher(Settings(web_allow_private=True, web_timeout_s=5)) as fetcher, pytest.raises(BlockedURL) as e:
        fetcher.fetch(site.url + "/go")
    assert says in e.value.reason and "redirect" in e.value.reason and "\n" not in str(e.value)
    assert site.paths() == ["/go"]  # the hop itself was never sent


# The audit's bypasses (issue 28, point 2): (URL, allow_private, what the one-line refusal says).
# "{port}" is the live site's port: a bypass that slipped through would reach it (and show in its log).
BYPASSES = [
    ("http://[64:ff9b::a9fe:a9fe]/latest/meta-data/", True, "169.254.169.254 inside IPv6) is a cloud metadata"),
    ("http://[64:ff9b::7f00:1]:{port}/", False, "127.0.0.1 inside IPv6) is a loopback address"),
    ("http://[::169.254.169.254]/", True, "169.254.169.254 inside IPv6) is a cloud metadata"),
    ("http://[::ffff:169.254.169.254]/", True, "169.254.169.254 inside IPv6) is a cloud metadata"),
    ("http://[::ffff:0:a9fe:a9fe]/", True, "169.254.169.254 inside IPv6) is a cloud metadata"),
    ("http://[2002:a9fe:a9fe::1]/", True, "169.254.169.254 inside IPv6) is a cloud metadata"),
    ("http://[2002:7f00:1::1]:{port}/", False, "127.0.0.1 inside IPv6) is a loopback address"),
    ("http://[::127.0.0.1]:{port}/", False, "127.0.0.1 inside IPv6) is a loopback address"),
    ("http://[::ffff:127.0.0.1]:{port}/", False, "127.0.0.1 inside IPv6) is a loopback address"),
    ("http://169.254.169.254/latest/meta-data/", True, "169.254.169.254 is a cloud metadata address"),
    ("http://168.63.129.16/machine?comp=goalstate", True, "168.63.129.16 is a cloud metadata address"),
    ("http://168.63.129.16/", False, "168.63.129.16 is a cloud metadata address"),  # a public address
    ("http://169.254.170.2/v2/credentials", True, "169.254.170.2 is a cloud metadata address"),
    ("http://[fd00:ec2::254]/", True, "fd00:ec2::254 is a cloud metadata address"),
    ("http://0177.0.0.1:{port}/", True, "'0177.0.0.1' is a numeric address in a non-standard form"),
    ("http://0x7f.1:{port}/", True, "'0x7f.1' is a numeric address in a non-standard form"),
    ("http://2130706433:{port}/", True, "'2130706433' is a numeric address in a non-standard form"),
    ("http://127.1:{port}/", True, "'127.1' is a numeric address in a non-standard form"),
    ("http://0x7f000001:{port}/", True, "'0x7f000001' is a numeric address in a non-standard form"),
    ("data:text/html,<h1>hi</h1>", True, "only http and https URLs are fetched, not 'data'"),
    ("file:///etc/passwd", True, "only http and https URLs are fetched, not 'file'"),
    ("http://example.org\\@127.0.0.1:{port}/", True, "URL holds a backslash"),
    ("http:\\\\127.0.0.1:{port}\\", True, "URL holds a backslash"),
    ("http://[::1/", True, "malformed URL: Invalid IPv6 URL"),
    ("http://127.0.0.1%2f@x:{port}/", True, "credentials"),
    ("http://exa%2fmple.org/", True, "holds characters a host name cannot"),
    ("http://127.0.0.1:{port}/a\nb", True, "whitespace or a control character"),
]


@pytest.mark.timeout(60)  # a bypass that connects to a metadata address would wait for its connect timeout
@pytest.mark.parametrize("url, allow_private, says", BYPASSES, ids=[b[0] for b in BYPASSES])
def test_the_audits_bypasses_are_refused_in_one_line_before_any_traffic(site, url, allow_private, says):
    url = url.replace("{port}", str(site.server.server_address[1]))
    with Fetcher(Settings(web_allow_private=allow_private, web_timeout_s=5)) as fetcher, \
            pytest.raises(BlockedURL) as e:
        fetcher.fetch(url)
    assert says in e.value.reason and "\n" not in str(e.value)
    assert site.hits == []


@pytest.mark.parametrize("address, inner", [
    ("::ffff:10.0.0.1", "10.0.0.1"), ("::10.0.0.1", "10.0.0.1"), ("64:ff9b::a00:1", "10.0.0.1"),
    ("64:ff9b:1::a00:1", "10.0.0.1"), ("2002:a00:1::", "10.0.0.1"), ("::ffff:0:a00:1", "10.0.0.1"),
    ("2001:0:4136:e378:8000:63bf:f5ff:fffe", "10.0.0.1")])  # Teredo: the client address, bits inverted
def test_an_ipv4_address_inside_ipv6_is_judged_as_that_host(address, inner):
    why = refusal(ipaddress.ip_address(address), allow_private=False)
    assert why is not None and f"IPv4 {inner} inside IPv6" in why and "private" in why


@pytest.mark.parametrize("address", ["2002:5db8:d822::1", "64:ff9b::5db8:d822", "2606:4700::1111"])
def test_public_ipv4_inside_ipv6_passes(address):  # 93.184.216.34 by 6to4 and NAT64; a plain global IPv6
    assert refusal(ipaddress.ip_address(address), allow_private=False) is None


def test_a_malformed_url_on_the_command_line_is_one_line_per_url(tmp_path, site):
    port = site.server.server_address[1]
    cases = {f"http://0x7f.1:{port}/": "numeric address in a non-standard form", "http://[::1/": "Invalid IPv6 URL",
             "http://[64:ff9b::a9fe:a9fe]/": "cloud metadata address",
             "data:text/html,hi": "only http and https URLs are fetched, not 'data'",
             "file:///etc/passwd": "only http and https URLs are fetched, not 'file'",
             f"http:\\\\127.0.0.1:{port}\\": "backslash"}
    done = subprocess.run([sys.executable, "-m", "ohara_lab.cli", "ingest", *cases, "--atlas", str(tmp_path / "a"),
                           "--allow-private"], capture_output=True, text=True, timeout=120, env=offline_env())
    out = done.stdout + done.stderr
    assert "Traceback" not in out and done.returncode != 0
    for url, says in cases.items():
        lines = [line for line in out.splitlines() if line.startswith("failed") and url.split(",")[0] in line]
        assert len(lines) == 1 and says in lines[0], (url, out)
    assert site.hits == []
