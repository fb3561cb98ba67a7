"""Issue 2 end to end through the real `ohara` command: bad input, idempotency,
crashes mid-ingest and concurrent writers. Every failure leaves the atlas as it was."""
from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from ohara_lab import Atlas
from ohara_lab.samples import corpus_dir

from tests.support import OFFLINE, table_dump

ENV = {**os.environ, **{f"OHARA_{k.upper()}": str(v) for k, v in OFFLINE.items()}}


def ohara(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ohara_lab.cli", *args], capture_output=True, text=True,
                          env=env or ENV, timeout=600)


def stats(atlas: Path) -> dict:
    proc = ohara("stats", "--atlas", str(atlas), "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    out.pop("ner_cache", None)  # the NER cache's hit counters: how the atlas was built, not what it holds
    return out


def edge_set(atlas: Path) -> set:
    with Atlas.open(atlas, **OFFLINE) as a:
        return {(e.from_id, e.to_id, e.relation, json.dumps(e.attrs, sort_keys=True)) for e in a.store.edges()}


# --------------------------------------------------------------------------- bad input


def _truncated_pdf(path: Path) -> None:
    from reportlab.pdfgen import canvas
    full = path.with_suffix(".full.pdf")
    c = canvas.Canvas(str(full))
    for i in range(3):
        c.drawString(72, 720, f"Page {i} of a real PDF about consensus and mining.")
        c.showPage()
    c.save()
    data = full.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    full.unlink()


def _empty_epub(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", "application/epub+zip")
        z.writestr("META-INF/container.xml",
                   '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
                   '<rootfiles><rootfile full-path="content.opf" media-type="application/oebps-package+xml"/></rootfiles>'
                   '</container>')
        z.writestr("content.opf",
                   '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">'
                   '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">x</dc:identifier>'
                   '<dc:title>Empty</dc:title><dc:language>en</dc:language></metadata><manifest/><spine/></package>')


BAD_INPUTS = {
    "empty.md": lambda p: p.write_bytes(b""),
    "random.pdf": lambda p: p.write_bytes(os.urandom(4096)),
    "truncated.pdf": _truncated_pdf,
    "notazip.docx": lambda p: p.write_bytes(b"this is plain text, not a zip archive"),
    "nocontent.epub": _empty_epub,
    "slides.pptx": lambda p: p.write_bytes(b"PK\x03\x04whatever"),
    "latin1.md": lambda p: p.write_bytes("caf\xe9 na\xefve r\xe9sum\xe9\n".encode("latin-1")),
    "binary.md": lambda p: p.write_bytes(b"# title\n\x00\x01\x02\x03binary"),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS) + ["missing.md", "emptydir"])
def test_bad_input_fails_with_one_line_and_changes_nothing(name, fresh_copy, tmp_path):
    target = tmp_path / "inputs" / name
    target.parent.mkdir()
    if name == "emptydir":
        target.mkdir()
        (target / "notes.xyz").write_text("unsupported")
    elif name in BAD_INPUTS:
        BAD_INPUTS[name](target)
    before, edges_before = stats(fresh_copy), edge_set(fresh_copy)
    proc = ohara("ingest", str(target), "--atlas", str(fresh_copy))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    failed = [line for line in proc.stderr.splitlines() if line.startswith("failed")]
    assert len(failed) == 1 and name in failed[0] and ":" in failed[0].split(name, 1)[1], proc.stderr
    assert "Traceback" not in proc.stderr
    assert stats(fresh_copy) == before and edge_set(fresh_copy) == edges_before


def test_one_bad_file_does_not_stop_the_others(tmp_path):
    src = tmp_path / "mixed"
    src.mkdir()
    shutil.copy(corpus_dir() / "LGPL-3.txt", src)
    (src / "broken.pdf").write_bytes(b"%PDF-1.4 nothing else")
    proc = ohara("ingest", str(src), "--atlas", str(tmp_path / "a"))
    assert proc.returncode == 1
    assert "ingested" in proc.stdout and "broken.pdf" in proc.stderr
    assert stats(tmp_path / "a")["documents"] == 1


def test_usage_errors_exit_2(tmp_path):
    assert ohara("ingest").returncode == 2
    assert ohara("query", "x", "--weight", "bm25", "--atlas", str(tmp_path)).returncode == 2


# --------------------------------------------------------------------------- idempotency


def test_reingest_changes_no_count_and_force_replaces_exactly(fresh_copy, samples_atlas_dir):
    reference, ref_edges = stats(samples_atlas_dir), edge_set(samples_atlas_dir)
    again = ohara("ingest", str(corpus_dir()), "--atlas", str(fresh_copy), "--json")
    assert again.returncode == 0
    assert {o["status"] for o in json.loads(again.stdout)["outcomes"]} == {"skipped"}
    assert stats(fresh_copy) == reference
    forced = ohara("ingest", str(corpus_dir()), "--atlas", str(fresh_copy), "--force", "--json")
    assert forced.returncode == 0
    assert {o["status"] for o in json.loads(forced.stdout)["outcomes"]} == {"replaced"}
    assert stats(fresh_copy) == reference
    assert edge_set(fresh_copy) == ref_edges
    assert ohara("check", "--atlas", str(fresh_copy)).returncode == 0


def test_changed_file_replaces_its_previous_version(tmp_path):
    doc = tmp_path / "note.md"
    doc.write_text("# Note\n\nThe first version of this note talks about the Free Software Foundation.\n")
    atlas = tmp_path / "a"
    assert ohara("ingest", str(doc), "--atlas", str(atlas)).returncode == 0
    doc.write_text("# Note\n\nThe second version of this note talks about the Apache Software Foundation instead.\n")
    proc = ohara("ingest", str(doc), "--atlas", str(atlas))
    assert proc.returncode == 0 and proc.stdout.startswith("replaced")
    with Atlas.open(atlas, **OFFLINE) as a:
        [d] = a.documents()
        texts = [p["content"] for p in a.store.document_nodes(d.id)["paragraphs"]]
    assert any("second version" in t for t in texts) and not any("first version" in t for t in texts)


def test_stats_json_contract(samples_atlas_dir):
    s = stats(samples_atlas_dir)
    assert {"documents", "sections", "paragraphs", "tables", "entities", "edges", "partial_documents",
            "needs_review"} <= set(s)
    assert s["documents"] == 7 and s["paragraphs"] > 300 and s["entities"] > 50
    assert {"HAS_CHILD", "BELONGS_TO", "MENTIONS", "RELATED_TO", "SIMILAR_TO", "NEXT_SIBLING"} <= set(s["edges"])


def test_check_reports_problems_with_exit_1(fresh_copy):
    assert ohara("check", "--atlas", str(fresh_copy)).returncode == 0
    with Atlas.open(fresh_copy, **OFFLINE) as a:
        a.store.conn.execute("DELETE FROM fts WHERE rowid IN (SELECT rowid FROM fts LIMIT 3)")
    proc = ohara("check", "--atlas", str(fresh_copy))
    assert proc.returncode == 1 and "FTS_MISSING" in proc.stdout


# --------------------------------------------------------------------------- crashes and concurrency


def _many_files(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    shutil.copytree(corpus_dir(), src)
    return src


@pytest.mark.slow
def test_kill_at_any_moment_leaves_a_sound_atlas_and_rerun_completes(tmp_path, samples_atlas_dir):
    src = _many_files(tmp_path)
    reference = stats(samples_atlas_dir)
    atlas = tmp_path / "killed"
    found_atlas = 0  # kills after the atlas existed: the checks below ran on a killed atlas
    for delay in (0.8, 2.0, 3.2, 4.5, 6.0):
        proc = subprocess.Popen([sys.executable, "-m", "ohara_lab.cli", "ingest", str(src), "--atlas", str(atlas)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        checked = ohara("check", "--atlas", str(atlas))
        if not (atlas / "atlas.db").exists():  # killed before it made the atlas; read commands never make one
            assert checked.returncode == 1 and f"no atlas at {atlas}" in checked.stderr
            continue
        assert checked.returncode == 0
        found_atlas += 1
        with Atlas.open(atlas, **OFFLINE) as a, Atlas.open(samples_atlas_dir, **OFFLINE) as ref:
            ref_counts = {d.file_hash: len(ref.store.document_nodes(d.id)["paragraphs"]) for d in ref.documents()}
            for d in a.documents():  # no half document: every present document is whole
                assert len(a.store.document_nodes(d.id)["paragraphs"]) == ref_counts[d.file_hash]
    assert found_atlas, "every kill came before the atlas existed: nothing above checked a killed atlas"
    assert ohara("ingest", str(src), "--atlas", str(atlas)).returncode == 0
    assert stats(atlas) == reference
    assert edge_set(atlas) == edge_set(samples_atlas_dir)


GROUP = 16  # documents per write group in the test below


def _small_files(tmp_path: Path, n: int = 160) -> Path:
    """`n` one-paragraph Markdown files: an ingest of them commits several whole documents per group."""
    src = tmp_path / "small"
    src.mkdir()
    cities = ["London", "Paris", "Berlin", "Madrid", "Rome", "Vienna", "Prague", "Lisbon"]
    for i in range(n):
        (src / f"note-{i:03d}.md").write_text(
            f"# Note {i}\n\nAda Lovelace met Charles Babbage in {cities[i % 8]} in {1830 + i % 20} to discuss "
            f"the Analytical Engine and the Royal Society's note number {i}.\n")
    return src


def _committed(atlas: Path) -> int:
    """Documents another reader sees in the atlas: what is committed."""
    if not (atlas / "atlas.db").exists():
        return 0
    con = sqlite3.connect(f"file:{atlas / 'atlas.db'}?mode=ro", uri=True, timeout=30)
    try:
        return con.execute("SELECT count(*) FROM documents").fetchone()[0]
    except sqlite3.OperationalError:  # the schema is not made yet
        return 0
    finally:
        con.close()


def _rows(atlas: Path) -> dict[str, list[tuple]]:
    """Every row of the atlas (`table_dump`), the wall-clock times of when it was written left out."""
    return table_dump(atlas / "atlas.db", skip_meta=frozenset({"graph_version", "created_at"}), wall_clock=False)


@pytest.mark.slow
def test_kill_in_a_write_group_loses_only_the_open_group_and_resume_equals_a_clean_run(tmp_path: Path) -> None:
    """Issue 30.2: kill -9 while an ingest writes groups of GROUP documents, just after a group committed
    (so the next group's transaction is open). `check` finds the atlas sound, only whole groups of whole
    documents are in it, and running the ingest again gives exactly the clean run's atlas."""
    src, n = _small_files(tmp_path), 160
    env = {**ENV, "OHARA_WRITE_GROUP_DOCS": str(GROUP), "OHARA_WRITE_GROUP_S": "3600"}
    clean, atlas = tmp_path / "clean", tmp_path / "killed"
    assert ohara("ingest", str(src), "--atlas", str(clean), env=env).returncode == 0
    reference = _rows(clean)
    assert _committed(clean) == n
    partial_groups = []
    for threshold in (GROUP, 3 * GROUP, 6 * GROUP):
        proc = subprocess.Popen([sys.executable, "-m", "ohara_lab.cli", "ingest", str(src), "--atlas", str(atlas)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        deadline = time.monotonic() + 300
        while _committed(atlas) < threshold and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        checked = ohara("check", "--atlas", str(atlas), env=env)
        assert checked.returncode == 0, checked.stdout
        done = _committed(atlas)
        assert done % GROUP == 0, f"{done} documents: a group was committed in part"
        if threshold <= done < n:
            partial_groups.append(done)
        with Atlas.open(atlas, **OFFLINE) as a, Atlas.open(clean, **OFFLINE) as ref:
            whole = {d.file_hash: len(ref.store.document_nodes(d.id)["paragraphs"]) for d in ref.documents()}
            for d in a.documents():  # no half document
                assert len(a.store.document_nodes(d.id)["paragraphs"]) == whole[d.file_hash]
    assert partial_groups, "no kill fell mid-ingest after a committed group: nothing above tested a group"
    assert ohara("ingest", str(src), "--atlas", str(atlas), env=env).returncode == 0
    assert _rows(atlas) == reference


_TEXTS_SCRIPT = """
import sys
from ohara_lab import Atlas
cities = ["London", "Paris", "Berlin", "Madrid", "Rome", "Vienna", "Prague", "Lisbon"]
items = [dict(text=f"Note {i}: Ada Lovelace met Charles Babbage in {cities[i % 8]} in {1830 + i % 20} about the"
              f" Analytical Engine, page {i}.", title=f"Note {i}", source_id=f"note:{i}") for i in range(160)]
with Atlas.open(sys.argv[1], embedder="none", embed_paragraphs=False, llm="offline", reference_date="2026-11-29",
                write_group_docs=16, write_group_s=3600, ner_ahead=True) as atlas:
    atlas.ingest_texts(items, batch_size=16, progress=False)
"""


@pytest.mark.slow
def test_kill_during_ingest_texts_with_ner_ahead_loses_only_the_open_group_and_resume_equals_a_clean_run(
        tmp_path: Path) -> None:
    """Issue 30: the same guarantee with `ingest_texts` and the next batch's NER on the worker process
    (killed with its parent: it reads end of input and exits)."""
    def run(atlas: Path) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-c", _TEXTS_SCRIPT, str(atlas)], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=ENV)

    clean, atlas = tmp_path / "clean", tmp_path / "killed"
    assert run(clean).wait(timeout=600) == 0
    reference = _rows(clean)
    assert _committed(clean) == 160
    partial_groups = []
    for threshold in (16, 48, 96):
        proc = run(atlas)
        deadline = time.monotonic() + 300
        while _committed(atlas) < threshold and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert ohara("check", "--atlas", str(atlas)).returncode == 0
        done = _committed(atlas)
        assert done % 16 == 0, f"{done} documents: a group was committed in part"
        if threshold <= done < 160:
            partial_groups.append(done)
    assert partial_groups, "no kill fell mid-ingest after a committed group: nothing above tested a group"
    assert run(atlas).wait(timeout=600) == 0
    assert _rows(atlas) == reference


@pytest.mark.slow
def test_two_processes_ingesting_at_once_both_finish(tmp_path, samples_atlas_dir):
    src = _many_files(tmp_path)
    atlas = tmp_path / "shared-atlas"
    procs = [subprocess.Popen([sys.executable, "-m", "ohara_lab.cli", "ingest", str(src), "--atlas", str(atlas)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV) for _ in range(2)]
    outs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], "\n---\n".join(err[-2000:] for _, err in outs)
    assert stats(atlas) == stats(samples_atlas_dir)
    assert edge_set(atlas) == edge_set(samples_atlas_dir)
    assert ohara("check", "--atlas", str(atlas)).returncode == 0


def test_the_atlas_records_what_built_it(samples_atlas_dir):
    built = stats(samples_atlas_dir)["built_with"]
    assert built["structurer"] == ["offline"] and built["extractor"] and built["ontology_version"]
