"""The bridge hop: an LLM-free second retrieval step for multi-hop questions (in the spirit of
iterative retrieval, IRCoT, Trivedi et al., ACL 2023, with entities instead of generated thoughts;
LinearRAG's entity activation, arXiv 2510.10114, is the closest published form).

A multi-hop question names its first hop ("the composer of Aschenbrödel") and asks about
something the first passage only names (Johann Strauss II). After the phases before
it, the entities of the best `bridge_passages` first-pass nodes (a hit on a section's title
standing for the section's lead passage) that the query does not name become bridge entities:

    w_e = max_{p ∋ e} s_p / s_1 · spec(e)     s = the first-pass fused score (s_1 the best's),
                                               spec(e) = 1 / log(2 + |passages mentioning e|)

The top `bridge_entities` become second queries — the entity's name plus the query's
keywords, so the hop asks for *that* entity's passage about *this* question — and each
hit h of entity e scores  w_e · n(BM25_e(h)). The second queries are lexical: encoding
one more dense query per bridge entity would cost as much as the whole first pass, and
the dense signal already reaches second hops through the graph walk. A node reached
through several entities keeps its best score; its provenance names the entity and the
passage it came from.
"""
from __future__ import annotations

import math

from ...ids import DOCUMENTS, PARAGRAPHS, SECTIONS, TABLES, in_collection
from ...records import HAS_CHILD
from ...settings import Settings
from ...store.protocol import GraphStore
from ...text import tokenize
from ..fusion import fuse, normalisation, phase_weights
from ..hits import Hit
from ..normalise import max_norm, minmax_norm
from ..state import QueryState

HITS_PER_ENTITY = 10
UNLINKED_TYPES = frozenset({"DATE", "AMOUNT"})


def bridge_entities(state: QueryState, store: GraphStore, settings: Settings) -> list[tuple[str, float, str]]:
    """(slug, weight, passage it came from) of the best bridge entities, strongest first."""
    first = fuse(state.hits, phase_weights(settings, state.query.mode), normalisation(settings),
                 settings.fusion, settings.rrf_k)
    top = [f for f in first if not in_collection(f.id, DOCUMENTS)][: settings.bridge_passages]
    if not top:
        return []
    leads = lead_passages([f.id for f in top if in_collection(f.id, SECTIONS)], store)
    scores: dict[str, float] = {}
    for f, n in zip(top, max_norm([f.score for f in top])):
        pid = leads.get(f.id, f.id)  # a hit on a section's title stands for the section's lead passage
        scores[pid] = max(scores.get(pid, 0.0), n)
    norm = scores
    passages = [pid for pid in scores if not in_collection(pid, SECTIONS)]
    nodes = store.get_nodes(passages)
    named = set(state.query.hint_slugs)
    query_words = set(tokenize(state.query.raw))
    slugs = sorted({s for n in nodes.values() for s in n.get("entity_slugs") or []} - named)
    entities = {e.slug: e for e in store.get_entities(slugs)}
    best: dict[str, tuple[float, str]] = {}
    for pid in passages:
        for slug in (nodes.get(pid) or {}).get("entity_slugs") or []:
            e = entities.get(slug)
            if e is None or e.type in UNLINKED_TYPES or set(tokenize(e.name)) <= query_words:
                continue  # a date, or an entity the query already names
            w = norm[pid] / math.log(2 + max(1, e.mention_count))
            if slug not in best or best[slug][0] < w:
                best[slug] = (w, pid)
    ranked = sorted(best.items(), key=lambda kv: (-kv[1][0], kv[0]))[: settings.bridge_entities]
    return [(slug, w, src) for slug, (w, src) in ranked if w > 0]


def lead_passages(section_ids: list[str], store: GraphStore) -> dict[str, str]:
    """section id -> its first child paragraph or table (in reading order), for the sections that have one."""
    out: dict[str, str] = {}
    for n in store.structural_neighbours(section_ids, 1, (HAS_CHILD,), include_parents=False):
        if n.start not in out and in_collection(n.id, PARAGRAPHS, TABLES):
            out[n.start] = n.id
    return out


def bridge(state: QueryState, store: GraphStore, settings: Settings) -> list[Hit]:
    chosen = bridge_entities(state, store, settings)
    if not chosen:
        state.skipped["bridge"] = "no entity in the best passages that the query does not name"
        return []
    names = {e.slug: e.name for e in store.get_entities([s for s, _, _ in chosen])}
    best: dict[str, Hit] = {}
    for slug, weight, source in chosen:
        rows = store.bm25_search(tokenize(names.get(slug, slug)) + state.query.keywords, HITS_PER_ENTITY,
                                 exclude_documents=state.excluded)
        if not rows:
            continue
        for r, n in zip(rows, minmax_norm([r.score for r in rows])):
            score = weight * n
            if score > 0 and (r.id not in best or best[r.id].score < score):
                best[r.id] = Hit(r.id, r.document_id, "bridge", score,
                                 {"bridge_entity": names.get(slug, slug), "entity_weight": round(weight, 6),
                                  "from": source})
    return sorted(best.values(), key=lambda h: (-h.score, h.id))[: 2 * state.limit]

