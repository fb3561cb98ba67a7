"""`ingest_texts` (batched NER, tagging, vectors) builds the same graph as one document at a time."""
from __future__ import annotations

import json

import pytest

from ohara_lab import Atlas
from ohara_lab.ingest.pipeline import TextItem

from tests.support import OFFLINE

DOCS = [
    ("Alpha Bank", "Alpha Bank was founded in Athens by Ioannis Stefanou in 1879. It financed the railway to Piraeus."),
    ("Piraeus Railway", "The railway from Athens to Piraeus opened in 1869. Alpha Bank later financed its extension."),
    ("Ioannis Stefanou", "Ioannis Stefanou was a Greek banker who founded Alpha Bank in Athens."),
    ("Unrelated", "Tulips bloom in the Keukenhof gardens near Lisse every spring."),
]


def _snapshot(atlas: Atlas) -> tuple:
    edges = sorted((e.from_id, e.to_id, e.relation, json.dumps(e.attrs, sort_keys=True)) for e in atlas.store.edges())
    stats = {k: v for k, v in atlas.stats().items()}
    return stats, edges


@pytest.mark.parametrize("embedder", ["none", "wordllama"])
def test_batched_ingest_equals_one_by_one(tmp_path, embedder):
    if embedder != "none":
        pytest.importorskip("wordllama")
    settings = {**OFFLINE, "embedder": embedder, "embed_paragraphs": embedder != "none"}
    with Atlas.open(tmp_path / "one", **settings) as a:
        for title, text in DOCS:
            assert a.ingest_text(text, title=title, source_id=f"t:{title}").status == "ingested"
        one = _snapshot(a)
        vec_one = a.store.vector_matrix(a.store.vector_models() and next(iter(a.store.vector_models())) or "x")
    with Atlas.open(tmp_path / "batch", **settings) as a:
        report = a.ingest_texts([TextItem(text, title, f"t:{title}") for title, text in DOCS], batch_size=3,
                                progress=False)
        assert [o.status for o in report.outcomes] == ["ingested"] * len(DOCS)
        assert _snapshot(a) == one
        if embedder != "none":
            ids, matrix = a.store.vector_matrix(next(iter(a.store.vector_models())))
            assert ids == vec_one[0] and matrix == pytest.approx(vec_one[1], abs=1e-5)
        again = a.ingest_texts([{"text": t, "title": ti, "source_id": f"t:{ti}"} for ti, t in DOCS], progress=False)
        assert {o.status for o in again.outcomes} == {"skipped"}


def test_ner_one_batch_ahead_builds_the_same_atlas(tmp_path):
    # Batches of two, so NER of every batch but the first is started while the one before is written;
    # the last item repeats the first (same source and text): planned "ingest" before the first batch
    # is written, it must still be skipped as it is without NER ahead.
    from tests.support import table_dump

    items = [TextItem(text, title, f"t:{title}") for title, text in DOCS] + [TextItem(DOCS[0][1], DOCS[0][0],
                                                                                     f"t:{DOCS[0][0]}")]
    dumps, statuses = [], []
    for ahead in (False, True):
        with Atlas.open(tmp_path / f"ahead-{ahead}", **OFFLINE, ner_ahead=ahead) as a:
            statuses.append([o.status for o in a.ingest_texts(items, batch_size=2, progress=False).outcomes])
        dumps.append(table_dump(tmp_path / f"ahead-{ahead}" / "atlas.db", skip_meta=frozenset({"created_at"}),
                                wall_clock=False))
    assert statuses[0] == statuses[1] == ["ingested"] * len(DOCS) + ["skipped"]
    assert dumps[0] == dumps[1]


def test_the_ner_worker_runs_no_script_or_package_of_the_callers_again(tmp_path):
    # A multiprocessing child re-imports the parent's main script; the NER worker is a module entry point,
    # so this script (which would remove its atlas and ingest again if re-run) runs exactly once.
    import subprocess
    import sys

    script = tmp_path / "unguarded.py"
    runs = tmp_path / "runs.txt"
    script.write_text(
        "import shutil\n"
        "from ohara_lab import Atlas\n"
        "from ohara_lab.entities import ner_worker\n"
        f"open({str(runs)!r}, 'a').write('run\\n')\n"
        f"shutil.rmtree({str(tmp_path / 'atlas')!r}, ignore_errors=True)\n"
        f"with Atlas.open({str(tmp_path / 'atlas')!r}, embedder='none', embed_paragraphs=False, llm='offline',"
        " reference_date='2026-11-29', ner_ahead=True) as a:\n"
        f"    items = [dict(text=t, title=ti, source_id='t:' + ti) for ti, t in {DOCS!r}]\n"
        "    report = a.ingest_texts(items, batch_size=2, progress=False)\n"
        "print([o.status for o in report.outcomes], ner_worker._BROKEN)\n")
    # Run from a folder holding another `ohara_lab`: `python -m` would import it first from the working
    # directory, so the worker must start elsewhere (the marker shows whether the impostor ran).
    shadow, marker = tmp_path / "cwd", tmp_path / "impostor-ran"
    (shadow / "ohara_lab").mkdir(parents=True)
    (shadow / "ohara_lab" / "__init__.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600, check=True,
                         cwd=shadow)
    assert runs.read_text() == "run\n"
    assert out.stdout.split("\n")[0] == f"{['ingested'] * len(DOCS)} False"
    assert not marker.exists()


def test_an_extractor_without_submit_still_works_ahead(tmp_path):
    # `submit` is optional: an extractor with `extract` only (a plug-in, a test double) is asked when the
    # batch is primed, as before.
    from ohara_lab.entities.ner_cache import CachedExtractor

    with Atlas.open(tmp_path / "a", **OFFLINE, ner="rules", ner_ahead=True) as a:
        cached = a.ingestor.extractor
        assert isinstance(cached, CachedExtractor)
        rules, asked = cached.inner, []

        class ExtractOnly:
            name = rules.name

            def extract(self, texts):  # type: ignore[no-untyped-def]
                asked.append(len(texts))
                return rules.extract(texts)

        cached.inner = ExtractOnly()
        report = a.ingest_texts([TextItem(text, title, f"t:{title}") for title, text in DOCS], batch_size=2,
                                progress=False)
    assert [o.status for o in report.outcomes] == ["ingested"] * len(DOCS)
    assert sum(asked) == len(DOCS)  # every text once
