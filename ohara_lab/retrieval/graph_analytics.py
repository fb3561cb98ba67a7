"""What the stored graph analytics (`ohara analyze`) add to a query (spec §3.6, §3.10).

Nothing here computes a graph algorithm: `ohara_lab.analytics.lookup.Analytics` reads
the stored communities and Adamic–Adar links back, and an atlas never analysed gets
nothing from this module (every function returns empty).

* community context (§3.6): up to 3 communities of the query's entities (hint slugs,
  then the entities of the top BM25 nodes, in that order), with each community's label,
  size and ≤ 30 members — what the entity pivot would pivot on, seen as topics;
* Adamic–Adar boost of an entity-pivot hit h (§3.6, the original's boost that never applied):

      raw(h) += 0.2 · max { AA(s, q) : s ∈ entities(h) \\ Q, q ∈ Q }      Q = the pivot's slugs

  with AA(a, b) = Σ_{w ∈ N(a) ∩ N(b)} 1 / ln(max(deg w, 2)) over RELATED_TO (Adamic & Adar,
  Social Networks 2003), stored for pairs not already linked;
* Explorer candidates (§3.10): (iii) paragraphs mentioning an entity with AA ≥ 0.5 to a
  Principal entity, scent 0.4 · AA, "co-cited with", 2 hops; (iv) paragraphs mentioning
  another member of a Principal entity's community, scent 0.35, "in same topic community
  as", 2 hops; and `unexpected_connections`: the cross-community RELATED_TO edges of the
  Principal entities (≤ 15).
"""
from __future__ import annotations

from typing import Any

from ..analytics.lookup import AA_BOOST
from ..store.protocol import GraphStore
from .hits import Fused, Hit
from .state import QueryState
from .tiers import FrontierItem

PRINCIPAL_SLUGS = 20  # Principal entities the Explorer reads (spec: ≤ 20)
AA_SCENT = 0.4
COMMUNITY_SCENT = 0.35
PARAGRAPHS_PER_SOURCE = 20  # paragraphs looked up per Explorer source before the band and the seen filter
UNEXPECTED = 15


def community_context(state: QueryState) -> list[dict[str, Any]]:
    """The communities of the query's entities (≤ 3), as the spec attaches them to the entity pivot."""
    analytics = state.analytics
    if analytics is None:
        return []
    context: list[dict[str, Any]] = analytics.community_context(state.seed_slugs())
    return context


def boost_pivot_hits(hits: list[Hit], slugs: list[str], store: GraphStore, analytics: Any) -> None:
    """Add each hit's Adamic–Adar boost to its raw score, and name the link in its provenance."""
    if not hits:
        return
    query = set(slugs)
    nodes = store.get_nodes([h.id for h in hits])
    for h in hits:
        own = [s for s in (nodes.get(h.id) or {}).get("entity_slugs") or [] if s not in query]
        best = max(((score, s, q) for s in own for q, score, _ in analytics.adamic_adar(s) if q in query),
                   default=None)
        if best is None:
            continue
        score, s, q = best
        boost = AA_BOOST * score
        h.score += boost
        h.via["adamic_adar"] = {"boost": round(boost, 6), "entity": s, "query_entity": q, "score": round(score, 4)}


def pivot_communities(hits: list[Hit], analytics: Any) -> None:
    """Name, on each entity-pivot hit, the communities of the entities it shares with the query."""
    for h in hits:
        ids = [c for c in dict.fromkeys(analytics.community_of(s) for s in h.via.get("shared_entities", []))
               if c is not None]
        if ids:
            h.via["communities"] = ids


def principal_slugs(chosen: list[Fused], store: GraphStore) -> list[str]:
    nodes = store.get_nodes([f.id for f in chosen])
    slugs = [s for f in chosen for s in (nodes.get(f.id) or {}).get("entity_slugs") or []]
    return list(dict.fromkeys(slugs))[:PRINCIPAL_SLUGS]


def explorer_candidates(slugs: list[str], store: GraphStore, analytics: Any, *, adamic_adar: bool,
                        community: bool) -> list[FrontierItem]:
    """Explorer (iii) and (iv): one candidate per paragraph, co-cited first; the tiers filter band and seen."""
    out: list[FrontierItem] = []
    if adamic_adar:
        links: dict[str, tuple[float, str]] = {}
        for src, other, score in analytics.aa_neighbours(slugs):
            if other not in links:  # strongest first
                links[other] = (score, src)
        for row in store.entity_pivot(sorted(links), PARAGRAPHS_PER_SOURCE) if links else []:
            score, other = max((links[s][0], s) for s in row.shared)
            out.append(FrontierItem(row.document_id, row.id, "co-cited with",
                                    f"{other} is co-cited with {links[other][1]} (Adamic–Adar {score:.2f})",
                                    round(AA_SCENT * score, 6), 2, source="adamic_adar"))
    if community:
        members = analytics.same_community(slugs)
        for row in store.entity_pivot(members, PARAGRAPHS_PER_SOURCE) if members else []:
            member = min(row.shared)
            cid = analytics.community_of(member)
            label = (analytics.community(cid) or {}).get("label", "") if cid is not None else ""
            out.append(FrontierItem(row.document_id, row.id, "in same topic community as",
                                    f"{member} (community {label})", COMMUNITY_SCENT, 2, source="community"))
    return out


def unexpected_connections(slugs: list[str], store: GraphStore, analytics: Any) -> list[dict[str, Any]]:
    """Cross-community RELATED_TO edges of the Principal entities (spec `unexpected_connections`)."""
    rows = analytics.surprising(slugs, UNEXPECTED)
    if not rows:
        return []
    names = {e.slug: e.name for e in store.get_entities(sorted({r[k] for r in rows for k in ("from", "to")}))}
    return [{"type": "unexpected_connection", "from_entity": names.get(r["from"], r["from"]), "from_slug": r["from"],
             "to_entity": names.get(r["to"], r["to"]), "to_slug": r["to"], "count": r["count"],
             "hint": f"{names.get(r['from'], r['from'])} and {names.get(r['to'], r['to'])} co-occur across topic "
                     f"communities ({r['count']}x)"} for r in rows]
