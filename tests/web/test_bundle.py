"""`ohara crawl` then `ohara ingest --crawl`: one document per host whose sections are the pages; re-bundles replace."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ohara_lab import Atlas
from ohara_lab.cli import main
from ohara_lab.records import CrawlPage
from ohara_lab.web.bundle import bundle_markdown, host_pages
from tests.support import OFFLINE

from .site import html, paragraph


@pytest.fixture
def cli(monkeypatch):
    for key, value in {**OFFLINE, "crawl_delay_s": 0}.items():
        monkeypatch.setenv(f"OHARA_{key.upper()}", str(value))
    runner = CliRunner()

    def run(*args: str, code: int = 0):
        result = runner.invoke(main, list(args), catch_exceptions=False)
        assert result.exit_code == code, result.output
        return result.output
    return run


def _sections(path):
    with Atlas.open(path, **OFFLINE) as atlas:
        docs = atlas.documents()
        nodes = atlas.store.document_nodes(docs[0].id) if docs else {"sections": []}
        return docs, [s["title"] for s in nodes["sections"] if s["level"] == 1]


def test_crawl_then_bundle_gives_one_document_per_host_whose_sections_are_the_pages(site, cli, tmp_path):
    atlas = str(tmp_path / "atlas")
    cli("crawl", site.url + "/", "--allow-private", "--depth", "2", "--atlas", atlas)
    out = cli("ingest", "--crawl", "127.0.0.1", "--atlas", atlas)
    assert out.splitlines()[0].startswith("ingested  crawl://127.0.0.1")
    docs, sections = _sections(atlas)
    assert len(docs) == 1 and docs[0].title == "127.0.0.1" and docs[0].source_url == site.url
    assert sections == ["Welcome home", "Alpha page", "Beta page", "Gamma page", "Alpha printable", "Deep page"]
    assert "Secret page" not in json.dumps(_sections(atlas)[1])
    with Atlas.open(atlas, **OFFLINE) as a:
        text = " ".join(p["content"] for p in a.store.document_nodes(docs[0].id)["paragraphs"])
    assert "Hidden ledgers" not in text and "Difference engines" in text and "Site footer" not in text
    cli("check", "--atlas", atlas)
    assert cli("ingest", "--crawl", "--atlas", atlas).splitlines()[0].startswith("skipped")  # unchanged site


def test_a_recrawl_after_a_change_replaces_the_bundle_cleanly(site, cli, tmp_path):
    atlas = str(tmp_path / "atlas")
    cli("crawl", site.url + "/", "--allow-private", "--depth", "1", "--atlas", atlas)
    cli("ingest", "--crawl", "127.0.0.1", "--atlas", atlas)
    with Atlas.open(atlas, **OFFLINE) as a:
        before = a.stats()
    site.pages["/b.html"] = ("text/html", html("Beta", "<h1>Beta page</h1>" + paragraph("Grace Hopper compilers")))
    crawl = json.loads(cli("crawl", site.url + "/", "--allow-private", "--depth", "1", "--atlas", atlas, "--json"))
    assert crawl["counts"]["fetched"] == 1  # only the changed page came back with a body
    out = cli("ingest", "--crawl", "127.0.0.1", "--atlas", atlas)
    assert out.splitlines()[0].startswith("replaced  crawl://127.0.0.1")
    cli("check", "--atlas", atlas)  # no duplicate edges, entity and co-occurrence counts consistent
    with Atlas.open(atlas, **OFFLINE) as a:
        after = a.stats()
        names = {e.name for e in a.store.get_entities()}
        assert all(e.mention_count > 0 for e in a.store.get_entities())
    assert after["documents"] == before["documents"] == 1
    assert "Grace Hopper" in names and (before["tables"], after["tables"]) == (1, 0)  # the old page's table went


def test_ingest_crawl_without_pages_fails_with_a_reason(cli, tmp_path):
    out = cli("ingest", "--crawl", "nowhere.example", "--atlas", str(tmp_path / "a"), code=1)
    assert "no crawled pages for nowhere.example" in out


def test_bundle_layout_demotes_page_headings_and_marks_urls():
    page = CrawlPage("http://h.test/a", "h.test", state="fetched", markdown="# Alpha\n\nText.\n\n## Part\n\nMore.\n",
                     title="Alpha | Site")
    untitled = CrawlPage("http://h.test/b/c", "h.test", state="fetched", markdown="Just text.\n")
    assert bundle_markdown("h.test", [page, untitled]) == (
        "# h.test\n\n## Alpha\n\n<!-- url: http://h.test/a -->\n\nText.\n\n#### Part\n\nMore.\n\n---\n\n"
        "## /b/c\n\n<!-- url: http://h.test/b/c -->\n\nJust text.\n")


def test_only_the_latest_run_of_a_host_is_bundled(tmp_path):
    with Atlas.open(tmp_path / "a", **OFFLINE) as atlas:
        atlas.store.put_crawl_pages([
            CrawlPage("http://h.test/old", "h.test", state="fetched", run=1, markdown="Old."),
            CrawlPage("http://h.test/", "h.test", state="unchanged", run=2, markdown="Home."),
            CrawlPage("http://h.test/gone", "h.test", state="failed", run=2, markdown="Was here."),
            CrawlPage("http://sub.h.test/", "sub.h.test", state="fetched", run=3, markdown="Sub."),
            CrawlPage("http://other.test/", "other.test", state="fetched", run=3, markdown="Other.")])
        pages = host_pages(atlas.store, "h.test")
    assert {h: [p.url for p in ps] for h, ps in pages.items()} == {
        "h.test": ["http://h.test/"], "sub.h.test": ["http://sub.h.test/"]}
