"""`atlas.ingest(["http://…"])`: fetched bytes through the file parse path, sniffed from the bytes; re-ingest is cheap."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from ohara_lab import Atlas
from ohara_lab.cli import main
from ohara_lab.parse.detect import detect_format
from ohara_lab.errors import ParseError
from tests.parse.parse_builders import build_docx, build_epub, build_pdf_without_outline
from tests.support import OFFLINE

from .site import PNG, html, paragraph


@pytest.fixture
def atlas(tmp_path):
    with Atlas.open(tmp_path / "atlas", **OFFLINE, web_allow_private=True) as a:
        yield a


def test_each_format_is_sniffed_from_the_bytes_whatever_the_url_says(bare_site, atlas, tmp_path):
    s = bare_site
    s.pages = {
        "/paper": ("application/octet-stream", build_pdf_without_outline(tmp_path / "p.pdf").read_bytes()),
        "/report.html": ("text/html", build_docx(tmp_path / "r.docx").read_bytes()),
        "/book": ("application/octet-stream", build_epub(tmp_path / "b.epub").read_bytes()),
        "/notes.md": ("text/plain", b"# Field notes\n\nAda Lovelace met Charles Babbage in London in 1833.\n"),
        "/plain": ("text/plain", b"Plain words about the Analytical Engine and its punched cards.\n"),
        "/page": ("text/html", html("Engine page", "<h1>The engine</h1>" + paragraph("Analytical engines"))),
        "/image.html": ("text/html", PNG),
    }
    report = atlas.ingest([s.url + p for p in s.pages], progress=False)
    by_path = {o.path.rsplit("/", 1)[1]: o for o in report.outcomes}
    assert {k: o.status for k, o in by_path.items()} == {
        "paper": "ingested", "report.html": "ingested", "book": "ingested", "notes.md": "ingested",
        "plain": "ingested", "page": "ingested", "image.html": "failed"}
    assert "binary content (a PNG image)" in by_path["image.html"].reason
    parsers = {d.source_url.rsplit("/", 1)[1]: d.parser_engine for d in atlas.documents()}
    assert parsers["page"] == "trafilatura" and parsers["notes.md"] == "markdown"
    assert parsers["plain"].startswith("text") and "pdf" in parsers["paper"]
    assert "mammoth" in parsers["report.html"] and "ebooklib" in parsers["book"]
    assert atlas.check() == []


def test_a_url_is_ingested_once_then_skipped_with_a_304_then_replaced_when_changed(site, atlas):
    url = site.url + "/a.html"
    first = atlas.ingest([url], progress=False).outcomes[0]
    assert first.status == "ingested"
    doc = atlas.store.get_document(first.document_id)
    assert doc.source_url == url and doc.origin_path == url and doc.meta["http"]["etag"]
    again = atlas.ingest([url], progress=False).outcomes[0]
    assert (again.status, again.reason) == ("skipped", "unchanged since last ingest (HTTP 304)")
    assert site.hits[-1].headers["if-none-match"] == doc.meta["http"]["etag"]
    site.pages["/a.html"] = ("text/html", html("Alpha", "<h1>Alpha page</h1>" + paragraph("Changed engines")))
    third = atlas.ingest([url], progress=False).outcomes[0]
    assert third.status == "replaced" and len(atlas.documents()) == 1 and atlas.check() == []


def test_a_redirected_url_records_where_it_landed(site, atlas):
    outcome = atlas.ingest([site.url + "/r1"], progress=False).outcomes[0]
    assert outcome.status == "ingested"
    assert atlas.store.get_document(outcome.document_id).source_url == site.url + "/c.html"


def test_the_cli_refuses_loopback_without_allow_private(site, tmp_path, monkeypatch):
    for key, value in OFFLINE.items():
        monkeypatch.setenv(f"OHARA_{key.upper()}", str(value))
    runner = CliRunner()
    result = runner.invoke(main, ["ingest", site.url + "/a.html", "--atlas", str(tmp_path / "a")])
    assert result.exit_code == 1 and "loopback address" in result.output and site.hits == []
    result = runner.invoke(main, ["ingest", site.url + "/a.html", "--atlas", str(tmp_path / "a"), "--allow-private"])
    assert result.exit_code == 0 and result.output.startswith("ingested")


@pytest.mark.parametrize("data, ctype, expected", [
    (b"%PDF-1.4 ...", None, "pdf"), (b"<!DOCTYPE html><p>x</p>", None, "webpage"),
    (b"<p>fragment</p>", "text/html", "webpage"), (b"# Title\n", "text/markdown", "markdown"),
    (b"plain text", "application/octet-stream", "text")])
def test_detect_format(data, ctype, expected):
    assert detect_format("http://h.test/x", data, ctype).name == expected


@pytest.mark.parametrize("data, reason", [(PNG, "a PNG image"), (b"\x1f\x8b\x08\x00", "a gzip file"),
                                          (b"abc\x00def", "NUL bytes"), (b"PK\x03\x04junk", "corrupt zip")])
def test_detect_format_refuses_binary_content(data, reason):
    with pytest.raises(ParseError, match=reason):
        detect_format("http://h.test/x.html", data, "text/html")


def test_the_ingest_panel_takes_a_url(site, atlas):
    pytest.importorskip("ipywidgets", reason="the IngestPanel needs the lab extra")
    from ohara_lab.widgets import IngestPanel  # noqa: PLC0415

    panel = IngestPanel(atlas)
    panel.path_box.value = site.url + "/b.html"
    outcomes = panel.ingest_selected()
    assert [o.status for o in outcomes] == ["ingested"] and panel.progress.max == 1
    assert "b.html" in panel.outcome_log.value
