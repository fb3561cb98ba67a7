"""`ohara ingest --dry-run` on a large set samples (issue 25, point 5): every file is planned, a few per
format are parsed, a few chunks per parsed file have their replies predicted, the rest is extrapolated by
size; totals stay near the full estimate, which `test_llm_estimate.py` holds to the real run's ledger."""
from __future__ import annotations

import json

from click.testing import CliRunner
from standin import offline_atlas

from ohara_lab.cli import main
from ohara_lab.llm.estimate import SAMPLE_CHUNKS, SAMPLE_FILES
from ohara_lab.samples import corpus_dir

TOLERANCE = 0.15  # the full estimate's own bar against the ledger


def _close(sampled: float, full: float) -> bool:
    return abs(sampled - full) <= TOLERANCE * full


def test_a_large_set_is_sampled_and_lands_near_the_full_estimate(tmp_path):
    atlas = offline_atlas(tmp_path / "full")
    full = atlas.estimate_ingest(corpus_dir())
    atlas.close()
    atlas = offline_atlas(tmp_path / "sampled", estimate_full_mb=0.01)  # the 125 kB corpus counts as large
    sampled = atlas.estimate_ingest(corpus_dir())
    assert atlas.stats()["documents"] == 0
    atlas.close()
    assert {f.method for f in full.files} == {"full"} and full.sample_note is None
    methods = {f.path.rsplit("/", 1)[-1]: f.method for f in sampled.files}
    # Per format, the smallest and the largest file are parsed; the other .txt files are extrapolated.
    assert [n for n, m in sorted(methods.items()) if m == "sampled"] == ["GPL-3.txt", "LGPL-3.txt",
                                                                        "copyleft-timeline.md"]
    assert sum(m == "sampled" for m in methods.values()) <= SAMPLE_FILES * 2
    assert {f.status for f in sampled.files} == {"ingested"}
    got, want = sampled.totals(), full.totals()
    assert _close(got["requests"], want["requests"]), (got, want)
    assert _close(got["input_tokens"], want["input_tokens"]), (got, want)
    assert _close(got["output_tokens"], want["output_tokens"]), (got, want)
    assert "enrich_cross_doc_edge requests not predicted" in sampled.sample_note


def test_only_a_few_chunks_of_a_long_file_are_predicted(tmp_path):
    book = tmp_path / "book.md"
    book.write_text("".join(f"## Chapter {i}\n\n" + f"Alice met Bob in Paris in {1900 + i}. " * 60 + "\n\n"
                            for i in range(120)))
    atlas = offline_atlas(tmp_path / "a", estimate_full_mb=0.01, max_chunk_chars=4000)
    (row,) = atlas.estimate_ingest([book]).files
    note = atlas.estimate_ingest([book]).sample_note
    atlas.close()
    chunks = row.totals()["by_prompt"]["ingest_document"]
    assert chunks > 10 * SAMPLE_CHUNKS and row.method == "sampled"
    assert f"the replies of {SAMPLE_CHUNKS} of their {chunks} chunks predicted" in note


def test_cli_dry_run_says_it_sampled(tmp_path):
    out = CliRunner().invoke(main, ["ingest", str(corpus_dir()), "--atlas", str(tmp_path / "a"), "--dry-run"],
                             env={"OHARA_ESTIMATE_FULL_MB": "0.01", "OHARA_EMBEDDER": "none", "OHARA_NER": "rules"})
    assert out.exit_code == 0, out.output
    assert "(extrapolated by size)" in out.output and "note: sampled: 3 of 7 files parsed" in out.output
    data = json.loads(CliRunner().invoke(main, ["ingest", str(corpus_dir()), "--atlas", str(tmp_path / "a"),
                                                "--dry-run", "--json"], env={"OHARA_ESTIMATE_FULL_MB": "0.01",
                                                                            "OHARA_NER": "rules"}).output)
    assert data["sample_note"].startswith("sampled: ") and {f["method"] for f in data["files"]} == {
        "sampled", "extrapolated"}
    assert not (tmp_path / "a").exists()  # a dry run leaves no atlas behind
