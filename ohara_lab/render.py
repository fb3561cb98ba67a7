"""Plain-text views of retrieval results for the terminal (`ohara query`, `ohara demo`)."""
from __future__ import annotations

import textwrap
from typing import Any

WIDTH = 100


def shorten(text: str | None, limit: int = 220) -> str:
    """`text` on one line, cut to `limit` characters with an ellipsis (empty for None)."""
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _where(view: Any, as_of: Any = None) -> str:
    if view is None:
        return ""
    parts = [view.document_title or view.document_id, *view.section_path]
    page = f", p. {view.page}" if view.page else ""
    undated = " (undated)" if as_of is not None and view.document_id in as_of.undated_documents else ""
    return " › ".join(p for p in parts if p) + page + undated


def _provenance(f: Any) -> str:
    bits = [f"{c.phase} {c.score:.2f}" for c in f.contributions if c.score > 0]
    if f.temporal:
        bits.append(f"temporal +{f.temporal:.2f}")
    return ", ".join(bits)


def render_results(result: Any, verbose: bool = False) -> str:
    lines = []
    for rank, f in enumerate(result.results, start=1):
        view = result.views.get(f.id)
        lines.append(f"{rank:>2}. [{f.score:.3f}] {_where(view)}")
        lines.append(textwrap.indent(textwrap.fill(shorten(view.content if view else f.id), WIDTH - 6), "      "))
        if verbose:
            lines.append(f"      ← {_provenance(f)}")
    # No result: say why (an empty atlas names `ohara ingest`, a query of stopwords says so).
    reason = getattr(result, "abstain_reason", None)
    return "\n".join(lines) or (f"no results: {reason}" if reason else "no results")


def render_tiers(result: Any) -> str:
    t = result.tiers
    q = result.query
    lines = [f"mode {q.mode} · intent {q.temporal_intent} · SUMO hints {', '.join(q.sumo_hints) or '-'}"
             f" · entity hints {', '.join(e['slug'] for e in q.entity_hints) or '-'}"]
    if result.skipped:
        lines.append("skipped: " + "; ".join(f"{k} ({v})" for k, v in result.skipped.items()))
    as_of = getattr(result, "as_of", None)
    if as_of is not None:
        lines.append(f"as of {as_of.date}: {as_of.excluded_documents} later document(s) left out, "
                     f"{len(as_of.undated_documents)} undated kept (labelled)")
    a = getattr(result, "answerability", None)
    if a is not None and (a.score is not None or a.vacuous):
        lines.append(a.explain())
    lines.append("")
    if not t.principal:
        lines.append(f"PRINCIPAL — none: the engine abstains: {result.abstain_reason}.")
    else:
        lines.append(f"PRINCIPAL — {len(t.principal)} node(s) above the score floor {t.floor:.3f}")
        for i, f in enumerate(t.principal, start=1):
            view = result.views.get(f.id)
            lines.append(f" [{i}] {f.score:.3f}  {_where(view, as_of)}")
            lines.append(textwrap.indent(textwrap.fill(shorten(view.content if view else f.id), WIDTH - 8), "        "))
            lines.append(f"        provenance: {_provenance(f)}")
    extra = [i for i in t.integrity if i.role != "principal"]
    flagged = [i for i in t.integrity if "contradicted" in i.integrity_flags]
    lines.append("")
    lines.append(f"INTEGRITY — {len(t.integrity)} item(s): {len(t.principal)} principal + {len(extra)} supporting")
    for item in extra[:8]:
        view = result.views.get(item.id)
        lines.append(f"  · {item.sources[0]:<17} {_where(view)}")
    for item in flagged:
        lines.append(f"  ! contradicted: {item.id} — {shorten(item.contradiction_note or '', 160)}")
    lines.append("")
    lines.append(f"EXPLORER — {len(t.explorer)} frontier document(s), stopped: {t.stopped_reason}")
    for x in t.explorer[:5]:
        title = result.views[x.document_id].document_title if x.document_id in result.views else x.document_id
        lines.append(f"  → {x.score:.3f} {title} ({x.hops} hop): {x.edge_verb or ''} — {shorten(x.edge_summary or '', 140)}")
    for gap in t.knowledge_gaps[:5]:
        lines.append(f"  ? knowledge gap: {gap['entity_name']} — {gap['hint']}")
    return "\n".join(lines)


def render_estimate(estimate: Any) -> str:
    """`ohara ingest --dry-run`: one line per file, then the total and how tokens were counted."""
    def line(name: str, t: dict[str, Any]) -> str:
        price = lambda v: "unknown" if v is None else f"${v:.4f}"  # noqa: E731
        return (f"{name}: {t['requests']} request(s), ~{t['input_tokens']:,} input + ~{t['output_tokens']:,} output "
                f"tokens, {price(t['cost_flex_usd'])} flex / {price(t['cost_standard_usd'])} standard, "
                f"{t['cache_hits']} cache hit(s)")

    lines = []
    for f in estimate.files:
        if f.status in ("failed", "skipped"):
            lines.append(f"{f.status:<9} {f.path}: {f.reason}")
        else:
            how = {"sampled": " (sampled)", "extrapolated": " (extrapolated by size)"}.get(getattr(f, "method", ""), "")
            lines.append(line(f"{f.status:<9} {f.path}{how}", f.totals()))
    total = estimate.totals()
    lines.append(line(f"total ({estimate.model})", total))
    if total["by_prompt"]:
        lines.append("  by prompt: " + ", ".join(f"{k} {v}" for k, v in sorted(total["by_prompt"].items())))
    lines.append(f"  tokens counted with {'google-genai local tokenizer' if estimate.tokenizer == 'local' else 'chars/4 (no local tokenizer model cached; Google: ~4 characters per token)'}; "
                 "nothing was sent")
    if estimate.provider_note:
        lines.append(f"  note: {estimate.provider_note}")
    if getattr(estimate, "sample_note", None):
        lines.append(f"  note: {estimate.sample_note}")
    return "\n".join(lines)
