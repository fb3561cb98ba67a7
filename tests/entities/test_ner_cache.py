"""The persistent NER cache (`<atlas>/ner_cache.db`): same atlas with and without it, hits on re-ingest
after a settings change that does not touch NER, invalidated by a model change, bounded."""
from __future__ import annotations

import json
import sqlite3

from ohara_lab import Atlas
from ohara_lab.entities.extract import RuleExtractor
from ohara_lab.entities.ner_cache import CACHE_FILE, CachedExtractor, NerCache, cache_stats
from ohara_lab.ingest.pipeline import TextItem

from tests.support import OFFLINE

DOCS = [
    ("Alpha Bank", "Alpha Bank was founded in Athens by Ioannis Stefanou in 1879. It financed the railway to Piraeus."),
    ("Piraeus Railway", "The railway from Athens to Piraeus opened in 1869. Alpha Bank later financed its extension."),
    ("Ioannis Stefanou", "Ioannis Stefanou was a Greek banker who founded Alpha Bank in Athens.\n\n"
                         "He studied in Paris with Georgios Averoff before 1860."),
    ("Unrelated", "Tulips bloom in the Keukenhof gardens near Lisse every spring, as the Dutch tourist board says."),
]
ITEMS = [TextItem(text, title, f"t:{title}") for title, text in DOCS]


def _entities_and_edges(atlas: Atlas) -> tuple[list, list]:
    con = sqlite3.connect(atlas.store.path)
    cur = con.execute("SELECT * FROM entities")
    cols = [c[0] for c in cur.description]
    entities = sorted(json.dumps(_timeless(dict(zip(cols, r))), sort_keys=True, default=str) for r in cur)
    con.close()
    edges = sorted((e.from_id, e.to_id, e.relation, json.dumps(e.attrs, sort_keys=True)) for e in atlas.store.edges())
    return entities, edges


def _timeless(row: dict) -> dict:
    """An entity row without `first_seen`, the wall-clock time it was first written (JSON columns decoded)."""
    out = {}
    for key, value in row.items():
        if isinstance(value, str) and value.startswith("{"):
            value = json.loads(value)
            value.pop("first_seen", None)
        if key != "first_seen":
            out[key] = value
    return out


def _count_extract_calls(atlas: Atlas) -> list[int]:
    """Texts the model behind the cache was asked to extract (the cache itself is the real one)."""
    calls: list[int] = []
    cached = atlas.ingestor.extractor
    assert isinstance(cached, CachedExtractor)
    inner = cached.inner

    class Counting:
        name = inner.name

        def extract(self, texts):  # type: ignore[no-untyped-def]
            calls.append(len(texts))
            return inner.extract(texts)

    cached.inner = Counting()
    return calls


def test_atlas_is_the_same_with_and_without_the_cache(tmp_path):
    with Atlas.open(tmp_path / "plain", **OFFLINE, ner_cache_entries=0) as a:
        a.ingest_texts(ITEMS, progress=False)
        plain = _entities_and_edges(a)
    assert not (tmp_path / "plain" / CACHE_FILE).exists()
    # A first build fills the cache; a second atlas built with another non-NER setting reads it.
    with Atlas.open(tmp_path / "cold", **OFFLINE) as a:
        a.ingest_texts(ITEMS, progress=False)
        cold = _entities_and_edges(a)
    (tmp_path / "warm").mkdir()
    (tmp_path / "warm" / CACHE_FILE).write_bytes((tmp_path / "cold" / CACHE_FILE).read_bytes())
    with Atlas.open(tmp_path / "warm", **OFFLINE, similarity_threshold=0.2) as a:
        calls = _count_extract_calls(a)
        a.ingest_texts(ITEMS, progress=False)
        warm = _entities_and_edges(a)
        stats = a.stats()["ner_cache"]
    assert plain[0] == cold[0] == warm[0]  # entity rows
    assert plain[1] == cold[1]
    # SIMILAR_TO depends on the changed threshold; every other edge is the same
    assert [e for e in warm[1] if e[2] != "SIMILAR_TO"] == [e for e in plain[1] if e[2] != "SIMILAR_TO"]
    assert calls == []  # every paragraph came from the cache
    assert stats["last_session_misses"] == 0 and stats["last_session_hit_rate"] == 1.0


def test_reingest_with_force_skips_the_model_and_reports_hits(tmp_path):
    with Atlas.open(tmp_path / "a", **OFFLINE) as a:
        a.ingest_texts(ITEMS, progress=False)
        first = a.stats()["ner_cache"]
        assert first["hits"] == 0 and first["misses"] > 0 and first["entries"] == first["misses"]
    with Atlas.open(tmp_path / "a", **OFFLINE, sumo_tags_per_node=2) as a:
        calls = _count_extract_calls(a)
        a.ingest_texts(ITEMS, progress=False, force=True)
        again = a.stats()["ner_cache"]
    assert calls == []
    assert again["last_session_hit_rate"] == 1.0 and again["hits"] == first["misses"]


def test_a_model_change_invalidates(tmp_path):
    cache = NerCache(tmp_path / CACHE_FILE, 100)
    rules = RuleExtractor(10_000)
    old = CachedExtractor(rules, cache, "rules|v1")
    texts = [t for _, t in DOCS]
    expected = old.extract(texts)
    assert cache.misses == len(texts)

    class Other:
        name = "other-model"

        def extract(self, texts):  # type: ignore[no-untyped-def]
            return [[] for _ in texts]

    new = CachedExtractor(Other(), cache, "other|v2")
    assert new.extract(texts) == [[] for _ in texts]  # never the old model's mentions
    assert cache.misses == 2 * len(texts)
    rows = cache.con.execute("SELECT DISTINCT key FROM mentions").fetchall()
    assert rows == [("other|v2",)]  # the old model's rows are gone
    assert CachedExtractor(rules, cache, "rules|v1").extract(texts) == expected


def test_bounded_least_recently_used_dropped(tmp_path):
    cache = NerCache(tmp_path / CACHE_FILE, 3)
    ex = CachedExtractor(RuleExtractor(10_000), cache, "rules|v1")
    texts = [f"Person Number{i} met Alice Smith in Paris." for i in range(5)]
    ex.extract(texts[:3])
    ex.extract(texts[:1])  # text 0 used again: texts 1 and 2 are now the oldest
    ex.extract(texts[3:5])
    kept = cache.con.execute("SELECT COUNT(*) FROM mentions").fetchone()[0]
    assert kept == 3
    hits_before = cache.hits
    ex.extract([texts[0]])
    assert cache.hits == hits_before + 1  # the recently used one survived
    stats = cache_stats(tmp_path)
    assert stats is not None and stats["entries"] == 3


def test_cached_rows_are_the_json_of_each_mention_s_fields_in_order():
    """The rows are written without `asdict` (issue 30): the same JSON as `Mention.to_dict`, aliases included."""
    from ohara_lab.entities.ner_cache import _dump, _load
    from ohara_lab.records import Mention

    found = [Mention("Ada Lovelace", "PERSON", context="met", aliases=["Lovelace", "Ada"]), Mention("1843", "DATE")]
    raw = _dump(found)
    assert raw == json.dumps([m.to_dict() for m in found], ensure_ascii=False, separators=(",", ":"))
    assert raw.startswith('[{"name":"Ada Lovelace","type":"PERSON","canonical":"Ada Lovelace","confidence":1.0,')
    assert _load(raw) == found
