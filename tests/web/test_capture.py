"""`ohara capture`: the page as headless Chromium renders it, and nothing the page asks for beyond its own host."""
from __future__ import annotations

import pytest

from ohara_lab.errors import BlockedURL, UsageError
from ohara_lab.settings import Settings
from ohara_lab.web.capture import capture, default_output, find_chromium

from .site import html, paragraph

CHROMIUM = find_chromium(Settings())
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on PATH (apt-get install chromium)")
SETTINGS = Settings(web_allow_private=True, capture_timeout_s=90)


def test_default_output_is_a_name_in_the_current_directory():
    assert default_output("http://h.test/../../etc/passwd?x=1", "png").as_posix() == "h_test_etc_passwd.png"
    assert default_output("http://h.test/", "pdf").parent.as_posix() == "."


def test_capture_checks_the_address_before_starting_a_browser(site, tmp_path):
    with pytest.raises(BlockedURL):
        capture(site.url + "/", "html", tmp_path / "x.html", settings=Settings())
    with pytest.raises(UsageError):
        capture(site.url + "/", "gif", tmp_path / "x.gif", settings=SETTINGS)
    assert site.hits == []


@needs_chromium
def test_capture_renders_html_pdf_and_png(site, tmp_path):
    site.pages["/js.html"] = ("text/html", html("Scripted", paragraph("Rendering")
                                                + '<div id="out"></div><script>document.getElementById("out")'
                                                '.textContent = "written by script";</script>'))
    dom = capture(site.url + "/js.html", "html", tmp_path / "page.html", settings=SETTINGS)
    assert "written by script" in dom.read_text()  # the DOM after scripts ran, not the bytes served
    pdf = capture(site.url + "/js.html", "pdf", tmp_path / "page.pdf", settings=SETTINGS)
    assert pdf.read_bytes().startswith(b"%PDF-")
    png = capture(site.url + "/js.html", "png", tmp_path / "page.png", settings=SETTINGS)
    assert png.read_bytes().startswith(b"\x89PNG")
    with pytest.raises(UsageError, match="exists"):
        capture(site.url + "/js.html", "png", png, settings=SETTINGS)


@needs_chromium
def test_a_page_cannot_make_the_browser_reach_another_host(site, bare_site, tmp_path):
    other = bare_site.url  # another server on loopback: another origin the page points at
    bare_site.pages["/tracker.png"] = ("image/png", b"\x89PNG")
    site.pages["/leaky.html"] = ("text/html", html("Leaky", paragraph("Leaks")
                                                   + f'<img src="{other}/tracker.png">'
                                                   + '<img src="http://169.254.169.254/latest/meta-data/">'))
    capture(site.url + "/leaky.html", "png", tmp_path / "leaky.png", settings=SETTINGS)
    assert site.requested("/leaky.html") >= 1 and bare_site.hits == []
