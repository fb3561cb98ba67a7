"""Every entry point maps what happens to a document the same way: duplicate -> skipped, error -> failed,
and an unexpected exception (a bug) -> failed without aborting the batch or touching the atlas."""
from __future__ import annotations

from ohara_lab import Atlas
from ohara_lab.ingest.pipeline import Ingestor, TextItem
from ohara_lab.ingest.prepare import offline_structurer
from ohara_lab.records import Chunk

from tests.support import OFFLINE

GOOD = ("Alpha Bank", "Alpha Bank was founded in Athens by Ioannis Stefanou in 1879. It financed the railway.")
BROKEN = ("Broken", "This text trips the structurer, which stands in for a bug in any stage of the pipeline.")


def _buggy_structurer(chunks: list[Chunk], markdown: str, doc_id: str):  # noqa: ANN202 - the Structurer shape
    if "trips the structurer" in markdown:
        raise KeyError("boom")
    return offline_structurer(chunks, markdown, doc_id)


def _ingestor(atlas: Atlas) -> Ingestor:
    return Ingestor(atlas.store, atlas.settings, structurer=_buggy_structurer)


def test_a_bug_fails_one_text_in_every_entry_point(tmp_path):
    with Atlas.open(tmp_path / "a", **OFFLINE) as atlas:
        ing = _ingestor(atlas)
        single = ing.ingest_text(BROKEN[1], title=BROKEN[0], source_id="t:broken")
        assert single.status == "failed" and single.reason == "internal error: KeyError: 'boom'"
        report = ing.ingest_texts([TextItem(t, ti, f"t:{ti}") for ti, t in (BROKEN, GOOD)], progress=False)
        assert [o.status for o in report.outcomes] == ["failed", "ingested"]
        assert report.outcomes[0].reason == "internal error: KeyError: 'boom'"
        path = tmp_path / "broken.md"
        path.write_text(f"# {BROKEN[0]}\n\n{BROKEN[1]}\n")
        assert ing.ingest_file(path).status == "failed"
        assert [d.title for d in atlas.documents()] == ["Alpha Bank"]


def test_named_errors_and_skips_are_the_same_outcome_everywhere(tmp_path):
    with Atlas.open(tmp_path / "a", **OFFLINE) as atlas:
        ing = _ingestor(atlas)
        empty = ing.ingest_text("   \n\n", title="Empty", source_id="t:empty")
        batch = ing.ingest_texts([TextItem("   \n\n", "Empty", "t:empty")], progress=False).outcomes[0]
        assert (empty.status, empty.reason) == (batch.status, batch.reason) == \
            ("failed", "no text content found after structuring")
        first = ing.ingest_text(GOOD[1], title=GOOD[0], source_id="t:good")
        again = ing.ingest_texts([TextItem(GOOD[1], GOOD[0], "t:good")], progress=False).outcomes[0]
        assert first.status == "ingested"
        assert (again.status, again.document_id, again.reason) == ("skipped", first.document_id,
                                                                   "unchanged since last ingest")
