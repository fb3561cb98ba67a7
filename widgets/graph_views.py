"""HTML views of the stored graph analytics for `AnalyticsPanel`: communities, surprising edges, clusters.

Pure functions of `atlas.analytics` (no widget state), so tests read their rows directly.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ohara_lab.render import shorten

from .html import chips, esc

if TYPE_CHECKING:
    from ohara_lab.atlas import Atlas

TOP = 10


def community_rows(analytics: Any, n: int = TOP) -> list[dict[str, Any]]:
    """The n largest communities: id, size, strongest member names."""
    found = sorted(analytics.rows("communities").values(), key=lambda c: (-c["size"], c["id"]))
    return [{"id": c["id"], "size": c["size"], "top": c.get("top", [])[:6]} for c in found[:n]]


def surprising_rows(analytics: Any, names: dict[str, str], n: int = TOP) -> list[dict[str, Any]]:
    """The n strongest RELATED_TO edges between two communities."""
    found = sorted(analytics.rows("surprising").values(), key=lambda r: (-r["count"], r["from"], r["to"]))
    return [{"from": names.get(r["from"], r["from"]), "to": names.get(r["to"], r["to"]), "count": r["count"],
             "communities": r["communities"]} for r in found[:n]]


def cluster_rows(analytics: Any, n: int = TOP) -> list[dict[str, Any]]:
    """The n largest paragraph clusters: id, size, distinctive terms, most mentioned entities."""
    found = sorted(analytics.rows("clusters").values(), key=lambda c: (-c["size"], c["id"]))
    return [{"id": c["id"], "size": c["size"], "terms": c.get("terms", []),
             "entities": c.get("centroid_entity_slugs", [])[:5]} for c in found[:n]]


def graph_html(atlas: Atlas) -> str:
    """Communities, surprising edges and clusters as three small tables (or how to compute them)."""
    look = atlas.analytics
    if not look.available:
        return '<div class="ohara-muted">No graph analytics yet: press <b>analyze</b> (or run <code>ohara analyze</code>).</div>'
    info = look.run_info
    counts = info.get("counts", {})
    names = {e.slug: e.name for e in atlas.entities(limit=0)}
    head = (f'<div class="ohara-muted">{counts.get("communities", 0)} communities, {counts.get("clusters", 0)} clusters,'
            f' {counts.get("adamic_adar_pairs", 0)} predicted links, {counts.get("isolated_entities", 0)} isolated'
            f' entities; modularity {esc(info.get("params", {}).get("modularity"))}; computed {esc(info.get("computed_at"))}</div>')
    comm = "".join(f"<tr><td>{r['id']}</td><td>{r['size']}</td><td>{chips(r['top'], 'entity', 6)}</td></tr>"
                   for r in community_rows(look))
    odd = "".join(f"<tr><td>{esc(r['from'])}</td><td>{esc(r['to'])}</td><td>{r['count']}</td>"
                  f"<td>{r['communities'][0]} ↔ {r['communities'][1]}</td></tr>" for r in surprising_rows(look, names))
    clus = "".join(f"<tr><td>{r['id']}</td><td>{r['size']}</td><td>{esc(shorten(', '.join(r['terms']), 80))}</td>"
                   f"<td>{chips(r['entities'], 'entity', 5)}</td></tr>" for r in cluster_rows(look))
    return (head
            + f"<b>Communities</b><table><tr><th>id</th><th>size</th><th>strongest members</th></tr>{comm}</table>"
            + f"<b>Surprising connections</b><table><tr><th>from</th><th>to</th><th>co-occurrences</th>"
              f"<th>communities</th></tr>{odd}</table>"
            + f"<b>Paragraph clusters</b><table><tr><th>id</th><th>size</th><th>terms</th><th>entities</th></tr>"
              f"{clus or '<tr><td colspan=4 class=ohara-muted>no vectors: embed the atlas first</td></tr>'}</table>")
