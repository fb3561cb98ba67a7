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

Further hops (`bridge_hops` > 1, issue 31.3), for a bridge that is a description ("the association
which published …") rather than a name: the query's content terms (stemmed, IDF-weighted) that
neither the first-pass passages nor the passages found so far contain are what is *left to
explain*, R. Each hop's found passages are, per queried entity, its best hit that explains any of
R; their entities (not named by the query, not queried before) are the next hop's candidates,
the strongest `bridge_entities` by  w_p · spec(e)  (w_p = the weight of the entity whose hit the
found passage p was). A candidate's hits h score

    w_e · n(BM25_e(h))     w_e = gain_e · w_p,  gain_e = max over its top hits of idf(R ∩ h) / idf(R)

and a candidate that explains nothing of R (gain 0) is dropped. The walk stops after
`bridge_hops` hops, when R is empty, or when no candidate gains.
"""
from __future__ import annotations

import math

from ...ids import DOCUMENTS, PARAGRAPHS, SECTIONS, TABLES, in_collection
from ...records import HAS_CHILD
from ...settings import Settings
from ...store.protocol import GraphStore
from ...text import stem, tokenize
from ..fusion import fuse, normalisation, phase_weights
from ..hits import Hit
from ..normalise import max_norm, minmax_norm
from ..state import QueryState

HITS_PER_ENTITY = 10
GAIN_HITS = 3  # a further hop's entity is judged by the best of its top hits
UNLINKED_TYPES = frozenset({"DATE", "AMOUNT"})


def bridge_entities(state: QueryState, store: GraphStore, settings: Settings) -> list[tuple[str, float, str]]:
    """(slug, weight, passage it came from) of the best bridge entities, strongest first."""
    return _first_hop(state, store, settings)[0]


def _first_hop(state: QueryState, store: GraphStore, settings: Settings
               ) -> tuple[list[tuple[str, float, str]], list[str]]:
    """The best bridge entities (as `bridge_entities`) and the first-pass passages they were read from."""
    first = fuse(state.hits, phase_weights(settings, state.query.mode), normalisation(settings),
                 settings.fusion, settings.rrf_k)
    top = [f for f in first if not in_collection(f.id, DOCUMENTS)][: settings.bridge_passages]
    if not top:
        return [], []
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
    return [(slug, w, src) for slug, (w, src) in ranked if w > 0], passages


def lead_passages(section_ids: list[str], store: GraphStore) -> dict[str, str]:
    """section id -> its first child paragraph or table (in reading order), for the sections that have one."""
    out: dict[str, str] = {}
    for n in store.structural_neighbours(section_ids, 1, (HAS_CHILD,), include_parents=False):
        if n.start not in out and in_collection(n.id, PARAGRAPHS, TABLES):
            out[n.start] = n.id
    return out


def bridge(state: QueryState, store: GraphStore, settings: Settings) -> list[Hit]:
    chosen, first_pass = _first_hop(state, store, settings)
    if not chosen:
        state.skipped["bridge"] = "no entity in the best passages that the query does not name"
        return []
    names = {e.slug: e.name for e in store.get_entities([s for s, _, _ in chosen])}
    best: dict[str, Hit] = {}
    per_entity: dict[str, list[tuple[str, float]]] = {}  # slug -> its hits (id, score), best first
    for slug, weight, source in chosen:
        rows = store.bm25_search(tokenize(names.get(slug, slug)) + state.query.keywords, HITS_PER_ENTITY,
                                 exclude_documents=state.excluded)
        if not rows:
            continue
        for r, n in zip(rows, minmax_norm([r.score for r in rows])):
            score = weight * n
            per_entity.setdefault(slug, []).append((r.id, score))
            if score > 0 and (r.id not in best or best[r.id].score < score):
                best[r.id] = Hit(r.id, r.document_id, "bridge", score,
                                 {"bridge_entity": names.get(slug, slug), "entity_weight": round(weight, 6),
                                  "from": source})
    if settings.bridge_hops > 1:
        further_hops(state, store, settings, first_pass, chosen, per_entity, best)
    return sorted(best.values(), key=lambda h: (-h.score, h.id))[: 2 * state.limit]


def query_terms(state: QueryState, store: GraphStore) -> dict[str, float]:
    """The query's content terms, stemmed, with their IDF in the atlas (terms it lacks dropped)."""
    words = list(dict.fromkeys(tokenize(state.query.raw)))
    df = store.term_document_counts(words)
    n = max(int(store.corpus_stats().get("fts_rows", 0)), 1)
    out: dict[str, float] = {}
    for w in words:
        d = df.get(w, 0)
        if d > 0:
            out[stem(w)] = max(out.get(stem(w), 0.0), math.log(1 + (n - d + 0.5) / (d + 0.5)))
    return out


def node_terms(ids: list[str], store: GraphStore) -> dict[str, set[str]]:
    """id -> the stemmed words of the node's text (a paragraph's content, a table's markdown, a section's title)."""
    nodes = store.get_nodes(ids)
    return {i: {stem(t) for t in tokenize(n.get("content") or n.get("markdown_representation") or n.get("title") or "")}
            for i, n in nodes.items()}


def further_hops(state: QueryState, store: GraphStore, settings: Settings, first_pass: list[str],
                 chosen: list[tuple[str, float, str]], per_entity: dict[str, list[tuple[str, float]]],
                 best: dict[str, Hit]) -> None:
    """Hops 2 .. `bridge_hops` (module docstring): adds their hits to `best`, each with its hop and the
    remaining terms it explains in `via` (`hop`, `explains`)."""
    idf = query_terms(state, store)
    terms = node_terms(first_pass, store)
    remaining = set(idf) - set().union(*terms.values()) if terms else set(idf)
    used = {slug for slug, _, _ in chosen} | set(state.query.hint_slugs)
    query_words = set(tokenize(state.query.raw))
    weights = {slug: w for slug, w, _ in chosen}
    seen = set(first_pass)
    frontier = found_passages(per_entity, weights, remaining, store, terms, seen)
    for hop in range(2, settings.bridge_hops + 1):
        for pid in frontier:
            remaining -= terms.get(pid, set())
        if not remaining or not frontier:
            return
        # candidates: the entities of the passages the last hop found (a section hit: its lead passage's)
        leads = lead_passages([p for p in frontier if in_collection(p, SECTIONS)], store)
        frontier = {leads.get(p, p): w for p, w in frontier.items()}
        terms.update(node_terms([p for p in frontier if p not in terms], store))
        nodes = store.get_nodes(list(frontier))
        slugs = sorted({s for n in nodes.values() for s in n.get("entity_slugs") or []} - used)
        entities = {e.slug: e for e in store.get_entities(slugs)}
        parent: dict[str, tuple[float, str]] = {}
        for pid, pscore in frontier.items():
            for slug in (nodes.get(pid) or {}).get("entity_slugs") or []:
                e = entities.get(slug)
                if e is None or e.type in UNLINKED_TYPES or set(tokenize(e.name)) <= query_words:
                    continue
                rank = pscore / math.log(2 + max(1, e.mention_count))
                if slug not in parent or parent[slug][0] < rank:
                    parent[slug] = (rank, pid)
        ranked = sorted(parent.items(), key=lambda kv: (-kv[1][0], kv[0]))[: settings.bridge_entities]
        total = sum(idf[t] for t in remaining)
        hop_hits: dict[str, list[tuple[str, float]]] = {}
        for slug, (_, source) in ranked:
            name = entities[slug].name
            rows = store.bm25_search(tokenize(name) + state.query.keywords, HITS_PER_ENTITY,
                                     exclude_documents=state.excluded)
            if not rows:
                continue
            top = node_terms([r.id for r in rows[:GAIN_HITS]], store)
            terms.update(top)
            gain = max((sum(idf[t] for t in remaining & top.get(r.id, set())) / total for r in rows[:GAIN_HITS]),
                       default=0.0)
            if gain <= 0:
                continue  # explains nothing that is left
            used.add(slug)
            weight = gain * frontier[source]
            weights[slug] = weight
            for r, n in zip(rows, minmax_norm([r.score for r in rows])):
                score = weight * n
                hop_hits.setdefault(slug, []).append((r.id, score))
                if score > 0 and (r.id not in best or best[r.id].score < score):
                    best[r.id] = Hit(r.id, r.document_id, "bridge", score,
                                     {"bridge_entity": name, "entity_weight": round(weight, 6), "from": source,
                                      "hop": hop, "explains": sorted(remaining & top.get(r.id, set()))})
        frontier = found_passages(hop_hits, weights, remaining, store, terms, seen)


def found_passages(per_entity: dict[str, list[tuple[str, float]]], weights: dict[str, float], remaining: set[str],
                   store: GraphStore, terms: dict[str, set[str]], seen: set[str]) -> dict[str, float]:
    """Per queried entity, of its hits not found before (`seen`, updated), the best among the top `GAIN_HITS` that explains any remaining term, else its
    top hit (a bridge passage need not explain anything itself): id -> the entity's weight (the next hop's parent weight). Adds the hits' word sets to `terms`."""
    want = [i for hits in per_entity.values() for i, _ in hits[:GAIN_HITS] if i not in terms]
    terms.update(node_terms(want, store))
    out: dict[str, float] = {}
    for slug, hits in per_entity.items():
        new = [i for i, _ in hits if i not in seen]
        if not new:
            continue
        pick = next((i for i in new[:GAIN_HITS] if remaining & terms.get(i, set())), new[0])
        out[pick] = max(out.get(pick, 0.0), weights.get(slug, 0.0))
    seen.update(out)
    return out
