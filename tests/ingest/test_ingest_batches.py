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
