"""Offline behaviours built from the core (structurer, tagger, extractor, query parser, date rules)."""
from __future__ import annotations

from functools import partial

import pytest

from ohara_lab.entities.extract import get_extractor
from ohara_lab.llm import OfflineProvider, register_offline, unregister_offline
from ohara_lab.llm.offline_core import (
    document_context,
    document_metadata,
    extract_query_fingerprint,
    extract_toc,
    ingest_document,
    page_range,
)

RULES = get_extractor("rules")
CHUNK = """# Rivers of the North

Published: 2019-04-02

## Measurements

The Northern Water Authority measured the Red River at Hanoi every morning in April 2018.

| Station | Level |
|---|---|
| Hanoi | 9.2 |

#### Deep detail

- first item
- second item
"""


@pytest.fixture
def offline():
    register_offline("ingest_document", partial(ingest_document, extractor=RULES))
    register_offline("extract_query_fingerprint", partial(extract_query_fingerprint, extractor=RULES))
    yield OfflineProvider()
    unregister_offline("ingest_document")
    unregister_offline("extract_query_fingerprint")


def test_ingest_document_structures_a_chunk_within_the_schema(offline):
    data = offline.generate("ingest_document", {"chunk_text": CHUNK, "page_range": "3-4"}).data  # schema-checked
    kinds = [(n["type"], n.get("title") or n.get("content")) for n in data["nodes"]]
    assert kinds[0] == ("Title", "Rivers of the North")  # the lone leading H1
    assert ("Section", "Measurements") in kinds and ("ListItem", "- first item") in kinds
    deep = next(n for n in data["nodes"] if n.get("title") == "Deep detail")
    assert deep["metadata"]["level"] == 3  # H4 clamped to the schema's deepest level
    table = next(n for n in data["nodes"] if n["type"] == "Table")
    assert table["table"]["content_data"] == [["Station", "Level"], ["Hanoi", "9.2"]]
    assert all(n["metadata"]["page"] == 3 for n in data["nodes"])
    measured = next(n for n in data["nodes"] if n.get("content", "").startswith("The Northern"))
    assert measured["sumo_candidate_tags"] and {"canonical": "Northern Water Authority", "type": "ORG"}.items() <= \
        next(e for e in measured["candidate_entities"] if "Water" in e["name"]).items()
    assert data["temporal"]["published_date"] == "2019-04-02"


def test_a_later_chunk_is_body_matter_at_markdown_depth():
    data = ingest_document({"chunk_text": "Text before any heading in this chunk.\n\n## Next part\n\nMore text here."},
                           extractor=RULES)
    assert [(n["type"], n["part"], n["metadata"].get("level")) for n in data["nodes"]] == [
        ("Paragraph", "body_matter", None), ("Section", "body_matter", 2), ("Paragraph", "body_matter", None)]


def test_page_range():
    assert page_range("3-5") == (3, 5) and page_range("7") == (7, 7) and page_range(None) == (1, 1)
    assert page_range("5-2") == (5, 5)


def test_query_fingerprint_offline(offline):
    data = offline.generate("extract_query_fingerprint",
                            {"query": "What did the Free Software Foundation publish before 2007?"}).data
    assert {"canonical": "Free Software Foundation", "type": "ORG", "slug": "free-software-foundation"} in \
        data["entities"]
    assert data["date_range"] == {"from": None, "to": "2006-12-31"} and data["sumo_tags"]


def test_toc_metadata_and_context():
    printed = "# Contents\n\n- [Intro](#intro)\n- [Methods](#methods)\n\n# Intro\n\nText."
    assert extract_toc({"document_text": printed})["toc_source"] == "explicit"
    implicit = extract_toc({"document_text": CHUNK})
    assert implicit["toc_source"] == "implicit"
    assert [(e["title"], e["level"]) for e in implicit["toc"]][:2] == [("Rivers of the North", 1), ("Measurements", 2)]
    meta = document_metadata({"document_head": "# A Study\n\nAuthors: Ana Lima and Bo Chen\nReceived: 3 March 2020\n"
                                               "doi:10.1234/abc.5678. Published 2021."})
    assert meta["title"] == "A Study" and [a["name"] for a in meta["authors"]] == ["Ana Lima", "Bo Chen"]
    assert meta["doi"] == "10.1234/abc.5678" and meta["review_dates"]["received"] == "2020-03-03"
    summary = document_context({"document_start": CHUNK})["summary"]
    assert summary.startswith("The Northern Water Authority measured") and "|" not in summary
