"""HTML for one retrieval result: score, where it sits, SUMO tags, entities, phase badges, provenance.

Pure functions of a `RetrievalResult`'s parts, so the explorer's look is
testable on plain data. Phase badges show what each retrieval phase added to
the fused score; provenance lists the raw evidence (matched tags, shared
entities, edges followed) the tiers recorded.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ohara_lab.ids import split_id
from ohara_lab.phase_table import PHASE_TABLE
from ohara_lab.render import shorten

from .html import chips, esc

SNIPPET_CHARS = 420
CONTEXT_CHARS = 160  # paragraph text shown on each side of a cited span
PHASE_NAMES = {p.name: p.badge for p in PHASE_TABLE}  # a phase's badge text
_VIA_KEYS = ("matched_tags", "shared_entities", "edge_verb", "relation", "hops", "from", "seed_document")


def phase_badges(contributions: Iterable[Any]) -> str:
    """One badge per phase with what it added (largest first); zero-weight phases are marked."""
    added: dict[str, float] = {}
    for c in contributions:
        added[c.phase] = added.get(c.phase, 0.0) + float(c.score)
    parts = [f'<span class="ohara-chip phase" title="{esc(p)}">{esc(PHASE_NAMES.get(p, p))} +{s:.3f}</span>'
             for p, s in sorted(added.items(), key=lambda kv: -kv[1])]
    return "".join(parts)


def _via(item: dict[str, Any]) -> str:
    bits = []
    for key in _VIA_KEYS:
        value = item.get(key)
        if value in (None, "", []):
            continue
        bits.append(f"{key.replace('_', ' ')}: {', '.join(map(str, value)) if isinstance(value, list) else value}")
    return "; ".join(bits)


def provenance_html(provenance: Iterable[dict[str, Any]]) -> str:
    rows = [f"<li><b>{esc(PHASE_NAMES.get(p.get('phase', ''), p.get('phase', '')))}</b> "
            f"raw {float(p.get('raw_score', 0)):.3f} → +{float(p.get('score', 0)):.3f}"
            f"{(' — ' + esc(_via(p))) if _via(p) else ''}</li>" for p in provenance]
    return f'<details><summary>provenance ({len(rows)})</summary><ul>{"".join(rows)}</ul></details>' if rows else ""


def hit_card_html(rank: int, fused: Any, view: Any | None, tier: str | None = None,
                  provenance: Iterable[dict[str, Any]] = (), extra: dict[str, Any] | None = None) -> str:
    """A result card: rank, score, tier, document › section, snippet, tags, entities, phases, provenance."""
    title = view.document_title if view else fused.document_id
    where = " › ".join(view.section_path) if view and view.section_path else ""
    date = f" ({esc(view.published_date)})" if view and view.published_date else ""
    kind = view.node_type if view else split_id(fused.id)[0]
    page = f" · p. {view.page}" if view and view.page else ""
    tier_chip = f'<span class="ohara-chip tier">{esc(tier)}</span>' if tier else ""
    families = len(getattr(fused, "families", ()))
    extra_bits = "".join(f'<span class="ohara-chip">{esc(k)}: {esc(v)}</span>' for k, v in (extra or {}).items())
    lines = [
        f'<div class="ohara-card" data-node-id="{esc(fused.id)}">',
        f'<h4>#{rank} · {float(fused.score):.3f} {tier_chip} <span class="ohara-muted">{esc(kind)}{page} · '
        f'{families} signal famil{"y" if families == 1 else "ies"}</span></h4>',
        f"<div><b>{esc(title)}</b>{date}</div>",
    ]
    if where:
        lines.append(f'<div class="ohara-muted">{esc(where)}</div>')
    if view and view.content:
        lines.append(f"<div>{esc(shorten(view.content, SNIPPET_CHARS))}</div>")
    if view and view.sumo_tags:
        lines.append(f"<div>{chips(view.sumo_tags, 'tag', 6)}</div>")
    if view and view.entity_slugs:
        lines.append(f"<div>{chips(view.entity_slugs, 'entity', 6)}</div>")
    lines.append(f"<div>{phase_badges(fused.contributions)}{extra_bits}</div>")
    lines.append(provenance_html(provenance))
    lines.append("</div>")
    return "".join(lines)


def explorer_card_html(rank: int, item: Any, document_title: str) -> str:
    """An Explorer-tier frontier document: where the scent leads and why."""
    verb = esc(item.edge_verb or "related to")
    summary = f"<div>{esc(shorten(item.edge_summary, SNIPPET_CHARS))}</div>" if item.edge_summary else ""
    return (f'<div class="ohara-card" data-node-id="{esc(item.node_id or item.document_id)}">'
            f'<h4>#{rank} · scent {float(item.score):.3f} <span class="ohara-chip tier">explorer</span> '
            f'<span class="ohara-muted">{item.hops} hop(s) via {esc(item.source)}</span></h4>'
            f"<div><b>{esc(document_title or item.document_id)}</b> — {verb}</div>{summary}</div>")


def answer_html(answer: Any) -> str:
    """The synthesised answer with its numbered citations (or the abstention it chose).

    Each citation shows the cited paragraph around its supporting span(s), the span
    marked; a citation whose quotes could not be found in the paragraph says so.
    """
    cls = "ohara-notice" if getattr(answer, "insufficient", False) else "ohara-card"
    views = getattr(getattr(answer, "retrieval", None), "views", {}) or {}
    cites = "".join(_citation_html(c, views.get(c.get("node_id"))) for c in getattr(answer, "citations", []) or [])
    by = esc(getattr(answer, "answered_by", ""))
    return (f'<div class="{cls}"><h4>Answer <span class="ohara-muted">({by})</span></h4>'
            f"<div>{esc(getattr(answer, 'text', answer))}</div>"
            + (f"<ol style=\"list-style:none;padding-left:0\">{cites}</ol>" if cites else "") + "</div>")


def _citation_html(c: dict[str, Any], view: Any | None) -> str:
    where = " › ".join(c.get("section_path") or []) or c.get("section", "")
    page = f" · p. {c['page']}" if c.get("page") else ""
    spans = c.get("spans") or []
    content = view.content if view is not None else ""
    if spans and content:
        body = highlighted_html(content, spans)
    else:
        body = f'<span class="ohara-muted">{esc(shorten(c.get("snippet", ""), 160))}</span>'
    flag = "" if c.get("verified") else '<span class="ohara-chip warn">unverified</span>'
    unverified = "".join(f'<div class="ohara-muted">not found in the source: “{esc(shorten(q, 160))}”</div>'
                         for q in c.get("unverified") or [])
    return (f'<li data-node-id="{esc(c.get("node_id"))}">[{c.get("ref")}] <b>{esc(c.get("title"))}</b> '
            f'<span class="ohara-muted">{esc(where)}{esc(page)}</span> {flag}'
            f'<div class="ohara-quote">{body}</div>{unverified}</li>')


def highlighted_html(content: str, spans: list[dict[str, Any]], context: int = CONTEXT_CHARS) -> str:
    """`content` around its spans, escaped, each span in <mark>; cut text outside them is shown as …."""
    spans = sorted(spans, key=lambda s: s["start"])
    out, pos = [], max(0, spans[0]["start"] - context)
    if pos > 0:
        out.append("…")
    for s in spans:
        start, end = max(s["start"], pos), s["end"]
        if start >= end:
            continue
        gap = content[pos:start]
        out.append(esc(gap if len(gap) <= 2 * context else gap[:context] + " … " + gap[-context:]))
        out.append(f'<mark class="ohara-span" title="characters {s["start"]}–{s["end"]}">{esc(content[start:end])}</mark>')
        pos = end
    tail = content[pos:pos + context]
    out.append(esc(tail) + ("…" if pos + context < len(content) else ""))
    return "".join(out)
