"""Issue 28.7: a merge then its undo gives back the atlas exactly, every table, row for row.

`ohara entities merge alice --into bitcoin` then `ohara entities undo` lost the
SYNONYM_OF edges of `alice`: the merge removed the entity (nobody mentions it any
more) and with it every atlas-level edge touching it, and the undo restored the
entity but not its edges. Here seeded random pairs of the samples atlas (same
type, different types, entities with SYNONYM_OF, SIMILAR_TO, RELATED_TO and
co-occurrence rows) are merged and undone, and a dump of every table is compared.
"""
from __future__ import annotations

import json
import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from ohara_lab import Atlas
from ohara_lab.entities import curation
from ohara_lab.records import Edge

from tests.support import OFFLINE

# What an undo may change: the log records the step (and marks it undone), the
# counters in meta move so analytics know they are stale, sqlite_sequence counts log ids.
HISTORY_TABLES = {"entity_merges", "sqlite_sequence"}
VERSION_KEYS = {"graph_version", "write_version", "entity_version"}


def dump(db: Path) -> dict[str, list[tuple]]:
    """Every row of every table of the atlas (FTS shadow tables included), sorted; history left out."""
    conn = sqlite3.connect(db)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
        out: dict[str, list[tuple]] = {}
        for t in tables:
            if t in HISTORY_TABLES:
                continue
            info = conn.execute(f'PRAGMA table_info("{t}")').fetchall()
            # Surrogate integer keys are not data: rows re-derived by a step (MENTIONS) get new ones.
            cols = [c[1] for c in info if not (c[5] and c[2].upper() == "INTEGER")] or ["*"]
            rows = conn.execute(f'SELECT {", ".join(cols)} FROM "{t}"').fetchall()
            if t == "meta":
                rows = [r for r in rows if r[0] not in VERSION_KEYS]
            out[t] = sorted(rows, key=repr)
        return out
    finally:
        conn.close()


def entity_order(db: Path) -> list[str]:
    """Entities in insertion order: ingest sends a new spelling to the oldest entity with its norm_key."""
    conn = sqlite3.connect(db)
    try:
        return [r[0] for r in conn.execute("SELECT slug FROM entities ORDER BY rowid")]
    finally:
        conn.close()


def diff(before: dict, after: dict) -> dict[str, tuple[list, list]]:
    out = {}
    for t in sorted(set(before) | set(after)):
        b, a = set(before.get(t, [])), set(after.get(t, []))
        if a != b:
            out[t] = (sorted(b - a, key=repr)[:3], sorted(a - b, key=repr)[:3])
    return out


@pytest.fixture
def linked_atlas(samples_atlas_dir, tmp_path) -> Path:
    """The samples atlas with entity-level SYNONYM_OF and SIMILAR_TO edges (an embedder would write the first)."""
    dst = tmp_path / "atlas"
    shutil.copytree(samples_atlas_dir, dst)
    rng = random.Random(2807)
    with Atlas.open(dst, **OFFLINE) as atlas:
        slugs = sorted(e.slug for e in atlas.store.get_entities())
        pairs = {tuple(rng.sample(slugs, 2)) for _ in range(60)}
        syn = [Edge("entities/" + a, "entities/" + b, "SYNONYM_OF", {"weight": round(rng.uniform(0.8, 1), 4)})
               for a, b in sorted(pairs)]
        assert atlas.store.replace_edges("SYNONYM_OF", syn) == len(syn)
        sim = [Edge("entities/" + a, "entities/" + b, "SIMILAR_TO", {"weight": 0.5})
               for a, b in sorted(pairs)[:15]]
        assert atlas.store.add_edges(sim) == len(sim)
    return dst


def pairs_to_try(atlas: Atlas, rng: random.Random, n: int) -> list[tuple[str, str, str]]:
    """(kind, source, target): same type, different types, sources with SYNONYM_OF, SIMILAR_TO, RELATED_TO."""
    ents = atlas.store.get_entities()
    by_type: dict[str, list[str]] = {}
    for e in ents:
        by_type.setdefault(e.type, []).append(e.slug)
    kinds = {e.slug: e.type for e in ents}
    edges = atlas.store.edges(relations=["SYNONYM_OF", "SIMILAR_TO", "RELATED_TO"])
    ends: dict[str, list[str]] = {}
    for e in edges:
        if e.from_id.startswith("entities/"):
            ends.setdefault(e.relation, []).append(e.from_id.partition("/")[2])
            ends.setdefault(e.relation, []).append(e.to_id.partition("/")[2])
    out = []
    slugs = sorted(kinds)
    for i in range(n):
        kind = ["same type", "different types", "SYNONYM_OF", "SIMILAR_TO", "RELATED_TO"][i % 5]
        if kind == "same type":
            group = rng.choice([g for g in by_type.values() if len(g) >= 2])
            src, dst = rng.sample(sorted(group), 2)
        elif kind == "different types":
            src = rng.choice(slugs)
            dst = rng.choice([s for s in slugs if kinds[s] != kinds[src]])
        else:
            src = rng.choice(sorted(set(ends[kind])))
            dst = rng.choice([s for s in slugs if s != src])
        out.append((kind, src, dst))
    return out


def test_merge_then_undo_restores_every_table(linked_atlas):
    db = linked_atlas / "atlas.db"
    rng = random.Random(28)
    with Atlas.open(linked_atlas, **OFFLINE) as atlas:
        tried = pairs_to_try(atlas, rng, 40)
    before, order = dump(db), entity_order(db)
    assert before["cooccur"] and any("SYNONYM_OF" in r for r in before["edges"])
    for kind, src, dst in tried:
        with Atlas.open(linked_atlas, **OFFLINE) as atlas:
            curation.merge(atlas.store, [src], dst)
            curation.undo(atlas.store)
        after = dump(db)
        assert after == before, (kind, src, dst, diff(before, after))
        assert entity_order(db) == order, (kind, src, dst)


def test_the_synonym_edges_of_a_merged_entity_come_back(linked_atlas):
    """The audit's case, by name: the SYNONYM_OF edges leaving the merged entity."""
    with Atlas.open(linked_atlas, **OFFLINE) as atlas:
        syn = atlas.store.edges(relations=["SYNONYM_OF"])
        src = sorted({e.from_id for e in syn})[0].partition("/")[2]
        target = next(e.slug for e in atlas.store.get_entities() if e.slug != src)
        mine = sorted((e.from_id, e.to_id, json.dumps(e.attrs)) for e in syn if src in (e.from_id[9:], e.to_id[9:]))
        curation.merge(atlas.store, [src], target)
        curation.undo(atlas.store)
        back = atlas.store.edges(relations=["SYNONYM_OF"])
        assert sorted((e.from_id, e.to_id, json.dumps(e.attrs)) for e in back
                      if src in (e.from_id[9:], e.to_id[9:])) == mine
        assert len(back) == len(syn)
