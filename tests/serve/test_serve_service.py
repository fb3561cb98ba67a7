"""`AtlasService`, the shared core of `ohara serve` and `ohara mcp`, in process."""
from __future__ import annotations

import threading

import pytest

from ohara_lab.errors import NotFoundError, StoreError, UsageError
from ohara_lab.serve.service import AtlasService, brief, document_ref, node_ref, render_document, section_view
from ohara_lab.settings import Settings

from tests.support import OFFLINE


@pytest.fixture
def service(fresh_copy):
    svc = AtlasService(fresh_copy, Settings().override(**OFFLINE))
    yield svc
    svc.close()


@pytest.mark.parametrize("good", ["paragraphs/0a1b-00012", "documents/da57249f3b2a8e3e627e", "entities/gnu-gpl",
                                  "sections/A_b-1"])
def test_node_ids_that_pass(good):
    assert node_ref(good) == good


@pytest.mark.parametrize("bad", ["../etc/passwd", "paragraphs/../x", "paragraphs/", "files/x", "paragraphs/a/b",
                                 "paragraphs/.env", "paragraphs/-x", "paragraphs/a%2Fb", "paragraphs/a\x00",
                                 "paragraphs/" + "a" * 201, ""])
def test_node_ids_that_are_refused(bad):
    with pytest.raises(UsageError, match="not a node id"):
        node_ref(bad)


def test_document_ref_takes_a_key_or_an_id():
    assert document_ref("abc") == document_ref("documents/abc") == "documents/abc"
    with pytest.raises(UsageError):
        document_ref("documents/../x")


def test_brief_cuts_only_content_strings():
    data = {"content": "a" * 50, "title": "t" * 50, "results": [{"content": "b" * 10, "id": "x"}],
            "answerability": {"score": 0.4, "content": "c" * 40}}
    out = brief(data, 20)
    assert len(out["content"]) == 20 and out["content"].endswith("…") and out["title"] == "t" * 50
    assert out["results"] == [{"content": "b" * 10, "id": "x"}] and out["answerability"]["score"] == 0.4
    assert brief(data, 0) is data


def test_the_service_opens_read_only_and_never_creates(tmp_path):
    with pytest.raises(StoreError, match="no atlas at"):
        AtlasService(tmp_path / "missing")
    assert not (tmp_path / "missing").exists()


def test_caps_and_overrides(service):
    assert service.overrides(7, {"bm25": 0.5, "cross-doc": 0.1}) == {
        "bm25_weight": 0.5, "cross_doc_weight": 0.1, "result_limit": 7}
    for limit in (0, 101):
        with pytest.raises(UsageError, match="limit must be between 1 and 100"):
            service.overrides(limit)
    with pytest.raises(UsageError, match="longer than 4000"):
        service.query("x" * 4001)
    with pytest.raises(UsageError, match="empty"):
        service.query("   ")


def test_document_rendering_and_sections(service):
    doc_id = service.documents()["documents"][0]["id"]
    data = service.document(doc_id)
    text = render_document(data)
    assert data["sections"] and data["paragraphs"]  # else the loop below checks little
    for node in data["sections"] + data["paragraphs"] + data["tables"]:
        assert f"<!-- {node['id']} -->" in text
    top = next(s for s in data["sections"] if not s.get("parent_section_id"))
    part = section_view(data, top["id"])
    assert part["sections"][0]["id"] == top["id"]
    assert {p["section_id"] for p in part["paragraphs"]} <= {s["id"] for s in part["sections"]}
    with pytest.raises(NotFoundError):
        service.document("0123456789abcdef0123")


def test_writes_go_through_their_own_writable_atlas(service, fresh_copy):
    hit = service.query("patent licences", limit=1).results[0].id
    with pytest.raises(StoreError, match="read-only"):
        service.atlas.feedback("q", hit, 1, "positive")
    assert service.feedback("patent licences", hit, 1, "positive")["stored"]
    assert [f["node_id"] for f in service.atlas.store.feedback()] == [hit]
    with pytest.raises(UsageError, match="ingest is off"):
        service.ingest("anything.md")


def test_threads_share_one_engine(service):
    service.warm()
    engine, results, errors = service.atlas.engine, {}, []

    def ask(i: int) -> None:
        try:
            results[i] = [f.id for f in service.query("GNU General Public License version 3", limit=5).results]
        except Exception as e:  # noqa: BLE001 - collected and asserted below
            errors.append(repr(e))

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == [] and len(set(map(tuple, results.values()))) == 1 and len(results) == 8
    assert service.atlas.engine is engine


def test_ingest_refuses_a_file_swapped_for_a_link_after_the_root_check(fresh_copy, tmp_path):
    """Issue 28.1: `inside_roots` passes the folder; a file in it becomes a link out before it is opened
    (the ingestor's `after_check` seam); the opened file is outside the root, so it is refused."""
    root, secret = tmp_path / "inbox", tmp_path / "private.md"
    (root / "drop").mkdir(parents=True)
    (root / "drop" / "note.md").write_text("# Note\n\nHerons nest by the weir.\n")
    secret.write_text("# Private\n\nThe keeper earns 91,000 crowns.\n")

    def swap(path):
        path.unlink()
        path.symlink_to(secret)

    svc = AtlasService(fresh_copy, Settings().override(**OFFLINE), ingest_roots=[root])
    try:
        svc._writable().ingestor.after_check = swap
        (o,) = svc.ingest("drop")["outcomes"]
        assert o["status"] == "failed" and o["reason"] == "became a symbolic link after it was checked: refused"
        assert not [d for d in svc._writable().documents() if d.title == "Private"]
    finally:
        svc.close()
